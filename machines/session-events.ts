// The catalogue of domain events the session machine emits onto `session-events`
// (documented in docs/events.md). Ids are deterministic (chat key + per-chat
// sequence), so re-running a record after a crash re-emits identical events and the
// projector recognises them.
import type { ChatMessageInput, ChatSignalInput, FanSignalKind, MessageSender, PaymentKind } from './chat-input.js';
import type { ModelCredit } from './credit-ledger.js';

export interface SessionSummary {
  readonly sessionId: string;
  readonly status: 'open' | 'closed';
  readonly openedAt: number;
  readonly closedAt: number | null;
  /** idle: nothing happened for the idle gap; unanswered: the fan's wait reached the unanswered limit; forced: an admin closed it. */
  readonly closeReason: 'idle' | 'unanswered' | 'forced' | null;
  readonly lastMessageAt: number;
  /** Last message or payment; the idle deadline counts from here. */
  readonly lastActivityAt: number;
  readonly messageCount: number;
  readonly fanMessageCount: number;
  readonly replyCount: number;
  /** The fan is waiting for a human reply since `waitingSince`. */
  readonly awaiting: boolean;
  readonly waitingSince: number | null;
  readonly firstFanMessageAt: number | null;
  readonly firstResponseAt: number | null;
  readonly firstResponseSec: number | null;
  /** Chatter of the first human reply (null when unattributed or not yet answered). */
  readonly firstResponderId: string | null;
  /** Chatter of the latest human message: who a payment now would be credited to. */
  readonly lastHumanChatterId: string | null;
  readonly revenueCents: number;
  readonly paymentCount: number;
  /** The fan's lifetime spend as the platform last reported it (latest record time wins). */
  readonly fanSpendCents: number | null;
  /**
   * While open: when it closes unless a record moves it (the idle gap after its last activity;
   * while the fan waits, the unanswered limit); null when closed or never. Readers show a
   * session past it as closed before the clock's tick closes it. Absent from older events.
   */
  readonly closesAt?: number | null;
  /**
   * How it closes at `closesAt` unless a record moves it, as the chart says where it rests:
   * unanswered while the fan waits, idle once answered; null with `closesAt`. Absent from
   * events older than it.
   */
  readonly closesAs?: 'idle' | 'unanswered' | null;
  /**
   * On an account with business hours, set by the processor (not the chart) from the schedule
   * in force when the record that caused the event was received (src/domain/session-business-time.ts):
   * the first response in seconds of open hours. Absent or null: no schedule, or not answered.
   */
  readonly firstResponseBusinessSec?: number | null;
  /**
   * Likewise, for a session not answered: the seconds of open hours its fan waited, until it
   * closed (its last activity, for a close without a time), or while open until `closesAt`,
   * the close readers will show. Absent or null: no schedule, answered, or open without a deadline.
   */
  readonly waitBusinessSec?: number | null;
}

interface Envelope<T extends string, D> {
  /** `${chatKey}:${seq}` (with `~<idTag>` in a later definitions generation); unique and stable across re-runs. */
  readonly id: string;
  readonly type: T;
  /** Per-chat sequence, starting at 1, without gaps. */
  readonly seq: number;
  readonly chatKey: string;
  readonly accountId: string;
  readonly chatId: string;
  /** Record time (epoch ms) of the input that caused the event. */
  readonly at: number;
  readonly data: D;
  /** The `inbound` record that caused it; set by the processor, not the machine. Re-running
   *  that record re-emits the same events with the same source. */
  readonly source?: EventSource;
}

export interface EventSource {
  readonly partition: number;
  readonly offset: number;
}

export type SessionOpened = Envelope<'SessionOpened', { readonly session: SessionSummary }>;

