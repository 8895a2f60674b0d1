// The first-response SLA's terms, defined once. Every figure (stats, the floor, the inbox, the
// SLA report and scorecard, the report buckets, the alerts) and both pages take them from here:
// the pages show the grade the API sends and decide none themselves.
//
// - A wait or a first response counts in whole seconds, to the nearest (halves up). The session
//   machine records first response times that way, so a fan's live grade never contradicts the
//   outcome the session gets when the reply comes (a reply after 300.4 s is within a 300 s
//   threshold, so the wait showed 5m 00s AT RISK the moment before, not OVER).
// - breached: more whole seconds than the threshold (strictly over it);
// - at risk: from 80% of the threshold up to the threshold itself;
// - ok: less.
// The grade and the figure shown beside it come from the same whole number of seconds.

/** At risk from 4/5 of the threshold; kept as a fraction so the boundary is exact in integers. */
const AT_RISK = { num: 4, den: 5 } as const;

export type WaitGrade = 'ok' | 'at-risk' | 'breached';

/** A session's first-response outcome: answered in time, too late (or not yet and too long), or not judged yet. */
export type SlaOutcome = 'within' | 'breach' | 'pending';

/** Whole seconds of a span in milliseconds (nearest, halves up); a negative span (clocks apart) is 0. */
export function wholeSec(ms: number): number {
  return Math.max(0, Math.round(ms / 1000));
}

/** Whole seconds a fan has waited at `now`; null when nobody waits. */
export function waitedSec(s: { readonly awaiting: boolean; readonly waitingSince: number | null }, now: number): number | null {
  return s.awaiting && s.waitingSince !== null ? wholeSec(now - s.waitingSince) : null;
}

/** Past the threshold: strictly more whole seconds than it. */
export function isBreach(sec: number, thresholdSec: number): boolean {
  return sec > thresholdSec;
}

/** The grade of a wait of `sec` whole seconds. */
export function gradeOf(sec: number, thresholdSec: number): WaitGrade {
  if (isBreach(sec, thresholdSec)) return 'breached';
  if (sec * AT_RISK.den >= thresholdSec * AT_RISK.num) return 'at-risk';
  return 'ok';
}

/** A live wait as every answer shows it: the whole seconds and their grade, together. */
export interface GradedWait {
  readonly waitSec: number;
  readonly grade: WaitGrade;
}

export function gradedWait(sec: number, thresholdSec: number): GradedWait {
  return { waitSec: sec, grade: gradeOf(sec, thresholdSec) };
}

/**
 * The whole seconds of waiting from which each grade above `ok` holds, for a timer that keeps
 * counting between answers (the console's inbox): it moves to the grade the API named at the
 * second the API named, so the page decides nothing. Agrees with gradeOf for every whole second.
 */
export function gradeSteps(thresholdSec: number): { readonly grade: Exclude<WaitGrade, 'ok'>; readonly fromSec: number }[] {
  return [
    { grade: 'at-risk', fromSec: Math.ceil((thresholdSec * AT_RISK.num) / AT_RISK.den) },
    { grade: 'breached', fromSec: Math.floor(thresholdSec) + 1 },
  ];
}

export interface JudgedSession {
  readonly status: 'open' | 'closed';
  readonly firstFanMessageAt: number | null;
  /** Whole seconds, as the session machine records them. */
  readonly firstResponseSec: number | null;
  readonly closedAt: number | null;
}

/**
 * A session counts once its fan has written (null before), and has one outcome at a time.
 * Answered: within when the first human reply came within the threshold, else a breach.
 * Unanswered and open: a breach once the fan has waited past the threshold, else pending (a
 * reply may still come in time). Unanswered and closed: a breach, however short the wait (on
 * business hours a session can close after few open seconds): no reply can come any more, and
 * pending means one still can.
 */
export function outcomeOf(s: JudgedSession, thresholdSec: number, now: number): SlaOutcome | null {
  if (s.firstFanMessageAt === null) return null;
  if (s.firstResponseSec !== null) return isBreach(s.firstResponseSec, thresholdSec) ? 'breach' : 'within';
  if (s.status === 'closed') return 'breach';
  return isBreach(unansweredSec(s, now), thresholdSec) ? 'breach' : 'pending';
}

/** Whole seconds an unanswered session's fan waited: until it closed, or until `now` while open. */
export function unansweredSec(s: Pick<JudgedSession, 'status' | 'firstFanMessageAt' | 'closedAt'>, now: number): number {
  const until = s.status === 'closed' && s.closedAt !== null ? s.closedAt : now;
  return wholeSec(until - (s.firstFanMessageAt ?? until));
}

/** A set of sessions' first-response figures, as the SLA report, the scorecard and the report buckets give them. */
export interface SlaFigures {
  readonly sessions: number;
  readonly responded: number;
  readonly withinThreshold: number;
  readonly breaches: number;
  /** Sessions closed at the unanswered limit without any human reply: breaches too (every session closed unanswered is one). */
  readonly missed: number;
  readonly pending: number;
  readonly withinThresholdPct: number | null;
  readonly medianFirstResponseSec: number | null;
  readonly p90FirstResponseSec: number | null;
}

/** The grade of `% within threshold` on the floor and the console: the agency's target is 90%, 75% is the alarm. */
export type WithinGrade = 'no-data' | 'on-target' | 'below' | 'missed';

export function withinGradeOf(pct: number | null): WithinGrade {
  if (pct === null) return 'no-data';
  if (pct >= 90) return 'on-target';
  if (pct >= 75) return 'below';
  return 'missed';
}
