// Chats: one document per chat (one fan with one account), for the chat list and the fan CRM.
import type { Doc } from '../../adapters/store/store.js';
import type { MessageSender } from '../../../machines/chat-input.js';
import { sessionAfter, type SessionEvent } from '../../../machines/session-events.js';
import { isLate, isOwnChat, reportedSpend } from '../events.js';
import { CHATS } from '../names.js';
import type { DocumentProjection } from '../projection.js';

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

function emptyChat(e: SessionEvent): ChatDoc {
  return {
    _id: e.chatKey, accountId: e.accountId, chatId: e.chatId, chatKey: e.chatKey, firstSeenAt: e.at, lastActivityAt: e.at,
    lastMessageAt: null, lastMessageId: null, lastMessageText: null, lastSender: null, messageCount: 0, fanMessageCount: 0, sessionCount: 0,
    openSessionId: null, awaiting: false, waitingSince: null, paidCents: 0, paymentCount: 0, lastPaymentAt: null,
    fanSpendCents: null, lifetimeSpendCents: null, lateRecords: 0, lastSeq: 0,
  };
}

export function lifetimeSpend(fanSpendCents: number | null, paidCents: number): number | null {
  if (fanSpendCents === null && paidCents === 0) return null;
  return Math.max(fanSpendCents ?? 0, paidCents);
}

export function foldChat(doc: ChatDoc | undefined, e: SessionEvent): ChatDoc | undefined {
  if (isOwnChat(e.chatId)) return undefined;
  if (doc && doc.lastSeq >= e.seq) return undefined;
  const c = doc ?? emptyChat(e);
  const session = sessionAfter(e);
  const open = session !== null && session.status === 'open';
  let { sessionCount, messageCount, fanMessageCount, lastMessageAt, lastMessageText, lastSender, paidCents, paymentCount, lastPaymentAt } = c;
  let lastMessageId = c.lastMessageId ?? null;
  switch (e.type) {
    case 'SessionOpened':
      sessionCount++;
      break;
    case 'MessageRecorded': {
      messageCount++;
      if (e.data.sender === 'fan') fanMessageCount++;
      const newest = lastMessageAt === null || e.data.sentAt > lastMessageAt || (e.data.sentAt === lastMessageAt && e.data.messageId > (lastMessageId ?? ''));
      if (newest) {
        lastMessageAt = e.data.sentAt;
        lastMessageId = e.data.messageId;
        lastMessageText = e.data.text;
        lastSender = e.data.sender;
      }
      break;
    }
    case 'PaymentRecorded':
      paidCents += e.data.grossCents;
      paymentCount++;
      lastPaymentAt = Math.max(lastPaymentAt ?? 0, e.data.paidAt);
      break;
    default:
      break;
  }
  const fanSpendCents = reportedSpend(e) ?? c.fanSpendCents;
  // Every field written out: a copy by spread with overrides costs V8 about 4 µs on a document
  // this size, most of a replay's chat fold.
  return {
    _id: c._id, accountId: c.accountId, chatId: c.chatId, chatKey: c.chatKey,
    // Times are minima and maxima over the events' own times, so arrival order does not matter;
    // a close's time is the idle deadline, not activity.
    firstSeenAt: Math.min(c.firstSeenAt, e.at),
    lastActivityAt: e.type === 'SessionClosed' ? c.lastActivityAt : Math.max(c.lastActivityAt, e.at),
    lastMessageAt, lastMessageId, lastMessageText, lastSender, messageCount, fanMessageCount, sessionCount,
    openSessionId: session ? (open ? session.sessionId : null) : c.openSessionId,
    awaiting: session ? open && session.awaiting : c.awaiting,
    waitingSince: session ? (open ? session.waitingSince : null) : c.waitingSince,
    paidCents, paymentCount, lastPaymentAt, fanSpendCents,
    lifetimeSpendCents: lifetimeSpend(fanSpendCents, paidCents),
    lateRecords: (c.lateRecords ?? 0) + (isLate(e) ? 1 : 0),
    lastSeq: e.seq,
  };
}

export const chats: DocumentProjection<ChatDoc> = {
  name: CHATS,
  canHandle: (e) => !isOwnChat(e.chatId),
  documentIds: (p) => [p.event.chatKey],
  evolve: (doc, p) => foldChat(doc, p.event),
  indexes: [
    // queries.ts list (newest activity first) and fans sorted by recent activity.
    { keys: { lastActivityAt: 1 } },
    // queries.ts fans sorted by spend.
    { keys: { lifetimeSpendCents: 1, lastActivityAt: 1 } },
    // queries.ts byChatId and fans of one platform user.
    { keys: { chatId: 1 } },
  ],
};
