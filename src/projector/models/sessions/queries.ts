// Named queries over sessions. Each takes the read models and plain parameters (the caller's
// account scope is a store filter, from http/scope.ts accountFilter) and answers documents.
import type { Filter } from '../../../adapters/store/store.js';
import type { ReadModelCollections } from '../../read-model-set.js';
import type { SessionDoc } from './projection.js';

export interface SessionList {
  /** The accounts the caller may read (and asked for). */
  readonly inScope: Filter;
  readonly status?: 'open' | 'closed' | undefined;
  /** true: only sessions whose fan is waiting; false: only the others; undefined: both. */
  readonly waiting?: boolean | undefined;
  readonly limit: number;
}

function listFilter(l: SessionList): Filter {
  const filter: Filter = { ...l.inScope };
  if (l.status) filter.status = l.status;
  return filter;
}

/** The priority inbox: waiting fans by priority score (most urgent first), then the rest by last message. */
export async function inbox(rm: ReadModelCollections, l: SessionList): Promise<SessionDoc[]> {
  const base = listFilter(l);
  let docs = l.waiting === false ? [] : await rm.sessions.find({ ...base, priorityAt: { $ne: null } }, { sort: { priorityAt: 1, _id: 1 }, limit: l.limit });
  if (l.waiting !== true && docs.length < l.limit) {
    docs = docs.concat(await rm.sessions.find({ ...base, priorityAt: null }, { sort: { lastMessageAt: -1, _id: 1 }, limit: l.limit - docs.length }));
  }
  return docs;
}

/** Newest opened first. */
export async function recent(rm: ReadModelCollections, l: SessionList): Promise<SessionDoc[]> {
  const filter = listFilter(l);
  if (l.waiting === true) filter.priorityAt = { $ne: null };
  if (l.waiting === false) filter.priorityAt = null;
  return rm.sessions.find(filter, { sort: { openedAt: -1, _id: 1 }, limit: l.limit });
}

/** The latest `limit` sessions of these chats together, newest opened first: one query per chat (usually one), so each follows its chatKey index. */
export async function ofChats(rm: ReadModelCollections, chatKeys: readonly string[], limit: number): Promise<SessionDoc[]> {
  const perChat = await Promise.all(chatKeys.map((chatKey) => rm.sessions.find({ chatKey }, { sort: { openedAt: -1, _id: 1 }, limit })));
  return perChat.flat().sort((a, b) => b.openedAt - a.openedAt || a._id.localeCompare(b._id)).slice(0, limit);
}

/** One session, whatever its account (the caller checks it may see it). */
export async function byId(rm: ReadModelCollections, id: string): Promise<SessionDoc | null> {
  return rm.sessions.findOne({ _id: id });
}
