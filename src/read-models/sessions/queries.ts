// Named queries over sessions. Each takes the read models and plain parameters (the caller's
// account scope is a store filter, from http/scope.ts accountFilter) and answers documents.
import type { Filter } from '../../adapters/store/store.js';
import type { ReadModelCollections } from '../read-model-set.js';
import type { SessionDoc } from './projection.js';
import { notPastDeadline, pastDeadlineFilter } from '../../domain/session-deadline.js';

export interface SessionList {
  /** The accounts the caller may read (and asked for). */
  readonly inScope: Filter;
  readonly status?: 'open' | 'closed' | undefined;
  /** true: only sessions whose fan is waiting; false: only the others; undefined: both. */
  readonly waiting?: boolean | undefined;
  readonly limit: number;
  /** The clock: a session past its deadline (closesAt) counts as closed (domain/session-deadline.ts). */
  readonly now: number;
}

function listFilter(l: SessionList): Filter {
  const filter: Filter = { ...l.inScope };
  if (l.status === 'open') Object.assign(filter, { status: 'open' }, notPastDeadline(l.now));
  if (l.status === 'closed') filter.$or = [{ status: 'closed' }, pastDeadlineFilter(l.now)];
  return filter;
}

const byLastMessage = (a: SessionDoc, b: SessionDoc): number => b.lastMessageAt - a.lastMessageAt || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0);

/**
 * The priority inbox: waiting fans by priority score (most urgent first), then the rest by last
 * message. A fan's session past its unanswered limit by the clock is among the rest: closed,
 * as the tick will close it.
 */
export async function inbox(rm: ReadModelCollections, l: SessionList): Promise<SessionDoc[]> {
  const base = listFilter(l);
  let docs = l.waiting === false ? [] : await rm.sessions.find({ ...base, priorityAt: { $ne: null }, ...notPastDeadline(l.now) }, { sort: { priorityAt: 1, _id: 1 }, limit: l.limit });
  if (l.waiting !== true && docs.length < l.limit) {
    const left = l.limit - docs.length;
    // Two reads, each along an index (the past-deadline part of the waiting ones is small).
    const [rest, lapsed] = await Promise.all([
      rm.sessions.find({ ...base, priorityAt: null }, { sort: { lastMessageAt: -1, _id: 1 }, limit: left }),
      l.status === 'open' ? [] : rm.sessions.find({ ...base, priorityAt: { $ne: null }, closesAt: { $lte: l.now } }, { sort: { lastMessageAt: -1, _id: 1 }, limit: left }),
    ]);
    docs = docs.concat(lapsed.length === 0 ? rest : [...rest, ...lapsed].sort(byLastMessage).slice(0, left));
  }
  return docs;
}

/** Newest opened first. */
export async function recent(rm: ReadModelCollections, l: SessionList): Promise<SessionDoc[]> {
  const filter = listFilter(l);
  if (l.waiting === true) Object.assign(filter, { priorityAt: { $ne: null } }, notPastDeadline(l.now));
  // Not waiting: no fan waits, or the wait ended at the deadline (swept by the projector or not yet).
  if (l.waiting === false) filter.$and = [{ $or: [{ priorityAt: null }, { closesAt: { $lte: l.now } }] }];
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
