// Chat states stored by earlier versions, taken up as they are read.
//
// - Before event time and the durable ledger (issue 12), the open session was a bare summary
//   and dedupe was bounded lists in the context. upgradeChatState() turns such a state into
//   today's shape, as well as it can be known, and returns the ids its lists held so the
//   processor can put them in the chat ledger: without them, a redelivery of a record taken in
//   before the upgrade would be counted again.
// - Before the unanswered limit (issue 30), a context had no unansweredMs: it takes the
//   configured one when read, so a fan waiting in such a chat stays in view from then on.
// - Before the lifecycle was a chart (issue 29), the state value was only `noSession` or
//   `inSession`. chartValueOf() derives today's value from the context, which holds all of it
//   but why the last session closed: such a chat is in `noSession` until its next session.
import type { StateValue } from 'xstate';
import type { ChatContext, ChatState, OpenSession } from './chat-context.js';
import type { SessionSummary } from './session-events.js';
import { keyId, messageId, paymentId, type Remembered } from './dedupe.js';
import { fanWaiting } from './session-figures.js';

interface LegacyContext {
  readonly accountId: string;
  readonly chatId: string;
  readonly idleMs: number;
  readonly chatKey: string;
  readonly seq: number;
  readonly sessionCount: number;
  readonly session: SessionSummary | null;
  readonly recentKeys?: readonly string[];
  readonly recentMessageIds?: readonly string[];
  readonly recentPaymentIds?: readonly string[];
  readonly unattributed?: readonly string[];
  readonly firstResponseMessageId?: string | null;
  readonly lastHumanMessageId?: string | null;
  readonly fanSpendCents: number | null;
  readonly presence: ChatContext['presence'];
  readonly presenceAt: number | null;
  readonly lastArrivalAt: number | null;
  readonly skippedCount: number;
  readonly ignoredCloseCount: number;
}

/** The state values of the two-state machine before issue 29. */
const BEFORE_CHART = new Set<unknown>(['noSession', 'inSession']);

/** The chart's state value for a stored state: as stored, or derived from the context for a value stored before the chart. */
export function chartValueOf(state: ChatState): StateValue {
  return BEFORE_CHART.has(state.value) ? valueFromContext(state.context) : state.value;
}

function valueFromContext(ctx: ChatContext): StateValue {
  if (ctx.session === null) return 'noSession';
  return { session: fanWaiting(ctx.session) ? 'awaiting' : 'answered' };
}

export function isLegacyState(state: ChatState): boolean {
  return (state.context as { lateMs?: number }).lateMs === undefined;
}

/** Stored before the unanswered limit (issue 30): its chats take the configured one when read. */
export function lacksUnansweredLimit(state: ChatState): boolean {
  return (state.context as { unansweredMs?: number }).unansweredMs === undefined;
}

export function withUnansweredLimit(state: ChatState, unansweredMs: number): ChatState {
  return { ...state, context: { ...state.context, unansweredMs } };
}

export function upgradeChatState(state: ChatState, lateMs: number, unansweredMs: number): { state: ChatState; remember: Remembered[] } {
  const old = state.context as unknown as LegacyContext;
  const s = old.session;
  const session: OpenSession | null = s
    ? {
        summary: { ...s, fanSpendCents: old.fanSpendCents },
        unanswered: s.awaiting && s.waitingSince !== null ? [s.waitingSince] : [],
        first: s.firstResponseAt !== null ? { at: s.firstResponseAt, messageId: old.firstResponseMessageId ?? '', chatterId: s.firstResponderId } : null,
        // The latest reply's time was not kept; its chatter was. Later payments still credit it.
        replies: s.lastHumanChatterId !== null || old.lastHumanMessageId ? [{ at: s.firstResponseAt ?? s.openedAt, messageId: old.lastHumanMessageId ?? '', chatterId: s.lastHumanChatterId }] : [],
        credits: [],
      }
    : null;
  const maxSeenAt = s ? s.lastActivityAt : null;
  const context: ChatContext = {
    accountId: old.accountId, chatId: old.chatId, idleMs: old.idleMs, lateMs, unansweredMs, chatKey: old.chatKey,
    seq: old.seq, sessionCount: old.sessionCount, session,
    maxSeenAt, watermark: maxSeenAt === null ? null : maxSeenAt - lateMs,
    pending: [], loose: [],
    fanSpendCents: old.fanSpendCents, fanSpendAt: old.fanSpendCents === null ? null : maxSeenAt,
    presence: old.presence, presenceAt: old.presenceAt, lastArrivalAt: old.lastArrivalAt,
    skippedCount: old.skippedCount, ignoredCloseCount: old.ignoredCloseCount, lateCount: 0,
  };
  const unattributed = new Set(old.unattributed ?? []);
  // The old window kept the keys of messages and payments too; their `k:` entries are never
  // looked up now (those records are known by their ids, which the window also kept), only
  // other records' are. Kept all the same: which key was whose is not in the old state.
  const remember: Remembered[] = [
    ...(old.recentKeys ?? []).map((k) => ({ id: keyId(k), unattributed: false })),
    ...(old.recentMessageIds ?? []).map((m) => ({ id: messageId(m), unattributed: unattributed.has(m) })),
    ...(old.recentPaymentIds ?? []).map((p) => ({ id: paymentId(p), unattributed: false })),
  ];
  return { state: { value: valueFromContext(context), context }, remember };
}
