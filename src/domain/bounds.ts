// The one declaration of what a value from outside may be. Every source (webhook, demo,
// connector, backfill) goes through these at the door, and the normaliser applies the same
// ones to what is already in the log, so nothing downstream meets a value it cannot hold:
// a 3,000-character id overflowed the store's key size and stopped every partition; a date
// of 1e300 made every read that formats it throw.

/** Why a value was refused, and where it sits in the body ("payload.fromUser.id"). */
export class OutOfBounds extends Error {
  constructor(readonly field: string, readonly reason: string) {
    super(`${field}: ${reason}`);
    this.name = 'OutOfBounds';
  }
}

export interface Refusal {
  readonly field: string;
  readonly reason: string;
}

/**
 * The platform's ids are decimal strings (fans, messages), 32-hex strings (transactions) or
 * `acct_…`; the demo and tests use short slugs. 64 characters and no separators leave every
 * store key made of them (account:chat:message) far below LMDB's 1,978-byte key limit, and keep
 * them safe in URLs and log lines.
 */
export const MAX_ID_CHARS = 64;
/** As a JSON-schema pattern too, so routes that take ids in their schema say the same. */
export const ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$';
const ID = new RegExp(ID_PATTERN);
export const ID_RULE = `1 to ${MAX_ID_CHARS} letters, digits, '_', '.' or '-', starting with a letter or digit`;

/** Account ids route a chat (`<account>:<fan>`): no colon, so a chat key splits one way only. */
export const MAX_ACCOUNT_ID_CHARS = 100;
export const ACCOUNT_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$';
const ACCOUNT_ID = new RegExp(ACCOUNT_ID_PATTERN);
export const ACCOUNT_ID_RULE = `1 to ${MAX_ACCOUNT_ID_CHARS} letters, digits, '_', '.' or '-', starting with a letter or digit`;

/** Event names are dotted words (`messages.received`, `accounts.connected`). */
const EVENT = /^[A-Za-z0-9_.-]{1,100}$/;
export const EVENT_RULE = "1 to 100 letters, digits, '_', '.' or '-'";

/** The platform's keys are `evt_` + 40 hex; ours are prefixed ids. Printable ASCII, no spaces. */
export const MAX_DEDUPE_KEY_CHARS = 200;
const DEDUPE_KEY = /^[\x21-\x7e]{1,200}$/;
export const DEDUPE_KEY_RULE = `1 to ${MAX_DEDUPE_KEY_CHARS} printable ASCII characters without spaces`;

/** Nothing the platform reports predates 2000; a clock more than a day ahead is wrong, not early. */
export const EARLIEST_TIME_MS = Date.UTC(2000, 0, 1);
export const FUTURE_TOLERANCE_MS = 24 * 3600 * 1000;

/**
 * The largest single payment or price, in dollars. The platform caps prices at $200 and tips at
 * a few hundred; a hundred thousand leaves room for any real bundle while keeping every sum of
 * a lifetime's payments an exact integer of cents.
 */
export const MAX_AMOUNT_DOLLARS = 100_000;

export function isId(v: string): boolean {
  return ID.test(v);
}

export function isAccountId(v: string): boolean {
  return ACCOUNT_ID.test(v);
}

export function isEventName(v: string): boolean {
  return EVENT.test(v);
}

export function isDedupeKey(v: string): boolean {
  return DEDUPE_KEY.test(v);
}

/** Throws OutOfBounds unless `ms` lies between 2000-01-01 and a day past `receivedAt`. */
export function checkTime(field: string, ms: number, receivedAt: number): number {
  if (!Number.isFinite(ms) || ms < EARLIEST_TIME_MS) throw new OutOfBounds(field, 'must not be before 2000-01-01');
  if (ms > receivedAt + FUTURE_TOLERANCE_MS) throw new OutOfBounds(field, 'must not be more than a day after the time it was received');
  return ms;
}

// With the u flag a surrogate pair is one code point, so this matches only halves left alone.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
// JSON can only spell a lone surrogate as an escape (raw ones are not valid UTF-8 and decode
// to U+FFFD), so a text without such an escape needs no walk.
const SURROGATE_ESCAPE = /\\u[dD][89abcdefABCDEF]/;

export function isWellFormedText(s: string): boolean {
  return !LONE_SURROGATE.test(s);
}

/**
 * The path of the first key or string in a parsed body that is not well-formed Unicode, or
 * undefined. `text`, when given, is the JSON it was parsed from: only a text holding a surrogate
 * escape is walked. A lone surrogate is stored as is by one store and as U+FFFD by another, so an id
 * holding one is no longer the same id after a round trip.
 */
export function malformedTextPath(root: unknown, text?: string): string | undefined {
  if (text !== undefined && !SURROGATE_ESCAPE.test(text)) return undefined;
  const stack: [unknown, string][] = [[root, '']];
  while (stack.length > 0) {
    const [v, path] = stack.pop() as [unknown, string];
    if (typeof v === 'string') {
      if (!isWellFormedText(v)) return path || 'body';
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => stack.push([item, `${path || 'body'}[${i}]`]));
    } else if (typeof v === 'object' && v !== null) {
      for (const [k, child] of Object.entries(v)) {
        const at = path ? `${path}.${k}` : k;
        if (!isWellFormedText(k)) return `${at} (a key)`;
        stack.push([child, at]);
      }
    }
  }
  return undefined;
}
