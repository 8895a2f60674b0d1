// A session's first-response figures in open hours, worked out once where the session changes
// (the processor, as it emits the session's events) rather than at every report: the report
// buckets then fold them like the wall-clock ones (issue 55, business time as a fold), and a
// report on the business clock costs what the wall-clock one costs, over any window.
//
// Which schedule: the one in force when the record that changed the session was received
// (accounts/business-hours-store.ts ScheduleBook), as the unanswered limit is placed. Processing
// the same records again measures them the same way whatever the schedule is now; a schedule
// change reaches the sessions that change after it, and history through a definitions preview
// that restates the schedules (src/definitions-previews.ts).
import type { SessionSummary } from '../../machines/session-events.js';
import type { BusinessClock } from './business-hours.js';
import { wholeSec } from './sla.js';

export interface BusinessFigures {
  readonly firstResponseBusinessSec: number | null;
  readonly waitBusinessSec: number | null;
}

/** The summary's first response, or its fan's wait (closed, or to the deadline while open), in whole seconds of `clock`'s open hours. */
export function businessFigures(s: SessionSummary, clock: BusinessClock): BusinessFigures {
  const from = s.firstFanMessageAt;
  if (from === null) return { firstResponseBusinessSec: null, waitBusinessSec: null };
  if (s.firstResponseAt !== null) return { firstResponseBusinessSec: wholeSec(clock.businessMs(from, s.firstResponseAt)), waitBusinessSec: null };
  const until = s.status === 'closed' ? (s.closedAt ?? s.lastActivityAt) : (s.closesAt ?? null);
  return { firstResponseBusinessSec: null, waitBusinessSec: until === null ? null : wholeSec(clock.businessMs(from, until)) };
}

/** The summary with its business figures, by `clock` (null: the account had no schedule; the figures are left out). */
export function withBusinessTime(s: SessionSummary, clock: BusinessClock | null): SessionSummary {
  if (clock === null || s.firstFanMessageAt === null) return s;
  const b = businessFigures(s, clock);
  return { ...s, firstResponseBusinessSec: b.firstResponseBusinessSec, waitBusinessSec: b.waitBusinessSec };
}