export type MessageRecorded = Envelope<'MessageRecorded', {
  readonly messageId: string;
  readonly sessionId: string | null;
  readonly sender: MessageSender;
  readonly chatterId: string | null;
  readonly text: string;
  readonly priceCents: number;
  readonly sentAt: number;
  /** The session after this message; null for an outbound message outside any session. */
  readonly session: SessionSummary | null;
  readonly fanSpendCents: number | null;
  /** Arrived later than the allowed lateness where its place was already settled: counted, outside any session. */
  readonly late?: boolean;
  /** As the platform said of a send (ChatMessageInput): whether it is free, and the queue it came from. */
  readonly isFree?: boolean;
  readonly queueId?: string;
  /** A human reply's banned phrases, by the account's list in force when it was received (absent: none). */
  readonly bannedPhrases?: readonly string[];
}>;

/**
 * A later copy of a message added what its first copy lacked: the chatter of a human message
 * first recorded without one (the connector's copy), the send facts of a send first recorded
 * without them (the webhook's copy), or both.
 */
export type MessageAttributed = Envelope<'MessageAttributed', {
  readonly messageId: string;
  /** The chatter named; null when the copy brought only the send facts (no attribution changes). */
  readonly chatterId: string | null;
  /** The open session holding the named reply; null when none does, or no chatter was named. */
  readonly sessionId: string | null;
  /** The open session with its responder and last-human chatter filled in when this message was either. */
  readonly session: SessionSummary | null;
  /** The send facts the copy brought (as MessageRecorded has them); absent when it brought none. */
  readonly priceCents?: number;
  readonly isFree?: boolean;
  readonly queueId?: string;
}>;

/** A message recorded outside any session belongs to one after all: a fan message stamped
 *  before it arrived after it, so the session it opened (or grew) takes the message in. */
export type MessageMoved = Envelope<'MessageMoved', {
  readonly messageId: string;
  readonly sessionId: string;
  readonly session: SessionSummary;
}>;

export type MessageDeleted = Envelope<'MessageDeleted', { readonly messageId: string; readonly deletedAt: number }>;

export type PaymentRecorded = Envelope<'PaymentRecorded', {
  readonly paymentId: string;
  readonly kind: PaymentKind;
  readonly grossCents: number;
  readonly netCents: number;
  readonly paidAt: number;
  /** Session and chatter credited: the open session and its last human sender, if any. */
  readonly sessionId: string | null;
  readonly chatterId: string | null;
  readonly session: SessionSummary | null;
  readonly fanSpendCents: number | null;
  readonly late?: boolean;
}>;

/** A payment's session or credit moved: a reply (or a fan message opening its session) that
 *  came before it in time arrived after it, or its reply's chatter was named later. Revenue
 *  totals do not change, only where they are credited. */
export type PaymentCredited = Envelope<'PaymentCredited', {
  readonly paymentId: string;
  readonly sessionId: string;
  readonly chatterId: string | null;
  readonly session: SessionSummary;
}>;

export type FanSignalRecorded = Envelope<'FanSignalRecorded', {
  readonly signal: FanSignalKind;
  readonly refId: string;
  readonly amountCents: number | null;
  readonly sessionId: string | null;
  readonly fanSpendCents: number | null;
  readonly late?: boolean;
  /** A PPV unlock's message, or why it names none (ChatSignalInput). */
  readonly ppv?: ChatSignalInput['ppv'];
}>;

/** A manager reassigned a payment's credit (chatterId null: undone, back to the model's own). Every model credits it so. */
export type PaymentReassigned = Envelope<'PaymentReassigned', {
  readonly paymentId: string;
  readonly chatterId: string | null;
  readonly reason: string;
  readonly requestedBy: string;
}>;

/** A payment's credit under the sender and converter models (credit-models.ts), each with the
 *  rule that gave it: when the payment is recorded, and again whenever a record that arrived
 *  later moves it. A late payment gets none (credited to nobody, as under the session model). */
export type PaymentAttributed = Envelope<'PaymentAttributed', {
  readonly paymentId: string;
  readonly sender: ModelCredit;
  readonly converter: ModelCredit;
}>;

