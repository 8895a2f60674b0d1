// The platform signs the raw body: hex HMAC-SHA256 with the webhook secret.
import { createHmac, timingSafeEqual } from 'node:crypto';

export function signBody(secret: string, raw: Buffer | string): string {
  return createHmac('sha256', secret).update(raw).digest('hex');
}

/** Constant-time comparison of the expected and the presented signature. */
export function verifySignature(secret: string, raw: Buffer, presented: string | undefined): boolean {
  if (!presented) return false;
  const expected = Buffer.from(signBody(secret, raw), 'hex');
  const given = /^[0-9a-fA-F]+$/.test(presented.trim()) ? Buffer.from(presented.trim(), 'hex') : Buffer.alloc(0);
  // timingSafeEqual needs equal lengths; compare against the expected length so timing does not reveal it.
  const padded = Buffer.alloc(expected.length);
  given.copy(padded, 0, 0, Math.min(given.length, expected.length));
  return timingSafeEqual(expected, padded) && given.length === expected.length;
}
