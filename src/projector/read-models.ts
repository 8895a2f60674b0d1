// Read-model documents. Each remembers the last per-chat event sequence it has applied, so a
// redelivered event changes nothing.
import type { Doc } from '../adapters/store/store.js';
import type { MessageSender } from '../../machines/chat-input.js';
import type { SessionSummary } from '../../machines/session-events.js';

export const SESSIONS = 'sessions';
export const MESSAGES = 'messages';

export interface SessionDoc extends Doc, SessionSummary {
  readonly accountId: string;
  readonly chatId: string;
  readonly chatKey: string;
  readonly lastSeq: number;
}

export interface MessageDoc extends Doc {
  readonly messageId: string;
  readonly accountId: string;
  readonly chatId: string;
  readonly chatKey: string;
  readonly sessionId: string | null;
  readonly sender: MessageSender;
  readonly chatterId: string | null;
  readonly text: string;
  readonly priceCents: number;
  readonly sentAt: number;
  readonly lastSeq: number;
}
