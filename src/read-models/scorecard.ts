// Per-chatter scorecard. coachPriority (0–100, higher = coach first) weighs what a manager
// would, and each part it adds is a reason the row gives (as the inbox says why a fan is first):
//   - SLA misses: the share of the chatter's judged sessions that breached, up to 40 points;
//   - a slow tail: the p90 first response against the threshold, capped at 3×, up to 20;
//   - money: revenue per direct message below the team's, up to 20 (none at or above it), and
//     the unlock ratio below the team's, up to 10; the team is every named chatter in the window;
//   - open alerts: 2 points each, up to 10.
// Each part is rounded to whole points and the priority is their sum. A chatter with nothing
// judged, no money figure and no alert scores 0.
import type { SlaFigures } from '../domain/sla.js';
import { dollars, duration } from '../domain/wording.js';

export type CoachReasonKind = 'sla-misses' | 'slow-tail' | 'low-revenue-per-message' | 'low-unlock-ratio' | 'open-alerts';

export interface CoachReason {
  readonly kind: CoachReasonKind;
  /** What it adds to coachPriority. */
  readonly points: number;
  readonly text: string;
}

/** The money side of one chatter (or of the team): from the conversion report of the same window. */
export interface MoneyFigures {
  readonly revenuePerDirectMessageCents: number | null;
  readonly unlockRatioPct: number | null;
}

export interface ScorecardRow extends MoneyFigures {
  readonly chatterId: string;
  readonly sessions: number;
  readonly revenueCents: number;
  readonly paymentCount: number;
  readonly sla: SlaFigures;
  readonly openAlerts: number;
  readonly coachPriority: number;
  /** Why it is where it is: the parts of coachPriority, the largest first (parts under half a point left out). */
  readonly coachReasons: CoachReason[];
}

export function coaching(sla: SlaFigures, thresholdSec: number, openAlerts: number, money: MoneyFigures = NO_MONEY, team: MoneyFigures = NO_MONEY): { coachPriority: number; coachReasons: CoachReason[] } {
  const reasons: CoachReason[] = [];
  const add = (kind: CoachReasonKind, points: number, text: string) => {
    const whole = Math.round(points);
    if (whole > 0) reasons.push({ kind, points: whole, text });
  };
  const judged = sla.withinThreshold + sla.breaches;
  if (judged > 0) add('sla-misses', (sla.breaches / judged) * 40, `${sla.breaches} of ${judged} sessions past the SLA`);
  if (sla.p90FirstResponseSec !== null) add('slow-tail', (Math.min(3, sla.p90FirstResponseSec / thresholdSec) / 3) * 20, `p90 first response ${duration(sla.p90FirstResponseSec)} against ${duration(thresholdSec)}`);
  const rpm = money.revenuePerDirectMessageCents;
  const teamRpm = team.revenuePerDirectMessageCents;
  if (rpm !== null && teamRpm !== null && teamRpm > 0 && rpm < teamRpm) {
    add('low-revenue-per-message', (1 - rpm / teamRpm) * 20, `${dollars(rpm)} per direct message against the team's ${dollars(teamRpm)}`);
  }
  const unlock = money.unlockRatioPct;
  const teamUnlock = team.unlockRatioPct;
  if (unlock !== null && teamUnlock !== null && teamUnlock > 0 && unlock < teamUnlock) {
    add('low-unlock-ratio', (1 - unlock / teamUnlock) * 10, `unlock ratio ${unlock}% against the team's ${teamUnlock}%`);
  }
  if (openAlerts > 0) add('open-alerts', Math.min(10, openAlerts * 2), `${openAlerts} open alert${openAlerts === 1 ? '' : 's'}`);
  reasons.sort((a, b) => b.points - a.points);
  return { coachPriority: Math.min(100, reasons.reduce((n, r) => n + r.points, 0)), coachReasons: reasons };
}

const NO_MONEY: MoneyFigures = { revenuePerDirectMessageCents: null, unlockRatioPct: null };
