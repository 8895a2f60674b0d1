// Sessions: one document per session, the machine's summary after each event plus the
// fan's reported spend and the priority inbox's sort key.
import { sessionAfter, type SessionEvent } from '../../../machines/session-events.js';
import type { SessionDoc } from './document.js';
import { priorityAt } from './priority.js';
import { sweptSession } from './lapse.js';
import { reportedSpend } from '../events.js';
import { SESSIONS } from '../names.js';
import type { DocumentProjection } from '../projection.js';

export type { SessionDoc } from './document.js';

export function foldSession(doc: SessionDoc | undefined, e: SessionEvent): SessionDoc | undefined {
  if (doc && doc.lastSeq >= e.seq) return undefined;
  if (e.type === 'SessionLapsed') {
    // Only an open session lapses; one its close or a later record already moved stays as it is.
    if (!doc || doc.status !== 'open') return undefined;
    return sweptSession({ ...doc, closesAt: e.data.closesAt, closesAs: e.data.closesAs, lastSeq: e.seq });
  }
  const session = sessionAfter(e);
  if (!session) return undefined;
  // Summaries carry the spend since events record order-independent figures; older ones did not.
  const fanSpendCents = session.fanSpendCents ?? reportedSpend(e) ?? doc?.fanSpendCents ?? null;
  // Every field written out: a copy by spread with overrides costs V8 microseconds, and every
  // event of a session passes here.
  const s = session;
  return {
    _id: s.sessionId, accountId: e.accountId, chatId: e.chatId, chatKey: e.chatKey,
    sessionId: s.sessionId, status: s.status, openedAt: s.openedAt, closedAt: s.closedAt, closeReason: s.closeReason,
    lastMessageAt: s.lastMessageAt, lastActivityAt: s.lastActivityAt, messageCount: s.messageCount, fanMessageCount: s.fanMessageCount,
    replyCount: s.replyCount, awaiting: s.awaiting, waitingSince: s.waitingSince, firstFanMessageAt: s.firstFanMessageAt,
    firstResponseAt: s.firstResponseAt, firstResponseSec: s.firstResponseSec, firstResponderId: s.firstResponderId,
    lastHumanChatterId: s.lastHumanChatterId, revenueCents: s.revenueCents, paymentCount: s.paymentCount,
    fanSpendCents, priorityAt: priorityAt(session, fanSpendCents), closesAt: s.closesAt ?? null, closesAs: s.closesAs ?? null, lastSeq: e.seq,
    firstResponseBusinessSec: s.firstResponseBusinessSec ?? null, waitBusinessSec: s.waitBusinessSec ?? null,
  };
}

export const sessions: DocumentProjection<SessionDoc> = {
  name: SESSIONS,
  canHandle: (e) => e.type === 'SessionLapsed' || Boolean(sessionAfter(e)),
  documentIds: (p) => {
    if (p.event.type === 'SessionLapsed') return [p.event.data.sessionId];
    const session = sessionAfter(p.event);
    return session ? [session.sessionId] : [];
  },
  evolve: (doc, p) => foldSession(doc, p.event),
  indexes: [
    // queries.ts inbox (and intelligence's open sessions, most urgent first): the waiting part
    // by priorityAt; the rest (priorityAt null) by last message. Reports read who waits now by it.
    { keys: { priorityAt: 1, lastMessageAt: 1 } },
    // queries.ts recent (newest opened first); reports: sessions opened at a window's partial ends.
    { keys: { openedAt: 1 } },
    // queries.ts ofChats: one chat's sessions, newest first.
    { keys: { chatKey: 1, openedAt: 1 } },
    // Intelligence: a chatter's latest answered sessions (its slow-reply streak).
    { keys: { firstResponderId: 1, firstResponseAt: 1 } },
    // Reports: sessions at a window's partial ends, and open ones not answered yet (read live).
    { keys: { firstFanMessageAt: 1 } },
    { keys: { status: 1, firstResponseSec: 1, firstFanMessageAt: 1 } },
    // Live counts: open sessions past their deadline (report-buckets/queries.ts live()).
    { keys: { status: 1, closesAt: 1 } },
  ],
};
