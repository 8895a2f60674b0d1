// When a chatter's clocked interval really ended. A chatter who stops replying is clocked out
// automatically once CLOCK_IDLE_SEC pass without a reply from them on that account (counting
// from the clock-in, then from each reply), as the agency tools do; a clock-out ends it sooner.
// Pure: the replies are read where the interval is (read-models/clock-intervals/queries.ts).

/**
 * The longest a clock-in lasts: a chatter on for a day without an idle gap is clocked out then
 * (no shift is longer), which also bounds the replies an interval's end is read from.
 */
export const MAX_CLOCKED_MS = 86_400_000;

export interface ClockedEnd {
  /** When the interval ended; null: still on at `now`. */
  readonly end: number | null;
  /** Ended by idling, not by a clock-out. */
  readonly automatic: boolean;
}

/**
 * `replies`: the chatter's reply times on the account from `inAt` on, ascending (later ones are
 * ignored once the interval has ended). `outAt`: the clock-out, or null. `since`: a reply time up
 * to which no idle gap lies (a reader that has walked the interval that far before), `inAt` if
 * none; replies before it may be left out.
 */
export function clockedEnd(inAt: number, outAt: number | null, replies: readonly number[], idleMs: number, now: number, since = inAt): ClockedEnd {
  const cap = inAt + MAX_CLOCKED_MS;
  const limit = Math.min(outAt ?? Number.POSITIVE_INFINITY, cap);
  let last = since;
  for (const t of replies) {
    if (t < last) continue;
    if (t >= limit) break;
    if (t - last >= idleMs) return { end: last + idleMs, automatic: true };
    last = Math.max(last, t);
  }
  const idleAt = last + idleMs;
  if (idleAt < limit && idleAt <= now) return { end: idleAt, automatic: true };
  if (outAt !== null && outAt <= cap) return { end: outAt, automatic: false };
  if (cap <= now) return { end: cap, automatic: true };
  return { end: null, automatic: false };
}

/** Milliseconds of [a, b) inside [from, to). */
export function overlapMs(a: number, b: number, from: number, to: number): number {
  return Math.max(0, Math.min(b, to) - Math.max(a, from));
}
