// Where a figure is kept: a time bucket (UTC hour, day or month) of one account, or the
// account's live row (what is open now). Bucket keys are fixed-width, so a range of `_id`s is
// a range of time and one ordered read fetches a window's buckets.

export type TimeLevel = 'h' | 'd' | 'm';
/** `all`: one bucket per account holding every time bucket's figures (not its fan sets), what an all-time window reads. */
export type Level = TimeLevel | 'all' | 'live';

export const TIME_LEVELS: readonly TimeLevel[] = ['h', 'd', 'm'];

const HOUR = 3_600_000;
const DAY = 86_400_000;

/** The bucket index of a time at a level: hours or days since the epoch, or months since year 0. */
export function bucketIndex(level: TimeLevel, at: number): number {
  if (level === 'h') return Math.floor(at / HOUR);
  if (level === 'd') return Math.floor(at / DAY);
  const d = new Date(at);
  return d.getUTCFullYear() * 12 + d.getUTCMonth();
}

/** When a bucket starts (epoch ms). */
export function bucketStart(level: TimeLevel, index: number): number {
  if (level === 'h') return index * HOUR;
  if (level === 'd') return index * DAY;
  return Date.UTC(Math.floor(index / 12), ((index % 12) + 12) % 12, 1);
}

// Offset and width keep negative indexes (times before 1970 or year 0) sortable as text.
const OFFSET = 1_000_000_000;
const WIDTH = 10;

export function bucketKey(index: number): string {
  return String(index + OFFSET).padStart(WIDTH, '0');
}

export const LIVE_KEY = bucketKey(0);
export const ALL_KEY = bucketKey(0);

/** `_id` bounds of every account's `all` bucket. */
export const ALL_RANGE = { $gte: 'all|', $lt: 'all}' } as const;

/**
 * Which documents of a time bucket: its figures, or the sets of fans its direct messages went
 * to. The sets grow with the fans an account has (megabytes a month at a million sessions) and
 * only fans chatted reads them, so they live in documents of their own: every other report, and
 * the projector's marks, read the small ones.
 */
export type Family = 'figures' | 'fans' | 'work';

/**
 * `work`: what the shift figures are worked out from, per session and payment, at the day level
 * only (work-digest.ts): a week's shift report reads seven documents per account.
 */
const prefixOf = (level: Level, family: Family): string => (family === 'fans' ? `f${level}` : family === 'work' ? `w${level}` : level);

export function docId(level: Level, key: string, accountId: string, family: Family = 'figures'): string {
  return `${prefixOf(level, family)}|${key}|${accountId}`;
}

/** `_id` bounds of the buckets [fromIndex, toIndex) of a level, over every account. */
export function idRange(level: TimeLevel, fromIndex: number, toIndex: number, family: Family = 'figures'): { $gte: string; $lt: string } {
  const p = prefixOf(level, family);
  // An open end (the window has no bound there) runs to the level's first or last bucket.
  const lo = fromIndex <= Number.MIN_SAFE_INTEGER ? `${p}|` : `${p}|${bucketKey(fromIndex)}|`;
  const hi = toIndex >= Number.MAX_SAFE_INTEGER ? `${p}}` : `${p}|${bucketKey(toIndex)}|`;
  return { $gte: lo, $lt: hi };
}

/** Whether a bucket field is a fan set's (those of `fans` documents). */
export const isFanField = (field: string): boolean => field.startsWith('directFans.') || FAN_FIELD.test(field);
const FAN_FIELD = /^conv\.[^.]+\.fans\./;

/** Whether a bucket field is one of the `work` documents' facts per session (`ws.`), payment (`wp.`) or clock interval (`wi.`), work-digest.ts. */
export const isWorkField = (field: string): boolean => field.startsWith('ws.') || field.startsWith('wp.') || field.startsWith('wi.');

// Chatter ids become field names, which may not contain '.' or start with '$' in MongoDB:
// base64url keeps them to [A-Za-z0-9_-]. Answered sessions without a chatter go under 'u'.
export const UNATTRIBUTED_KEY = 'u';

export function chatterKey(chatterId: string | null): string {
  return chatterId === null ? UNATTRIBUTED_KEY : `c${Buffer.from(chatterId, 'utf8').toString('base64url')}`;
}

export function chatterIdOf(key: string): string | null {
  return key === UNATTRIBUTED_KEY ? null : Buffer.from(key.slice(1), 'base64url').toString('utf8');
}

// Campaigns (a queue's sends) likewise; automated sends from no queue go under 'a'.
export function campaignKey(queueId: string | null): string {
  return queueId === null ? 'a' : `q${Buffer.from(queueId, 'utf8').toString('base64url')}`;
}

export function campaignIdOf(key: string): string | null {
  return key === 'a' ? null : Buffer.from(key.slice(1), 'base64url').toString('utf8');
}

// A fan (a chat of the bucket's account) as a field name, likewise.
export const fanKey = (chatId: string): string => `f${Buffer.from(chatId, 'utf8').toString('base64url')}`;

/** Histogram field for a whole number of seconds (field names must not be bare numbers for mingo's paths). */
export const secKey = (sec: number): string => `s${sec}`;
export const secOf = (key: string): number => Number(key.slice(1));
/** The same keys for any whole-number histogram (cents, minutes). */
export const countKey = (n: number): string => `s${n}`;
