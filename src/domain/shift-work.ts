// What a chatter did while clocked in on a shift's account: the fans whose wait began then, the
// sessions of those they answered first, with the first-response figures, and the revenue
// credited to them then (under the attribution model asked for). Pure: sessions and payments
// come read, with each payment's credited chatter.
import { nearestRank, percent } from './percentiles.js';
import { isBreach } from './sla.js';
import type { Shares } from './shift-credit.js';

export interface WorkSession {
  readonly accountId: string;
  readonly firstFanMessageAt: number;
  readonly firstResponderId: string | null;
  readonly firstResponseSec: number | null;
}

export interface WorkPayment {
  readonly accountId: string;
  readonly paidAt: number;
  readonly grossCents: number;
  /** Who it is credited to under the model asked for, and how much (shared under `shift`); empty: nobody. */
  readonly credit: Shares;
}

export interface ShiftWork {
  /** Sessions of the account whose fan began waiting (first fan message) while the chatter was clocked in. */
  readonly fansWaited: number;
  /** Of them, first answered by this chatter. */
  readonly sessionsAnswered: number;
  readonly withinThreshold: number;
  /** Of the sessions they answered. */
  readonly withinThresholdPct: number | null;
  readonly medianFirstResponseSec: number | null;
  readonly p90FirstResponseSec: number | null;
  /** Payments paid while they were clocked in, credited to them. */
  readonly revenueCents: number;
}

/** Whether `t` lies in one of `spans` ([from, to) each). */
function inSpans(spans: readonly (readonly [number, number])[], t: number): boolean {
  for (const [a, b] of spans) if (t >= a && t < b) return true;
  return false;
}

/**
 * `spans`: [from, to) of the chatter's clocked time on the account, not overlapping. Plain loops:
 * a week's report calls it once per shift, a thousand times a request.
 */
export function shiftWork(chatterId: string, accountId: string, spans: readonly (readonly [number, number])[], sessions: readonly WorkSession[], payments: readonly WorkPayment[], thresholdSec: number): ShiftWork {
  let fansWaited = 0;
  const answered: number[] = [];
  if (spans.length > 0) {
    for (const s of sessions) {
      if (s.accountId !== accountId || !inSpans(spans, s.firstFanMessageAt)) continue;
      fansWaited++;
      if (s.firstResponderId === chatterId && s.firstResponseSec !== null) answered.push(s.firstResponseSec);
    }
  }
  answered.sort((a, b) => a - b);
  let withinThreshold = 0;
  for (const sec of answered) if (!isBreach(sec, thresholdSec)) withinThreshold++;
  let revenueCents = 0;
  if (spans.length > 0) {
    for (const p of payments) {
      if (p.accountId !== accountId || !inSpans(spans, p.paidAt)) continue;
      for (const [id, cents] of p.credit) if (id === chatterId) revenueCents += cents;
    }
  }
  return {
    fansWaited, sessionsAnswered: answered.length, withinThreshold, withinThresholdPct: percent(withinThreshold, answered.length),
    medianFirstResponseSec: nearestRank(answered, 50), p90FirstResponseSec: nearestRank(answered, 90), revenueCents,
  };
}
