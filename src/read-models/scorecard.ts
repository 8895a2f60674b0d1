// Per-chatter scorecard. coachPriority (0–100, higher = coach first) weighs what a manager
// would: how often the chatter misses the SLA (up to 60 points), how slow the slow tail is
// (p90 against the threshold, capped at 3×, up to 30 points), and open alerts (up to 10
// points, 2 per alert). A chatter with no judged sessions scores 0.
import type { SlaFigures } from '../domain/sla.js';

export interface ScorecardRow {
  readonly chatterId: string;
  readonly sessions: number;
  readonly revenueCents: number;
  readonly paymentCount: number;
  readonly sla: SlaFigures;
  readonly openAlerts: number;
  readonly coachPriority: number;
}

export function coachPriority(sla: SlaFigures, thresholdSec: number, openAlerts: number): number {
  const judged = sla.withinThreshold + sla.breaches;
  if (judged === 0 && openAlerts === 0) return 0;
  const missRate = judged === 0 ? 0 : sla.breaches / judged;
  const tail = sla.p90FirstResponseSec === null ? 0 : Math.min(3, sla.p90FirstResponseSec / thresholdSec) / 3;
  return Math.round(missRate * 60 + tail * 30 + Math.min(10, openAlerts * 2));
}
