// The per-chat session machine: a pure XState v5 machine, driven by its pure `transition` (see step.ts).
// No timers and no clock: an idle session closes when a later record (or a tick record)
// carries a time past its deadline, so live processing and replay take the same steps.
import { and, enqueueActions, not, raise, setup } from 'xstate';
import type {
  ChatAccountInput, ChatCloseInput, ChatInput, ChatMessageDeletedInput, ChatMessageInput, ChatPaymentInput, ChatSignalInput,
} from './chat-input.js';
import type { SessionEvent, SessionSummary } from './session-events.js';

export interface ChatMachineInput {
  readonly accountId: string;
  readonly chatId: string;
  readonly idleMs: number;
}

export interface ChatContext extends ChatMachineInput {
  readonly chatKey: string;
  /** Sequence of the last emitted event. */
  readonly seq: number;
  readonly sessionCount: number;
  readonly session: SessionSummary | null;
  /** Recent idempotency keys, message ids and payment ids, bounded, for dedupe of redeliveries. */
  readonly recentKeys: readonly string[];
  readonly recentMessageIds: readonly string[];
  readonly recentPaymentIds: readonly string[];
  /** The fan's lifetime spend, as last reported by the platform. */
  readonly fanSpendCents: number | null;
  readonly presence: 'typing' | 'online' | 'offline' | null;
  readonly presenceAt: number | null;
  /** When the latest record of this chat arrived. A tick closes a session only once both its
   *  record time and its arrival time are idle, so history ingested now is not cut up by
   *  ticks between its records. */
  readonly lastArrivalAt: number | null;
  readonly skippedCount: number;
  readonly ignoredCloseCount: number;
  /** Human messages recorded without a chatter (the platform's webhook does not name one);
   *  the connector's copy of such a message names the chatter later. Bounded. */
  readonly unattributed?: readonly string[];
  /** Which messages of the open session made its first response and its last human reply,
   *  so a late attribution can credit the right chatter. */
  readonly firstResponseMessageId?: string | null;
  readonly lastHumanMessageId?: string | null;
}

export const RECENT_LIMIT = 256;

type Emit = (e: SessionEvent) => void;
type Step = (ctx: ChatContext, emit: Emit) => ChatContext;

function remember(list: readonly string[], value: string): string[] {
  const next = list.length >= RECENT_LIMIT ? list.slice(list.length - RECENT_LIMIT + 1) : [...list];
  next.push(value);
  return next;
}

function emitNext<T extends SessionEvent['type']>(ctx: ChatContext, emit: Emit, type: T, at: number, data: Extract<SessionEvent, { type: T }>['data']): ChatContext {
  const seq = ctx.seq + 1;
  emit({ id: `${ctx.chatKey}:${seq}`, type, seq, chatKey: ctx.chatKey, accountId: ctx.accountId, chatId: ctx.chatId, at, data } as SessionEvent);
  return { ...ctx, seq };
}

function withSpend(ctx: ChatContext, spend: number | undefined): ChatContext {
  return spend === undefined ? ctx : { ...ctx, fanSpendCents: spend };
}

function isDuplicate(ctx: ChatContext, input: ChatInput): boolean {
  if (input.type === 'chat.tick' || input.type === 'chat.skipped' || input.type === 'chat.presence') return false;
  if (ctx.recentKeys.includes(input.dedupeKey)) return true;
  if (input.type === 'chat.message') return ctx.recentMessageIds.includes(input.messageId);
  if (input.type === 'chat.payment') return ctx.recentPaymentIds.includes(input.paymentId);
  return false;
}

/** The time after which a tick may close the open session. */
export function tickDeadline(ctx: ChatContext): number | null {
  if (!ctx.session) return null;
  return Math.max(ctx.session.lastActivityAt, ctx.lastArrivalAt ?? 0) + ctx.idleMs;
}

/** Records whose time is the platform's (or a tick's) can move the idle clock; skipped ones cannot. */
function idleExpired(ctx: ChatContext, input: ChatInput): boolean {
  if (input.type === 'chat.skipped' || input.type === 'chat.close') return false;
  if (input.type === 'chat.tick') {
    const deadline = tickDeadline(ctx);
    return deadline !== null && input.at > deadline;
  }
  return ctx.session !== null && input.at > ctx.session.lastActivityAt + ctx.idleMs;
}

