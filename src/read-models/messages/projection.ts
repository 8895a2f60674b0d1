// Messages: one document per message of an account, with its session (as attributed and
// moved) and its deletion; a deletion that overtakes its message leaves a tombstone.
import type { Doc } from '../../adapters/store/store.js';
import type { MessageSender } from '../../../machines/chat-input.js';
import type { SessionEvent } from '../../../machines/session-events.js';
import { MESSAGES } from '../names.js';
import type { DocumentProjection } from '../projection.js';

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
  /** As the platform said of a send: free or not, and the queue (mass message) it came from. */
  readonly isFree?: boolean;
  readonly queueId?: string;
  /** A human reply's banned phrases, by the account's list in force when it was received (absent: none). */
  readonly bannedPhrases?: readonly string[];
  readonly sentAt?: number;
  readonly deleted: boolean;
  readonly deletedAt: number | null;
  readonly tombstone: boolean;
  readonly lastSeq: number;
}

export const messageDocId = (accountId: string, messageId: string): string => `${accountId}:${messageId}`;

export function foldMessage(doc: MessageDoc | undefined, e: SessionEvent): MessageDoc | undefined {
  if (e.type === 'MessageDeleted') {
    // Deletions come from the account's own stream, so they may overtake their message.
    if (doc?.deleted) return undefined;
    if (doc) return { ...doc, deleted: true, deletedAt: e.data.deletedAt };
    return { _id: messageDocId(e.accountId, e.data.messageId), messageId: e.data.messageId, accountId: e.accountId, deleted: true, deletedAt: e.data.deletedAt, tombstone: true, lastSeq: 0 };
  }
  if (e.type === 'MessageMoved') {
    if (!doc || doc.lastSeq >= e.seq) return undefined;
    return { ...doc, sessionId: e.data.sessionId, lastSeq: e.seq };
  }
  if (e.type === 'MessageAttributed') {
    // Its MessageRecorded has a lower sequence in the same chat, so the document exists.
    if (!doc || doc.lastSeq >= e.seq) return undefined;
    // What the later copy added: the chatter it names, the send facts it brought.
    const d = e.data;
    return {
      ...doc,
      ...(d.chatterId !== null ? { chatterId: d.chatterId } : {}),
      ...(d.priceCents !== undefined ? { priceCents: d.priceCents } : {}),
      ...(d.isFree !== undefined ? { isFree: d.isFree } : {}),
      ...(d.queueId !== undefined ? { queueId: d.queueId } : {}),
      lastSeq: e.seq,
    };
  }
  if (e.type !== 'MessageRecorded') return undefined;
  if (doc && doc.lastSeq >= e.seq) return undefined;
  const d = e.data;
  return {
    _id: messageDocId(e.accountId, d.messageId),
    messageId: d.messageId,
    accountId: e.accountId,
    chatId: e.chatId,
    chatKey: e.chatKey,
    sessionId: d.sessionId,
    sender: d.sender,
    chatterId: d.chatterId,
    text: d.text,
    priceCents: d.priceCents,
    ...(d.isFree !== undefined ? { isFree: d.isFree } : {}),
    ...(d.queueId !== undefined ? { queueId: d.queueId } : {}),
    ...(d.bannedPhrases !== undefined ? { bannedPhrases: d.bannedPhrases } : {}),
    sentAt: d.sentAt,
    deleted: doc?.deleted ?? false,
    deletedAt: doc?.deletedAt ?? null,
    tombstone: false,
    lastSeq: e.seq,
  };
}

export const messages: DocumentProjection<MessageDoc> = {
  name: MESSAGES,
  canHandle: (e) => e.type === 'MessageRecorded' || e.type === 'MessageAttributed' || e.type === 'MessageMoved' || e.type === 'MessageDeleted',
  documentIds: (p) => {
    const e = p.event;
    if (e.type === 'MessageRecorded' || e.type === 'MessageAttributed' || e.type === 'MessageMoved' || e.type === 'MessageDeleted') return [messageDocId(e.accountId, e.data.messageId)];
    return [];
  },
  evolve: (doc, p) => foldMessage(doc, p.event),
  indexes: [
    // queries.ts ofChats: one chat's latest messages.
    { keys: { chatKey: 1, sentAt: 1 } },
    // queries.ts latest of one chatId (a fan, with every account in scope).
    { keys: { chatId: 1, sentAt: 1 } },
    // queries.ts latest across all chats; reports: messages sent at a window's partial ends.
    { keys: { sentAt: 1 } },
    // Intelligence reads a session's latest messages.
    { keys: { sessionId: 1, sentAt: 1 } },
    // read-models/clock-intervals/queries.ts: a chatter's replies since they clocked in (the automatic clock-out).
    { keys: { chatterId: 1, sentAt: 1 } },
  ],
};
