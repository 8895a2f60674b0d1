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

/** The webhook's secrets: the current one, and during a rotation the one it replaces, until a set instant. */
export interface WebhookSecrets {
  readonly current: string;
  readonly previous: { readonly secret: string; readonly untilMs: number } | null;
}

/** Which secret signed the body: the previous one only before its overlap ends; null when neither did. */
export function signedWith(secrets: WebhookSecrets, raw: Buffer, presented: string | undefined, nowMs: number): 'current' | 'previous' | null {
  if (verifySignature(secrets.current, raw, presented)) return 'current';
  const previous = secrets.previous;
  if (previous !== null && nowMs < previous.untilMs && verifySignature(previous.secret, raw, presented)) return 'previous';
  return null;
}