function arrived(ctx: ChatContext, input: ChatInput): ChatContext {
  if (input.type === 'chat.tick' || input.receivedAt === undefined) return ctx;
  return { ...ctx, lastArrivalAt: Math.max(ctx.lastArrivalAt ?? 0, input.receivedAt) };
}

function closeSession(ctx: ChatContext, reason: 'idle' | 'forced', at: number, requestedBy: string | null, emit: Emit): ChatContext {
  const s = ctx.session;
  if (!s) return ctx;
  const closedAt = reason === 'idle' ? s.lastActivityAt + ctx.idleMs : Math.max(at, s.lastActivityAt);
  const closed: SessionSummary = { ...s, status: 'closed', closedAt, closeReason: reason };
  return { ...emitNext(ctx, emit, 'SessionClosed', closedAt, { session: closed, requestedBy }), session: null };
}

function openSession(ctx: ChatContext, m: ChatMessageInput, emit: Emit): ChatContext {
  const sessionCount = ctx.sessionCount + 1;
  const session: SessionSummary = {
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
  };
  return { ...emitNext(ctx, emit, 'SessionOpened', m.at, { session }), sessionCount, session, firstResponseMessageId: null, lastHumanMessageId: null };
}

function applyMessage(s: SessionSummary, m: ChatMessageInput): SessionSummary {
  const isFan = m.sender === 'fan';
  const isHuman = m.sender === 'human';
  const firstResponse = isHuman && s.firstResponseAt === null && s.firstFanMessageAt !== null && m.at >= s.firstFanMessageAt;
  return {
    ...s,
    lastMessageAt: Math.max(s.lastMessageAt, m.at),
    lastActivityAt: Math.max(s.lastActivityAt, m.at),
    messageCount: s.messageCount + 1,
    fanMessageCount: s.fanMessageCount + (isFan ? 1 : 0),
    replyCount: s.replyCount + (isHuman ? 1 : 0),
    // Awaiting starts at the first unanswered fan message; only a human reply clears it.
    awaiting: isFan ? true : isHuman ? false : s.awaiting,
    waitingSince: isFan ? s.waitingSince ?? m.at : isHuman ? null : s.waitingSince,
    firstFanMessageAt: isFan && s.firstFanMessageAt === null ? m.at : s.firstFanMessageAt,
    firstResponseAt: firstResponse ? m.at : s.firstResponseAt,
    firstResponseSec: firstResponse && s.firstFanMessageAt !== null ? Math.round((m.at - s.firstFanMessageAt) / 1000) : s.firstResponseSec,
    firstResponderId: firstResponse ? m.chatterId : s.firstResponderId,
    lastHumanChatterId: isHuman ? m.chatterId : s.lastHumanChatterId,
  };
}

const recordMessage = (m: ChatMessageInput): Step => (ctx, emit) => {
  const base = withSpend(ctx, m.fanSpendCents);
  const session = base.session ? applyMessage(base.session, m) : null;
  const firstResponse = session !== null && base.session?.firstResponseAt === null && session.firstResponseAt !== null;
  const isHuman = m.sender === 'human';
  const next = emitNext({ ...base, session }, emit, 'MessageRecorded', m.at, {
    messageId: m.messageId,
    sessionId: session?.sessionId ?? null,
    sender: m.sender,
    chatterId: m.chatterId,
    text: m.text,
    priceCents: m.priceCents,
    sentAt: m.at,
    session,
    fanSpendCents: base.fanSpendCents,
  });
  return {
    ...next,
    recentKeys: remember(ctx.recentKeys, m.dedupeKey),
    recentMessageIds: remember(ctx.recentMessageIds, m.messageId),
    unattributed: isHuman && m.chatterId === null ? remember(ctx.unattributed ?? [], m.messageId) : ctx.unattributed ?? [],
    firstResponseMessageId: firstResponse ? m.messageId : ctx.firstResponseMessageId ?? null,
    lastHumanMessageId: isHuman && session !== null ? m.messageId : ctx.lastHumanMessageId ?? null,
  };
};

/** The connector names the chatter of a message the webhook already recorded anonymously. */
function upgradesAttribution(ctx: ChatContext, input: ChatInput): boolean {
  return input.type === 'chat.message' && input.chatterId !== null && (ctx.unattributed ?? []).includes(input.messageId);
}

