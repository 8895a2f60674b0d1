// The catalogue of domain events the session machine emits onto `session-events`.
// Ids are deterministic (chat key + per-chat sequence), so re-running a record after a crash
// re-emits identical events and the projector recognises them.
import type { MessageSender } from './chat-input.js';

export interface SessionSummary {
  readonly sessionId: string;
  readonly status: 'open' | 'closed';
  readonly openedAt: number;
  readonly closedAt: number | null;
  readonly closeReason: 'idle' | 'forced' | null;
  readonly lastMessageAt: number;
  readonly messageCount: number;
  readonly fanMessageCount: number;
  readonly replyCount: number;
  /** The fan is waiting for a human reply since `waitingSince`. */
  readonly awaiting: boolean;
  readonly waitingSince: number | null;
  readonly firstFanMessageAt: number | null;
  readonly firstResponseAt: number | null;
  readonly firstResponseSec: number | null;
}

interface Envelope<T extends string, D> {
  /** `${chatKey}:${seq}`; unique and stable across re-runs. */
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
}>;

export type SessionClosed = Envelope<'SessionClosed', { readonly session: SessionSummary }>;

export type SessionEvent = SessionOpened | MessageRecorded | SessionClosed;
export type SessionEventType = SessionEvent['type'];
