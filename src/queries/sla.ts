// First-response SLA over sessions. A session counts once its fan has written. It is within
// the threshold when its first human reply came within `thresholdSec` of the first fan
// message; it is a breach when the reply came later, or has not come and the fan has waited
// longer than the threshold (at `now`). Unanswered sessions still inside the threshold are
// pending: counted, neither within nor breached yet.
import { nearestRank, percent } from './percentiles.js';

export interface SlaSession {
  readonly accountId: string;
  readonly status: 'open' | 'closed';
  readonly firstFanMessageAt: number | null;
  readonly firstResponseSec: number | null;
  readonly firstResponderId: string | null;
  readonly closedAt: number | null;
}

export interface SlaFigures {
  readonly sessions: number;
  readonly responded: number;
  readonly withinThreshold: number;
  readonly breaches: number;
  readonly pending: number;
  readonly withinThresholdPct: number | null;
  readonly medianFirstResponseSec: number | null;
  readonly p90FirstResponseSec: number | null;
}

export const UNATTRIBUTED = 'unattributed';

export type SlaOutcome = 'within' | 'breach' | 'pending';

export function slaOutcome(s: SlaSession, thresholdSec: number, now: number): SlaOutcome | null {
  if (s.firstFanMessageAt === null) return null;
  if (s.firstResponseSec !== null) return s.firstResponseSec <= thresholdSec ? 'within' : 'breach';
  // Unanswered: a closed session waited until it closed; an open one is still waiting.
  const waitedUntil = s.status === 'closed' && s.closedAt !== null ? s.closedAt : now;
  return (waitedUntil - s.firstFanMessageAt) / 1000 > thresholdSec ? 'breach' : 'pending';
}

export function slaFigures(sessions: readonly SlaSession[], thresholdSec: number, now: number): SlaFigures {
  let counted = 0;
  let within = 0;
  let breaches = 0;
  let pending = 0;
  const frts: number[] = [];
  for (const s of sessions) {
    const outcome = slaOutcome(s, thresholdSec, now);
    if (outcome === null) continue;
    counted++;
    if (outcome === 'within') within++;
    else if (outcome === 'breach') breaches++;
    else pending++;
    if (s.firstResponseSec !== null) frts.push(s.firstResponseSec);
  }
  frts.sort((a, b) => a - b);
  return {
    sessions: counted,
    responded: frts.length,
    withinThreshold: within,
    breaches,
    pending,
    // Pending sessions are not judged yet, so they are left out of the percentage.
    withinThresholdPct: percent(within, within + breaches),
    medianFirstResponseSec: nearestRank(frts, 50),
    p90FirstResponseSec: nearestRank(frts, 90),
  };
}

function groupBy<T>(items: readonly T[], key: (t: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}

export interface SlaReport extends SlaFigures {
  readonly thresholdSec: number;
  readonly byAccount: readonly (SlaFigures & { readonly accountId: string })[];
  /** By the chatter of the first reply; unanswered sessions have no chatter and are left out. */
  readonly byChatter: readonly (SlaFigures & { readonly chatterId: string })[];
}

export function slaReport(sessions: readonly SlaSession[], thresholdSec: number, now: number): SlaReport {
  const byAccount = [...groupBy(sessions, (s) => s.accountId)]
    .map(([accountId, list]) => ({ accountId, ...slaFigures(list, thresholdSec, now) }))
    .sort((a, b) => a.accountId.localeCompare(b.accountId));
  const answered = sessions.filter((s) => s.firstResponseSec !== null);
  const byChatter = [...groupBy(answered, (s) => s.firstResponderId ?? UNATTRIBUTED)]
    .map(([chatterId, list]) => ({ chatterId, ...slaFigures(list, thresholdSec, now) }))
    .sort((a, b) => a.chatterId.localeCompare(b.chatterId));
  return { thresholdSec, ...slaFigures(sessions, thresholdSec, now), byAccount, byChatter };
}