const attributeMessage = (m: ChatMessageInput): Step => (ctx, emit) => {
  const chatterId = m.chatterId;
  if (chatterId === null) return ctx;
  const s = ctx.session;
  const session: SessionSummary | null = s
    ? {
        ...s,
        firstResponderId: ctx.firstResponseMessageId === m.messageId ? chatterId : s.firstResponderId,
        lastHumanChatterId: ctx.lastHumanMessageId === m.messageId ? chatterId : s.lastHumanChatterId,
      }
    : null;
  const next = emitNext({ ...ctx, session }, emit, 'MessageAttributed', m.at, {
    messageId: m.messageId, chatterId, sessionId: session?.sessionId ?? null, session,
  });
  return {
    ...next,
    recentKeys: remember(ctx.recentKeys, m.dedupeKey),
    unattributed: (ctx.unattributed ?? []).filter((id) => id !== m.messageId),
  };
};

const recordPayment = (p: ChatPaymentInput): Step => (ctx, emit) => {
  const base = withSpend(ctx, p.fanSpendCents);
  const s = base.session;
  const session: SessionSummary | null = s
    ? { ...s, revenueCents: s.revenueCents + p.grossCents, paymentCount: s.paymentCount + 1, lastActivityAt: Math.max(s.lastActivityAt, p.at) }
    : null;
  const next = emitNext({ ...base, session }, emit, 'PaymentRecorded', p.at, {
    paymentId: p.paymentId,
    kind: p.kind,
    grossCents: p.grossCents,
    netCents: p.netCents,
    paidAt: p.at,
    sessionId: session?.sessionId ?? null,
    // Credit goes to whoever sent the last human message of this session before the payment.
    chatterId: session?.lastHumanChatterId ?? null,
    session,
    fanSpendCents: base.fanSpendCents,
  });
  return { ...next, recentKeys: remember(ctx.recentKeys, p.dedupeKey), recentPaymentIds: remember(ctx.recentPaymentIds, p.paymentId) };
};

const recordSignal = (sig: ChatSignalInput): Step => (ctx, emit) => {
  const base = withSpend(ctx, sig.fanSpendCents);
  const next = emitNext(base, emit, 'FanSignalRecorded', sig.at, {
    signal: sig.signal, refId: sig.refId, amountCents: sig.amountCents, sessionId: base.session?.sessionId ?? null, fanSpendCents: base.fanSpendCents,
  });
  return { ...next, recentKeys: remember(ctx.recentKeys, sig.dedupeKey) };
};

const recordDeletion = (d: ChatMessageDeletedInput): Step => (ctx, emit) => ({
  ...emitNext(ctx, emit, 'MessageDeleted', d.at, { messageId: d.messageId, deletedAt: d.at }),
  recentKeys: remember(ctx.recentKeys, d.dedupeKey),
});

const recordAccount = (a: ChatAccountInput): Step => (ctx, emit) => ({
  ...emitNext(ctx, emit, 'AccountStatusChanged', a.at, { event: a.event, state: a.state }),
  recentKeys: remember(ctx.recentKeys, a.dedupeKey),
});

/** Runs a pure step inside an XState action, emitting what it emits. */
function stepAction(make: (ctx: ChatContext, event: ChatInput) => Step | undefined) {
  return enqueueActions<ChatContext, ChatInput, undefined, ChatInput, never, never, never, never, SessionEvent>(({ context, event, enqueue }) => {
    const step = make(context, event);
    if (!step) return;
    const emitted: SessionEvent[] = [];
    enqueue.assign(arrived(step(context, (e) => emitted.push(e)), event));
    for (const e of emitted) enqueue.emit(e);
  });
}

function closeMatches(ctx: ChatContext, c: ChatCloseInput): boolean {
  return ctx.session !== null && (c.sessionId === null || c.sessionId === ctx.session.sessionId);
}

