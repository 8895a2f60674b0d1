// What opening and closing a session does to the chat's context; the chart (session-machine.ts)
// decides when.
import type { ChatMessageInput } from './chat-input.js';
import { deadlineOf, emitNext, type ChatContext, type Emit, type OpenSession } from './chat-context.js';
import type { SessionSummary } from './session-events.js';
import { absorb } from './placement.js';
import { recordMessage } from './session-figures.js';

export type CloseReason = NonNullable<SessionSummary['closeReason']>;

/** Opens the chat's next session with the fan message that starts it, taking in the loose records it covers. */
export function openSession(ctx: ChatContext, m: ChatMessageInput, emit: Emit): ChatContext {
  const sessionCount = ctx.sessionCount + 1;
  const summary: SessionSummary = {
    sessionId: `${ctx.chatKey}:${sessionCount}`,
    status: 'open',
    openedAt: m.at,
    closedAt: null,
    closeReason: null,
    lastMessageAt: m.at,
    lastActivityAt: m.at,
    messageCount: 0,
    fanMessageCount: 0,
    replyCount: 0,
    awaiting: false,
    waitingSince: null,
    firstFanMessageAt: null,
    firstResponseAt: null,
    firstResponseSec: null,
    firstResponderId: null,
    lastHumanChatterId: null,
    revenueCents: 0,
    paymentCount: 0,
    fanSpendCents: ctx.fanSpendCents,
    closesAt: null,
  };
  const session: OpenSession = { summary, unanswered: [], first: null, replies: [], credits: [] };
  const rest = ctx.pending[0] === m ? ctx.pending.slice(1) : ctx.pending.filter((r) => r !== m);
  const opened = emitNext({ ...ctx, sessionCount, session, pending: rest }, emit, 'SessionOpened', m.at, { session: summary });
  return absorb(recordMessage(opened, m, emit), emit);
}

/** Closes the open session: idle or unanswered at its deadline, forced at the command's time (never before its last activity). */
export function closeSession(ctx: ChatContext, reason: CloseReason, at: number, requestedBy: string | null, emit: Emit): ChatContext {
  const s = ctx.session;
  if (!s) return ctx;
  const closedAt = reason === 'forced' ? Math.max(at, s.summary.lastActivityAt) : deadlineOf(ctx, s);
  const closed: SessionSummary = { ...s.summary, status: 'closed', closedAt, closeReason: reason, fanSpendCents: ctx.fanSpendCents, closesAt: null };
  return { ...emitNext(ctx, emit, 'SessionClosed', closedAt, { session: closed, requestedBy }), session: null };
}
