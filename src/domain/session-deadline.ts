// A session stays open in the store until a record or the clock's tick closes it, and the tick
// waits for the chat's arrivals to go idle (so history being ingested is not cut up); on the
// embedded store the projector's sweep writes it closed at its deadline first
// (projector/lapse-sweep.ts), within about a second. Readers do not wait for either: a session
// whose deadline (closesAt) has passed by the clock is shown as closed, as the processor will
// close it, so a stale sample or an old chat never shows a wait of days.
import type { CloseReason } from '../../machines/lifecycle.js';

interface Deadlined {
  readonly status: 'open' | 'closed';
  readonly closesAt?: number | null;
  /** How it closes at `closesAt`, as the session chart says (SessionSummary.closesAs). */
  readonly closesAs?: 'idle' | 'unanswered' | null;
  readonly awaiting: boolean;
}

/** Open in the store, but its idle gap or unanswered limit has passed by `now`. */
export function pastDeadline(s: Deadlined, now: number): boolean {
  return s.status === 'open' && s.closesAt != null && s.closesAt <= now;
}

/** Open as readers show it at `now`. */
export function openAt(s: Deadlined, now: number): boolean {
  return s.status === 'open' && !pastDeadline(s, now);
}

/** A store condition for sessions open in the store but past their deadline at `now`: what readers show closed, and the projector sweeps. */
export function pastDeadlineFilter(now: number): Record<string, unknown> {
  return { status: 'open', closesAt: { $lte: now } };
}

/** A store condition for open sessions not yet past their deadline at `now` (null and absent: no deadline known). */
export function notPastDeadline(now: number): Record<string, unknown> {
  return { closesAt: { $not: { $lte: now } } };
}

/**
 * How a session past its deadline will close: as the processor closes it, at its deadline, for
 * the reason the chart gave with the deadline. Sessions folded from events written before the
 * chart gave it (their documents are not rewritten: stored-format.ts checks chat states only)
 * close unanswered if the fan waits and idle if not, which is the chart's rule.
 */
export function shownClose(s: Deadlined & { readonly closedAt: number | null; readonly closeReason: CloseReason | null }, now: number): { status: 'open' | 'closed'; closedAt: number | null; closeReason: CloseReason | null } {
  if (!pastDeadline(s, now)) return { status: s.status, closedAt: s.closedAt, closeReason: s.closeReason };
  return { status: 'closed', closedAt: s.closesAt ?? null, closeReason: s.closesAs ?? (s.awaiting ? 'unanswered' : 'idle') };
}
