// Read-model documents. Each remembers the last per-chat event sequence it has applied, so a
// redelivered event changes nothing, and carries a revision (`_rev`) that every write is
// conditional on, so a projector that lost its partition cannot put back an older document.
import type { Doc } from '../adapters/store/store.js';
import type { MessageSender, PaymentKind } from '../../machines/chat-input.js';
import type { SessionSummary } from '../../machines/session-events.js';

export const SESSIONS = 'sessions';
export const MESSAGES = 'messages';
export const PAYMENTS = 'payments';
export const CHATS = 'chats';
export const ACCOUNT_STATS = 'account_stats';
export const REPORT_BUCKETS = 'report_buckets' as const;
/** Read models folded document by document from events. */
export const READ_MODELS = [SESSIONS, MESSAGES, PAYMENTS, CHATS, ACCOUNT_STATS] as const;
export type ReadModel = (typeof READ_MODELS)[number];
/** Every versioned read-model collection: the folded ones and the report buckets derived from their changes. */
export const ALL_READ_MODELS = [...READ_MODELS, REPORT_BUCKETS] as const;
export type ReadModelName = (typeof ALL_READ_MODELS)[number];

export interface SessionDoc extends Doc, SessionSummary {
  readonly accountId: string;
  readonly chatId: string;
  readonly chatKey: string;
  /** The fan's lifetime spend as the platform last reported it (null: never reported). */
  readonly fanSpendCents: number | null;
  /** Sort key of the priority inbox while awaiting (see priority.ts); null otherwise. */
  readonly priorityAt: number | null;
  readonly lastSeq: number;
}

/** One chat: one fan with one account. The fan CRM and the chat list read it. */
export interface ChatDoc extends Doc {
  readonly accountId: string;
  readonly chatId: string;
  readonly chatKey: string;
  readonly firstSeenAt: number;
  readonly lastActivityAt: number;
  readonly lastMessageAt: number | null;
  /** Breaks ties between messages of the same millisecond, so the last message does not depend on arrival order. */
  readonly lastMessageId?: string | null;
  readonly lastMessageText: string | null;
  readonly lastSender: MessageSender | null;
  readonly messageCount: number;
  readonly fanMessageCount: number;
  readonly sessionCount: number;
  readonly openSessionId: string | null;
  readonly awaiting: boolean;
  readonly waitingSince: number | null;
  /** Sum of the fan's payments convops recorded (transactions only). */
  readonly paidCents: number;
  readonly paymentCount: number;
  readonly lastPaymentAt: number | null;
  readonly fanSpendCents: number | null;
  /** The larger of the platform's lifetime figure and what convops recorded; null when neither is known. */
  readonly lifetimeSpendCents: number | null;
  /** Records that arrived later than the allowed lateness (counted, outside any session). */
  readonly lateRecords?: number;
  readonly lastSeq: number;
}

/** Per-account totals, one document per account and partition: each has a single writer (the
 *  partition's owner), so projectors in several processes never race on an account. Events
 *  of many chats feed it, so instead of a chat sequence it remembers the last `inbound` offset
 *  it applied and which events of that record it has seen: an event appended twice (a
 *  processor re-running a record after a crash) counts once. Readers sum an account's rows. */
export interface AccountStatsDoc extends Doc, AccountCounters {
  readonly partition: number;
  readonly appliedOffset: number;
  readonly appliedIds: readonly string[];
  /** Time of the status event, to pick the newest across an account's rows. */
  readonly lastStatusAt: number | null;
}

/** What an account's rows count; the totals readers see are these, added up. */
export interface AccountCounters {
  readonly accountId: string;
  readonly chats: number;
  readonly sessionsOpened: number;
  readonly sessionsClosed: number;
  readonly messages: number;
  readonly fanMessages: number;
  readonly revenueCents: number;
  readonly paymentCount: number;
  /** Records that arrived later than the allowed lateness (counted, outside any session). */
  readonly lateRecords?: number;
  readonly lastActivityAt: number | null;
  readonly lastStatusEvent: string | null;
  readonly lastStatusState: string | null;
}

/** `_id` is `${accountId}:${messageId}`: the platform's deletion notice names only those two. */
export interface MessageDoc extends Doc {
  readonly messageId: string;
  readonly accountId: string;
  /** Absent on a tombstone: a deletion that arrived before its message. */
  readonly chatId?: string;
  readonly chatKey?: string;
  readonly sessionId?: string | null;
  readonly sender?: MessageSender;
  readonly chatterId?: string | null;
  readonly text?: string;
  readonly priceCents?: number;
  readonly sentAt?: number;
  readonly deleted: boolean;
  readonly deletedAt: number | null;
  readonly tombstone: boolean;
  readonly lastSeq: number;
}

export interface PaymentDoc extends Doc {
  readonly paymentId: string;
  readonly accountId: string;
  readonly chatId: string;
  readonly chatKey: string;
  readonly kind: PaymentKind;
  readonly grossCents: number;
  readonly netCents: number;
  readonly paidAt: number;
  readonly sessionId: string | null;
  readonly chatterId: string | null;
  /** Arrived later than the allowed lateness: counted as revenue, credited to nobody. */
  readonly late?: boolean;
  readonly lastSeq: number;
}
