// The priority inbox's order. A waiting fan's score is how long they have waited plus a head
// start for fans who spend: 60 s per $10 of lifetime spend, at most 30 minutes. Both parts
// grow at the same rate for every waiting fan, so the order never changes with the clock and
// can be stored and indexed as one time: the moment the fan "effectively" started waiting.

export const SPEND_HEAD_START = { secondsPerDollar: 6, maxSeconds: 1800 } as const;

export function spendHeadStartSec(fanSpendCents: number | null): number {
  if (fanSpendCents === null || fanSpendCents <= 0) return 0;
  return Math.min(SPEND_HEAD_START.maxSeconds, Math.floor((fanSpendCents / 100) * SPEND_HEAD_START.secondsPerDollar));
}

/** Sort key (ascending = most urgent) of an awaiting open session; null when nobody waits. */
export function priorityAt(s: { status: string; awaiting: boolean; waitingSince: number | null }, fanSpendCents: number | null): number | null {
  if (s.status !== 'open' || !s.awaiting || s.waitingSince === null) return null;
  return s.waitingSince - spendHeadStartSec(fanSpendCents) * 1000;
}

/** The score shown with each session: seconds of effective wait at `now`. */
export function priorityScore(at: number | null, now: number): number {
  return at === null ? 0 : Math.max(0, Math.round((now - at) / 1000));
}
