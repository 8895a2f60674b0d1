// Read-model documents. Each remembers the last per-chat event sequence it has applied, so a
// redelivered event changes nothing.
import type { Doc } from '../adapters/store/store.js';
import type { MessageSender, PaymentKind } from '../../machines/chat-input.js';
import type { SessionSummary } from '../../machines/session-events.js';

export const SESSIONS = 'sessions';
export const MESSAGES = 'messages';
export const PAYMENTS = 'payments';
export const READ_MODELS = [SESSIONS, MESSAGES, PAYMENTS] as const;
export type ReadModel = (typeof READ_MODELS)[number];

export interface SessionDoc extends Doc, SessionSummary {
  readonly accountId: string;
  readonly chatId: string;
  readonly chatKey: string;
  readonly lastSeq: number;
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
  readonly lastSeq: number;
}
