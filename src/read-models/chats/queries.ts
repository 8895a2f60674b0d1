// Named queries over chats. Each takes the read models and plain parameters (the caller's
// account scope is a store filter, from http/scope.ts accountFilter) and answers documents.
import type { Filter, SortSpec } from '../../adapters/store/store.js';
import type { ReadModelCollections } from '../read-model-set.js';
import type { ChatDoc } from './projection.js';

/** Chats in scope, newest activity first. */
export async function list(rm: ReadModelCollections, inScope: Filter, limit: number): Promise<ChatDoc[]> {
  return rm.chats.find(inScope, { sort: { lastActivityAt: -1, _id: 1 }, limit });
}

export type FanOrder = 'spend' | 'recent';

/** The fan CRM: chats in scope (of one platform user, when given), highest lifetime spend first or most recent activity first. */
export async function fans(rm: ReadModelCollections, inScope: Filter, ofUserId: string | undefined, order: FanOrder, limit: number): Promise<ChatDoc[]> {
  const filter: Filter = { ...inScope };
  if (ofUserId) filter.chatId = ofUserId;
  const sort: SortSpec = order === 'recent' ? { lastActivityAt: -1, _id: 1 } : { lifetimeSpendCents: -1, lastActivityAt: -1, _id: 1 };
  return rm.chats.find(filter, { sort, limit });
}

/** Every chat in scope with this chat id (one fan with each of their accounts), newest activity first. */
export async function byChatId(rm: ReadModelCollections, inScope: Filter, chatId: string): Promise<ChatDoc[]> {
  return rm.chats.find({ ...inScope, chatId }, { sort: { lastActivityAt: -1, _id: 1 } });
}
