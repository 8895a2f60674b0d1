// Named queries over messages. Each takes the read models and plain parameters (the caller's
// account scope is a store filter, from http/scope.ts accountFilter) and answers documents.
import type { Filter } from '../../adapters/store/store.js';
import type { ReadModelCollections } from '../read-model-set.js';
import type { MessageDoc } from './projection.js';
import { qaFlags, type QaRule } from '../../domain/qa-rules.js';

/** The latest `limit` messages in scope (of one chatId, when given), oldest first as a conversation reads; tombstones left out. */
export async function latest(rm: ReadModelCollections, inScope: Filter, chatId: string | undefined, limit: number): Promise<MessageDoc[]> {
  const filter: Filter = { ...inScope, tombstone: false };
  if (chatId) filter.chatId = chatId;
  const docs = await rm.messages.find(filter, { sort: { sentAt: -1, _id: -1 }, limit });
  docs.reverse();
  return docs;
}

/** The latest `limit` messages of these chats together, oldest first: one query per chat (usually one), so each follows its chatKey index. */
export async function ofChats(rm: ReadModelCollections, chatKeys: readonly string[], limit: number): Promise<MessageDoc[]> {
  const perChat = await Promise.all(chatKeys.map((chatKey) => rm.messages.find({ chatKey, tombstone: false }, { sort: { sentAt: -1, _id: -1 }, limit })));
  const docs = perChat.flat().sort((a, b) => (b.sentAt ?? 0) - (a.sentAt ?? 0) || b._id.localeCompare(a._id)).slice(0, limit);
  docs.reverse();
  return docs;
}

/** The most a session's quality flags read: a session's messages rarely reach it. */
export const QA_MESSAGES = 500;

/** The quality rules that fired on a session's direct replies (domain/qa-rules.ts), oldest first, of its latest QA_MESSAGES messages. */
export async function qaFlagsOfSession(rm: ReadModelCollections, sessionId: string): Promise<{ messageId: string; sentAt: number; chatterId: string | null; rule: QaRule; match: string }[]> {
  const docs = await rm.messages.find({ sessionId, tombstone: false }, { sort: { sentAt: -1, _id: -1 }, limit: QA_MESSAGES });
  docs.reverse();
  return docs.flatMap((m) => (m.sender === 'human' && m.queueId === undefined && typeof m.text === 'string'
    ? [...qaFlags(m.text), ...(m.bannedPhrases ?? []).map((p) => ({ rule: 'banned-phrase' as const, match: p }))]
      .map((f) => ({ messageId: m.messageId, sentAt: m.sentAt ?? 0, chatterId: m.chatterId ?? null, ...f }))
    : []));
}