export const sessionMachine = setup({
  types: {
    context: {} as ChatContext,
    events: {} as ChatInput,
    input: {} as ChatMachineInput,
    emitted: {} as SessionEvent,
  },
  guards: {
    duplicate: ({ context, event }) => isDuplicate(context, event),
    upgradesAttribution: ({ context, event }) => upgradesAttribution(context, event),
    fanMessage: ({ event }) => event.type === 'chat.message' && event.sender === 'fan',
    idleExpired: ({ context, event }) => idleExpired(context, event),
    closeMatches: ({ context, event }) => event.type === 'chat.close' && closeMatches(context, event),
  },
  actions: {
    closeIdle: stepAction((_ctx, e) => (ctx, emit) => closeSession(ctx, 'idle', e.at, null, emit)),
    closeForced: stepAction((_ctx, e) => (e.type === 'chat.close' ? (ctx, emit) => closeSession(ctx, 'forced', e.at, e.requestedBy, emit) : undefined)),
    attribute: stepAction((_ctx, e) => (e.type === 'chat.message' ? attributeMessage(e) : undefined)),
    openAndRecord: stepAction((_ctx, e) => (e.type === 'chat.message' ? (ctx, emit) => recordMessage(e)(openSession(ctx, e, emit), emit) : undefined)),
    record: stepAction((_ctx, e) => {
      switch (e.type) {
        case 'chat.message': return recordMessage(e);
        case 'chat.payment': return recordPayment(e);
        case 'chat.signal': return recordSignal(e);
        case 'chat.messageDeleted': return recordDeletion(e);
        case 'chat.account': return recordAccount(e);
        default: return undefined;
      }
    }),
    notePresence: enqueueActions(({ context, event, enqueue }) => {
      if (event.type === 'chat.presence') enqueue.assign({ presence: event.presence, presenceAt: event.at, lastArrivalAt: Math.max(context.lastArrivalAt ?? 0, event.receivedAt ?? 0) || null });
    }),
    noteSkipped: enqueueActions(({ context, enqueue }) => {
      enqueue.assign({ skippedCount: context.skippedCount + 1 });
    }),
    noteIgnoredClose: enqueueActions(({ context, enqueue }) => {
      enqueue.assign({ ignoredCloseCount: context.ignoredCloseCount + 1 });
    }),
    // After an idle close, the same input is handled again from `noSession`.
    again: raise(({ event }) => event),
  },
}).createMachine({
  id: 'chat',
  context: ({ input }) => ({
    ...input,
    chatKey: `${input.accountId}:${input.chatId}`,
    seq: 0,
    sessionCount: 0,
    session: null,
    recentKeys: [],
    recentMessageIds: [],
    recentPaymentIds: [],
    fanSpendCents: null,
    presence: null,
    presenceAt: null,
    lastArrivalAt: null,
    skippedCount: 0,
    ignoredCloseCount: 0,
  }),
  initial: 'noSession',
  states: {
    noSession: {
      on: {
        'chat.message': [
          { guard: 'upgradesAttribution', actions: 'attribute' },
          { guard: 'duplicate' },
          { guard: 'fanMessage', target: 'inSession', actions: 'openAndRecord' },
          { actions: 'record' },
        ],
        'chat.payment': [{ guard: 'duplicate' }, { actions: 'record' }],
        'chat.signal': [{ guard: 'duplicate' }, { actions: 'record' }],
        'chat.messageDeleted': [{ guard: 'duplicate' }, { actions: 'record' }],
        'chat.account': [{ guard: 'duplicate' }, { actions: 'record' }],
        'chat.presence': { actions: 'notePresence' },
        'chat.close': { actions: 'noteIgnoredClose' },
        'chat.skipped': { actions: 'noteSkipped' },
      },
    },
    inSession: {
      on: {
        'chat.message': [
          { guard: 'upgradesAttribution', actions: 'attribute' },
          { guard: and([not('duplicate'), 'idleExpired']), target: 'noSession', actions: ['closeIdle', 'again'] },
          { guard: 'duplicate' },
          { actions: 'record' },
        ],
        'chat.payment': [
          { guard: and([not('duplicate'), 'idleExpired']), target: 'noSession', actions: ['closeIdle', 'again'] },
          { guard: 'duplicate' },
          { actions: 'record' },
        ],
        'chat.signal': [
          { guard: and([not('duplicate'), 'idleExpired']), target: 'noSession', actions: ['closeIdle', 'again'] },
          { guard: 'duplicate' },
          { actions: 'record' },
        ],
        'chat.messageDeleted': [{ guard: 'duplicate' }, { actions: 'record' }],
        'chat.account': [{ guard: 'duplicate' }, { actions: 'record' }],
        'chat.presence': [
          { guard: 'idleExpired', target: 'noSession', actions: ['closeIdle', 'notePresence'] },
          { actions: 'notePresence' },
        ],
        'chat.tick': { guard: 'idleExpired', target: 'noSession', actions: 'closeIdle' },
        'chat.close': [
          { guard: 'closeMatches', target: 'noSession', actions: 'closeForced' },
          { actions: 'noteIgnoredClose' },
        ],
        'chat.skipped': { actions: 'noteSkipped' },
      },
    },
  },
});

export type SessionMachine = typeof sessionMachine;
