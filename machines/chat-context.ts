// What the session machine keeps per chat between inputs (stored with its state value), and
// the few record times the open session needs so its figures do not depend on arrival order.
import type { StateValue } from 'xstate';
import type { ChatMessageInput, ChatPaymentInput, TimedRecord } from './chat-input.js';
import type { SessionEvent, SessionSummary } from './session-events.js';
import type { CreditLedger } from './credit-ledger.js';

/** The unanswered limit when none is configured (UNANSWERED_CLOSE_SEC): a day. */
export const DEFAULT_UNANSWERED_MS = 86_400_000;

export interface ChatMachineInput {
  readonly accountId: string;
  readonly chatId: string;
  readonly idleMs: number;
  /** Allowed lateness: how far behind the latest record a record may arrive and still be placed exactly. Less than idleMs. */
  readonly lateMs: number;
  /**
   * How long a session whose fan awaits a human reply stays open after the first unanswered
   * message (at least the idle gap after its last activity); 0: until a reply or a forced close.
   * An unanswered fan is never closed as idle: the cases a manager most needs to see stay in view.
   */
  readonly unansweredMs: number;
  /** How far back the converter model looks for the last human message before a payment (credit-models.ts); a day when absent. */
  readonly lookbackMs?: number;
  /**
   * Set on chats of a definitions generation after the first (`g2`): appended to every event and
   * session id (`<chatKey>:<seq>~g2`), so a recompute under new definitions never reuses an id
   * the earlier generation gave other content. Absent: the ids as they always were.
   */
  readonly idTag?: string;
}

export interface Reply {
  readonly at: number;
  readonly messageId: string;
  readonly chatterId: string | null;
}

export interface Credit {
  readonly at: number;
  readonly paymentId: string;
  readonly chatterId: string | null;
}

/** The open session and the few record times its figures need to stay order-independent. */
export interface OpenSession {
  readonly summary: SessionSummary;
  /** Fan message times after the latest human reply, ascending (the first is `waitingSince`). */
  readonly unanswered: readonly number[];
  /**
   * Beside each of `unanswered`, when a wait that began with it reaches the unanswered limit:
   * kept once a fan message of the session came with one (ChatMessageInput.waitEndsAt, an
   * account with business hours); absent: every limit is wall-clock from its message.
   */
  readonly unansweredEnds?: readonly number[];
  /** The earliest human reply: the first response. */
  readonly first: Reply | null;
  /** Human replies ascending: the latest before the watermark and every one after it. */
  readonly replies: readonly Reply[];
  /** Payments at or after the watermark with their credit, so a late reply can move it. */
  readonly credits: readonly Credit[];
  /** The deadline a SessionLapsed announced as passed; absent: none yet (or one a record has moved since). */
  readonly lapsed?: number;
}

export interface ChatContext extends ChatMachineInput {
  readonly chatKey: string;
  /** Sequence of the last emitted event. */
  readonly seq: number;
  readonly sessionCount: number;
  readonly session: OpenSession | null;
  readonly maxSeenAt: number | null;
  /** Records older than this are settled; null before the first record. */
  readonly watermark: number | null;
  /** Fan messages after the open session's deadline, waiting for the watermark, in time order. */
  readonly pending: readonly TimedRecord[];
  /** Messages and payments recorded outside any session at or after the watermark: a session may still take them in. */
  readonly loose: readonly (ChatMessageInput | ChatPaymentInput)[];
  /** The fan's lifetime spend as the platform last reported it, by record time. */
  readonly fanSpendCents: number | null;
  readonly fanSpendAt: number | null;
  readonly presence: 'typing' | 'online' | 'offline' | null;
  readonly presenceAt: number | null;
  /** When the latest record of this chat arrived. A tick settles a chat only once its arrivals
   *  are idle too, so history ingested now is not cut up by ticks between its records. */
  readonly lastArrivalAt: number | null;
  readonly skippedCount: number;
  readonly ignoredCloseCount: number;
  readonly lateCount: number;
  /** What the sender and converter models read (credit-models.ts); null or absent: nothing yet (a state stored before them). */
  readonly ledger?: CreditLedger | null;
  /** A clock chat's (`_clock.<chatterId>`) open interval: since when, and the ClockedIn event's id; absent or null: clocked out. */
  readonly clockIn?: { readonly at: number; readonly eventId: string } | null;
}

/** What is persisted per chat: the chart's state value and context, nothing else. */
export interface ChatState {
  readonly value: StateValue;
  readonly context: ChatContext;
}

export type Emit = (e: SessionEvent) => void;

