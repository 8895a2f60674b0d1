// The per-chat session machine: a pure XState v5 machine, driven with `transition()`.
// No timers and no clock: an idle session closes when a later record carries a time past
// its deadline, so live processing and replay take the same steps.
import { and, enqueueActions, setup } from 'xstate';
import type { ChatInput, ChatMessageInput } from './chat-input.js';
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
  /** Recent idempotency keys and message ids, bounded, for dedupe of redeliveries. */
  readonly recentKeys: readonly string[];
  readonly recentMessageIds: readonly string[];
  readonly skippedCount: number;
}

export const RECENT_LIMIT = 256;

type Emit = (e: SessionEvent) => void;

function remember(list: readonly string[], value: string): string[] {
  const next = list.length >= RECENT_LIMIT ? list.slice(list.length - RECENT_LIMIT + 1) : [...list];
  next.push(value);
  return next;
}

function envelope<T extends SessionEvent['type']>(ctx: ChatContext, seq: number, type: T, at: number, data: Extract<SessionEvent, { type: T }>['data']): Extract<SessionEvent, { type: T }> {
  return { id: `${ctx.chatKey}:${seq}`, type, seq, chatKey: ctx.chatKey, accountId: ctx.accountId, chatId: ctx.chatId, at, data } as Extract<SessionEvent, { type: T }>;
}

function isDuplicate(ctx: ChatContext, input: ChatInput): boolean {
  if (ctx.recentKeys.includes(input.dedupeKey)) return true;
  return input.type === 'chat.message' && ctx.recentMessageIds.includes(input.messageId);
}

function idleExpired(ctx: ChatContext, at: number): boolean {
  return ctx.session !== null && at > ctx.session.lastMessageAt + ctx.idleMs;
}

/** Closes the open session at its idle deadline. */
function closeSession(ctx: ChatContext, reason: 'idle' | 'forced', at: number, emit: Emit): ChatContext {
  const s = ctx.session;
  if (!s) return ctx;
  const closedAt = reason === 'idle' ? s.lastMessageAt + ctx.idleMs : Math.max(at, s.lastMessageAt);
  const closed: SessionSummary = { ...s, status: 'closed', closedAt, closeReason: reason };
  const seq = ctx.seq + 1;
  emit(envelope(ctx, seq, 'SessionClosed', closedAt, { session: closed }));
  return { ...ctx, seq, session: null };
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
    messageCount: 0,
    fanMessageCount: 0,
    replyCount: 0,
    awaiting: false,
    waitingSince: null,
    firstFanMessageAt: null,
    firstResponseAt: null,
    firstResponseSec: null,
  };
  const seq = ctx.seq + 1;
  emit(envelope(ctx, seq, 'SessionOpened', m.at, { session }));
  return { ...ctx, seq, sessionCount, session };
}

/** Applies a message to the open session (or records it outside any session) and emits it. */
function recordMessage(ctx: ChatContext, m: ChatMessageInput, emit: Emit): ChatContext {
  let session = ctx.session;
  if (session) {
    const s = session;
    const isFan = m.sender === 'fan';
    const isHuman = m.sender === 'human';
    const firstResponse = isHuman && s.firstResponseAt === null && s.firstFanMessageAt !== null && m.at >= s.firstFanMessageAt;
    session = {
      ...s,
      lastMessageAt: Math.max(s.lastMessageAt, m.at),
      messageCount: s.messageCount + 1,
      fanMessageCount: s.fanMessageCount + (isFan ? 1 : 0),
      replyCount: s.replyCount + (isHuman ? 1 : 0),
      // Awaiting starts at the first unanswered fan message; only a human reply clears it.
      awaiting: isFan ? true : isHuman ? false : s.awaiting,
      waitingSince: isFan ? s.waitingSince ?? m.at : isHuman ? null : s.waitingSince,
      firstFanMessageAt: isFan && s.firstFanMessageAt === null ? m.at : s.firstFanMessageAt,
      firstResponseAt: firstResponse ? m.at : s.firstResponseAt,
      firstResponseSec: firstResponse && s.firstFanMessageAt !== null ? Math.round((m.at - s.firstFanMessageAt) / 1000) : s.firstResponseSec,
    };
  }
  const seq = ctx.seq + 1;
  emit(envelope(ctx, seq, 'MessageRecorded', m.at, {
    messageId: m.messageId,
    sessionId: session?.sessionId ?? null,
    sender: m.sender,
    chatterId: m.chatterId,
    text: m.text,
    priceCents: m.priceCents,
    sentAt: m.at,
    session,
  }));
  return {
    ...ctx,
    seq,
    session,
    recentKeys: remember(ctx.recentKeys, m.dedupeKey),
    recentMessageIds: remember(ctx.recentMessageIds, m.messageId),
  };
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
    fanMessage: ({ event }) => event.type === 'chat.message' && event.sender === 'fan',
    idleExpired: ({ context, event }) => idleExpired(context, event.at),
  },
  actions: {
    noteSkipped: enqueueActions(({ context, enqueue }) => {
      enqueue.assign({ skippedCount: context.skippedCount + 1 });
    }),
    closeIdle: enqueueActions(({ context, event, enqueue }) => {
      enqueue.assign(closeSession(context, 'idle', event.at, (e) => enqueue.emit(e)));
    }),
    openAndRecord: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'chat.message') return;
      const emitted: SessionEvent[] = [];
      const opened = openSession(context, event, (e) => emitted.push(e));
      enqueue.assign(recordMessage(opened, event, (e) => emitted.push(e)));
      for (const e of emitted) enqueue.emit(e);
    }),
    record: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'chat.message') return;
      enqueue.assign(recordMessage(context, event, (e) => enqueue.emit(e)));
    }),
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
    skippedCount: 0,
  }),
  initial: 'noSession',
  states: {
    noSession: {
      on: {
        'chat.message': [
          { guard: 'duplicate' },
          { guard: 'fanMessage', target: 'inSession', actions: 'openAndRecord' },
          { actions: 'record' },
        ],
        'chat.skipped': { actions: 'noteSkipped' },
      },
    },
    inSession: {
      on: {
        'chat.message': [
          { guard: 'duplicate' },
          { guard: and(['idleExpired', 'fanMessage']), target: 'inSession', reenter: true, actions: ['closeIdle', 'openAndRecord'] },
          { guard: 'idleExpired', target: 'noSession', actions: ['closeIdle', 'record'] },
          { actions: 'record' },
        ],
        'chat.skipped': [
          { guard: 'idleExpired', target: 'noSession', actions: ['closeIdle', 'noteSkipped'] },
          { actions: 'noteSkipped' },
        ],
      },
    },
  },
});

export type SessionMachine = typeof sessionMachine;
