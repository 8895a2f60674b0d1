// Why an alert about a session resolved, as the session says it now: a human replied, or the
// session closed (idle, unanswered at the limit, or by an admin). Alerts about a waiting fan
// hold while the fan waits, so these are the usual answers; `condition-cleared` is the rest (a
// rule whose condition passed while the fan still waits, a chatter's streak broken).
import type { SessionDoc } from '../read-models/sessions/projection.js';
import { shownClose } from '../domain/session-deadline.js';

export const RESOLVED_BECAUSE = ['replied', 'closed-idle', 'closed-unanswered', 'closed-forced', 'session-removed', 'condition-cleared'] as const;
export type ResolvedBecause = (typeof RESOLVED_BECAUSE)[number];

/** Why, at `now`: a session past its deadline is closed as the tick will close it. */
export function resolvedBecause(session: Pick<SessionDoc, 'status' | 'closeReason' | 'awaiting' | 'closedAt'> & { readonly closesAt?: number | null } | null, now: number): ResolvedBecause {
  if (session === null) return 'session-removed';
  const shown = shownClose(session, now);
  if (shown.status === 'closed') return `closed-${shown.closeReason ?? 'idle'}`;
  return session.awaiting ? 'condition-cleared' : 'replied';
}
