// What opening and closing a session does to the chat's context; the chart (session-machine.ts)
// decides when.
import type { ChatMessageInput } from './chat-input.js';
import { deadlineOf, emitNext, type ChatContext, type Emit, type OpenSession } from './chat-context.js';
import { sessionAfter, type SessionEvent, type SessionSummary } from './session-events.js';
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
    closesAs: null,
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
  const closed: SessionSummary = { ...s.summary, status: 'closed', closedAt, closeReason: reason, fanSpendCents: ctx.fanSpendCents, closesAt: null, closesAs: null };
  return { ...emitNext(ctx, emit, 'SessionClosed', closedAt, { session: closed, requestedBy }), session: null };
}

/** Where the chart rests with a session open, as the chart states it (session-machine.ts). */
export interface Resting {
  readonly awaiting: boolean;
  /** The reason the session closes with at its deadline: the close its state's eventless transition takes. */
  readonly closesAs: 'idle' | 'unanswered';
}

/**
 * What the chart coming to rest does (session-machine.ts decides where it rests): the open
 * session's summary takes whether the fan awaits a reply from the state it rests in, and the
 * deadline it closes at unless a record moves it and how, and so does the last of the step's events that
 * carries that session, which read models keep (the sessions and chats documents, the priority
 * inbox). The events wait in the chart's outbox until then, so each goes out once, as it
 * stays. Summaries earlier in the step describe the session part-way through placing, where the
 * chart does not rest (SessionOpened before its first message; records placed together), and a
 * closed session's says whether its fan was still waiting when it closed. Returns the open
 * session as it rests (the only part of the context that changes) and the events.
 */
export function comeToRest(ctx: ChatContext, outbox: readonly SessionEvent[], resting: Resting): [OpenSession | null, readonly SessionEvent[]] {
  const open = ctx.session;
  if (open === null) return [open, outbox];
  const id = open.summary.sessionId;
  const deadline = deadlineOf(ctx, open);
  const awaiting = resting.awaiting;
  const closesAt = Number.isFinite(deadline) ? deadline : null;
  const closesAs = closesAt === null ? null : resting.closesAs;
  const rests = (s: SessionSummary): boolean => s.awaiting === awaiting && s.closesAt === closesAt && s.closesAs === closesAs;
  let events = outbox;
  for (let i = outbox.length - 1; i >= 0; i--) {
    const e = outbox[i] as SessionEvent;
    const s = sessionAfter(e);
    if (s === null || s.sessionId !== id) continue;
    if (!rests(s)) {
      const copy = outbox.slice();
      copy[i] = { ...e, data: { ...e.data, session: { ...s, awaiting, closesAt, closesAs } } } as SessionEvent;
      events = copy;
    }
    break;
  }
  return [rests(open.summary) ? open : { ...open, summary: { ...open.summary, awaiting, closesAt, closesAs } }, events];
}