export function initialContext(input: ChatMachineInput): ChatContext {
  return {
    accountId: input.accountId,
    chatId: input.chatId,
    idleMs: input.idleMs,
    lateMs: input.lateMs,
    unansweredMs: input.unansweredMs,
    chatKey: `${input.accountId}:${input.chatId}`,
    seq: 0,
    sessionCount: 0,
    session: null,
    maxSeenAt: null,
    watermark: null,
    pending: [],
    loose: [],
    fanSpendCents: null,
    fanSpendAt: null,
    presence: null,
    presenceAt: null,
    lastArrivalAt: null,
    skippedCount: 0,
    ignoredCloseCount: 0,
    lateCount: 0,
    ...(input.lookbackMs !== undefined ? { lookbackMs: input.lookbackMs } : {}),
    ...(input.idTag !== undefined ? { idTag: input.idTag } : {}),
    ledger: null,
  };
}

/**
 * When the open session closes unless a record moves it: its last activity plus the idle gap;
 * while the fan awaits a reply, no sooner than the unanswered limit after the first unanswered
 * message (never, with no limit).
 */
export function deadlineOf(ctx: ChatContext, s: OpenSession): number {
  const idle = s.summary.lastActivityAt + ctx.idleMs;
  const waitingSince = s.unanswered[0];
  if (waitingSince === undefined) return idle;
  const limit = ctx.unansweredMs;
  return limit === 0 ? Number.POSITIVE_INFINITY : Math.max(idle, endsOf(s)?.[0] ?? waitingSince + limit);
}

type Waits = Pick<OpenSession, 'unanswered' | 'unansweredEnds'>;

/** The ends beside the waits, unless they are not one per wait (a state an older build rewrote without them): then none, and every limit is wall-clock. */
function endsOf(w: Waits): readonly number[] | undefined {
  return w.unansweredEnds !== undefined && w.unansweredEnds.length === w.unanswered.length ? w.unansweredEnds : undefined;
}

/**
 * The waits with a fan message at `at` added in time order, and its limit's end beside it once
 * any message of the session brought one (`end`; the wall-clock limit for those that did not).
 * Messages at the same instant are ordered by their ends, so the order they arrived in does not
 * decide which end a wait takes.
 */
export function addWait(ctx: ChatContext, w: Waits, at: number, end: number | undefined): Waits {
  const ends = endsOf(w);
  if (ends === undefined && end === undefined) {
    const unanswered = [...w.unanswered];
    let i = unanswered.length;
    while (i > 0 && (unanswered[i - 1] as number) > at) i--;
    unanswered.splice(i, 0, at);
    return { unanswered };
  }
  const wall = (t: number) => t + ctx.unansweredMs;
  const pairs = w.unanswered.map((t, i) => [t, ends?.[i] ?? wall(t)] as const);
  const item = [at, end ?? wall(at)] as const;
  let i = pairs.length;
  while (i > 0 && ((pairs[i - 1] as readonly [number, number])[0] > at || ((pairs[i - 1] as readonly [number, number])[0] === at && (pairs[i - 1] as readonly [number, number])[1] > item[1]))) i--;
  pairs.splice(i, 0, item);
  return { unanswered: pairs.map((p) => p[0]), unansweredEnds: pairs.map((p) => p[1]) };
}

/** The waits whose time and place pass `keep`, each with its end. */
export function keepWaits(w: Waits, keep: (t: number, i: number) => boolean): Waits {
  const idx: number[] = [];
  w.unanswered.forEach((t, i) => { if (keep(t, i)) idx.push(i); });
  const unanswered = idx.map((i) => w.unanswered[i] as number);
  const ends = endsOf(w);
  return ends === undefined ? { unanswered } : { unanswered, unansweredEnds: idx.map((i) => ends[i] as number) };
}

/** An event or session id as this chat's generation writes it (ChatMachineInput.idTag). */
export function tagged(ctx: Pick<ChatMachineInput, 'idTag'>, id: string): string {
  return ctx.idTag === undefined ? id : `${id}~${ctx.idTag}`;
}

/** Appends the next event of this chat: ids are the chat key and a per-chat sequence, so a re-run emits the same ids. */
export function emitNext<T extends SessionEvent['type']>(ctx: ChatContext, emit: Emit, type: T, at: number, data: Extract<SessionEvent, { type: T }>['data']): ChatContext {
  const seq = ctx.seq + 1;
  emit({ id: tagged(ctx, `${ctx.chatKey}:${seq}`), type, seq, chatKey: ctx.chatKey, accountId: ctx.accountId, chatId: ctx.chatId, at, data } as SessionEvent);
  return { ...ctx, seq };
}

/** emitNext() without the copy, for a caller that builds the next context itself: the emitted event's sequence. */
export function emitSeq<T extends SessionEvent['type']>(ctx: ChatContext, emit: Emit, type: T, at: number, data: Extract<SessionEvent, { type: T }>['data']): number {
  const seq = ctx.seq + 1;
  emit({ id: tagged(ctx, `${ctx.chatKey}:${seq}`), type, seq, chatKey: ctx.chatKey, accountId: ctx.accountId, chatId: ctx.chatId, at, data } as SessionEvent);
  return seq;
}
