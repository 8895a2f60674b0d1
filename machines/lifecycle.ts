// What opening and closing a session does to the chat's context; the chart (session-machine.ts)
// decides when.
import type { ChatMessageInput } from './chat-input.js';
import { deadlineOf, emitNext, tagged, type ChatContext, type Emit, type OpenSession } from './chat-context.js';
import { sessionAfter, type SessionEvent, type SessionSummary } from './session-events.js';
import { absorb, lapseDue, pastIdleDeadline } from './placement.js';
import { fanWaiting, recordMessage } from './session-figures.js';

export type CloseReason = NonNullable<SessionSummary['closeReason']>;

/** Opens the chat's next session with the fan message that starts it, taking in the loose records it covers. */
export function openSession(ctx: ChatContext, m: ChatMessageInput, emit: Emit): ChatContext {
  const sessionCount = ctx.sessionCount + 1;
  const summary: SessionSummary = {
    sessionId: tagged(ctx, `${ctx.chatKey}:${sessionCount}`),
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

/**
 * A tick at `at` found the open session's deadline passed while the watermark, held back by the
 * allowed lateness, keeps it open: it says so once per deadline (SessionLapsed), so read models
 * can hold the session as readers already show it, closed at its deadline, instead of
 * correcting it on every read. Nothing else changes: records within the lateness still join it.
 */
export function announceLapse(ctx: ChatContext, at: number, emit: Emit): ChatContext {
  const s = ctx.session;
  const due = lapseDue(ctx);
  if (s === null || due === null || !(due < at) || pastIdleDeadline(ctx)) return ctx;
  const closesAs = fanWaiting(s) ? 'unanswered' : 'idle';
  const next = emitNext(ctx, emit, 'SessionLapsed', at, { sessionId: s.summary.sessionId, closesAt: due, closesAs });
  return { ...next, session: { ...s, lapsed: due } };
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
  // A lapse said before an event that carries the session is undone by it (read models fold
  // that event from the session as it stands, open): it may be said again, even at the same deadline.
  let lapseUndone = false;
  for (let i = outbox.length - 1; i >= 0; i--) {
    const e = outbox[i] as SessionEvent;
    if (e.type === 'SessionLapsed' && e.data.sessionId === id) break;
    const s = sessionAfter(e);
    if (s === null || s.sessionId !== id) continue;
    lapseUndone = true;
    if (!rests(s)) {
      const copy = outbox.slice();
      copy[i] = { ...e, data: { ...e.data, session: { ...s, awaiting, closesAt, closesAs } } } as SessionEvent;
      events = copy;
    }
    break;
  }
  const kept = lapseUndone && open.lapsed !== undefined ? withoutLapse(open) : open;
  return [rests(kept.summary) ? kept : { ...kept, summary: { ...kept.summary, awaiting, closesAt, closesAs } }, events];
}

function withoutLapse(s: OpenSession): OpenSession {
  const { lapsed: _, ...rest } = s;
  return rest;
}