export type AccountStatusChanged = Envelope<'AccountStatusChanged', { readonly event: string; readonly state: string | null }>;

/** A chatter clocked in on the account (its clock chat's event); the interval's id is this event's. */
export type ChatterClockedIn = Envelope<'ChatterClockedIn', { readonly chatterId: string; readonly requestedBy: string }>;

/** The chatter clocked out: the interval opened by the event `intervalId` (at `clockedInAt`) ends at this event's time. */
export type ChatterClockedOut = Envelope<'ChatterClockedOut', { readonly chatterId: string; readonly intervalId: string; readonly clockedInAt: number; readonly requestedBy: string; readonly automatic: boolean }>;

export type SessionClosed = Envelope<'SessionClosed', { readonly session: SessionSummary; readonly requestedBy: string | null }>;

/**
 * The open session's deadline passed by the clock (a tick's time), while the chart still keeps
 * it open for records that may yet arrive within the allowed lateness: readers already show it
 * closed at `closesAt` for `closesAs`, and read models may now hold it so (`swept`) instead of
 * correcting it on every read. Not a close: the session's next event, or its SessionClosed at
 * the same deadline, folds from the session as its other events left it.
 */
export type SessionLapsed = Envelope<'SessionLapsed', { readonly sessionId: string; readonly closesAt: number; readonly closesAs: 'idle' | 'unanswered' }>;

export type SessionEvent =
  | SessionOpened
  | MessageRecorded
  | MessageAttributed
  | MessageMoved
  | MessageDeleted
  | PaymentRecorded
  | PaymentCredited
  | FanSignalRecorded
  | AccountStatusChanged
  | PaymentReassigned
  | PaymentAttributed
  | ChatterClockedIn
  | ChatterClockedOut
  | SessionLapsed
  | SessionClosed;
export type SessionEventType = SessionEvent['type'];

export const SESSION_EVENT_TYPES: readonly SessionEventType[] = [
  'SessionOpened', 'MessageRecorded', 'MessageAttributed', 'MessageMoved', 'MessageDeleted', 'PaymentRecorded', 'PaymentCredited', 'FanSignalRecorded', 'AccountStatusChanged', 'PaymentReassigned', 'PaymentAttributed', 'ChatterClockedIn', 'ChatterClockedOut', 'SessionLapsed', 'SessionClosed',
];

/** Whether a session id is its chat's first (`<chatKey>:1`, with a definitions generation's `~<tag>` or not). */
export function isFirstSessionId(id: string): boolean {
  return /:1(~[a-z0-9]+)?$/.test(id);
}

/** The definitions generation's tag an id was made with (`~<tag>` at its end); undefined: the first generation's. */
export function idTagOf(id: string): string | undefined {
  return /~([a-z0-9]+)$/.exec(id)?.[1];
}

/** The session as it stands after the event, for events that carry one. */
export function sessionAfter(e: SessionEvent): SessionSummary | null {
  switch (e.type) {
    case 'SessionOpened':
    case 'SessionClosed':
    case 'MessageRecorded':
    case 'MessageAttributed':
    case 'MessageMoved':
    case 'PaymentRecorded':
    case 'PaymentCredited':
      return e.data.session;
    default:
      return null;
  }
}

/** What a send's MessageRecorded (or the MessageAttributed that brings them) carries of its pricing and queue: only what the platform said. */
export function sendFacts(m: Pick<ChatMessageInput, 'isFree' | 'queueId' | 'bannedPhrases'>): { readonly isFree?: boolean; readonly queueId?: string; readonly bannedPhrases?: readonly string[] } {
  return {
    ...(m.isFree !== undefined ? { isFree: m.isFree } : {}), ...(m.queueId !== undefined ? { queueId: m.queueId } : {}),
    ...(m.bannedPhrases !== undefined && m.bannedPhrases.length > 0 ? { bannedPhrases: m.bannedPhrases } : {}),
  };
}
