// Standard Webhooks signatures (https://www.standardwebhooks.com): the secret is `whsec_` and
// the base64 of the key; a delivery carries `webhook-id`, `webhook-timestamp` (seconds) and
// `webhook-signature`: `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`.
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

export function newSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

export function signature(secret: string, id: string, timestampSec: number, body: string): string {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSec}.${body}`).digest('base64')}`;
}

export function signedHeaders(secret: string, id: string, body: string, now: number): Record<string, string> {
  const timestampSec = Math.floor(now / 1000);
  return { 'webhook-id': id, 'webhook-timestamp': String(timestampSec), 'webhook-signature': signature(secret, id, timestampSec, body) };
}
