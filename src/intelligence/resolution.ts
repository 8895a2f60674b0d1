// Why an alert about a session resolved, as the session says it now: a human replied, or the
// session closed (idle, unanswered at the limit, or by an admin). Alerts about a waiting fan
// hold while the fan waits, so these are the usual answers; `condition-cleared` is the rest (a
// rule whose condition passed while the fan still waits, a chatter's streak broken).
import type { SessionDoc } from '../projector/models/sessions/projection.js';

export const RESOLVED_BECAUSE = ['replied', 'closed-idle', 'closed-unanswered', 'closed-forced', 'session-removed', 'condition-cleared'] as const;
export type ResolvedBecause = (typeof RESOLVED_BECAUSE)[number];

export function resolvedBecause(session: Pick<SessionDoc, 'status' | 'closeReason' | 'awaiting'> | null): ResolvedBecause {
  if (session === null) return 'session-removed';
  if (session.status === 'closed') return `closed-${session.closeReason ?? 'idle'}`;
  return session.awaiting ? 'condition-cleared' : 'replied';
}
