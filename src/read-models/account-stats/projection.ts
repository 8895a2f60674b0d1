// Account totals: one document per account and partition, counted from every chat's events.
import { isFirstSessionId } from '../../../machines/session-events.js';
import type { Doc } from '../../adapters/store/store.js';
import { isLate } from '../events.js';
import { ACCOUNT_STATS } from '../names.js';
import type { MessageDoc } from '../messages/projection.js';
import type { PaymentDoc } from '../payments/projection.js';
import { sourceOf, type DocChange, type DocumentProjection, type Positioned } from '../projection.js';
import type { SessionDoc } from '../sessions/projection.js';

/** Per-account totals, one document per account and partition: each has a single writer (the
 *  partition's owner), so projectors in several processes never race on an account. They add
 *  what the event changed in the sessions, messages and payments documents, not the event
 *  itself, as the report buckets do: a close re-emitted under another identity (a round
 *  stepped from a stale state) changes no document, so it counts nothing. Like the buckets,
 *  a row is written before the documents it is derived from and remembers the events it took
 *  (the last source offset and the ids at it): on MongoDB a write that fails half way keeps
 *  what landed, and the retry, which finds the documents unchanged, must not add them again.
 *  Readers sum an account's rows. */
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

export const accountStatsDocId = (accountId: string, partition: number): string => `${accountId}#${partition}`;

const isSession = (c: DocChange): c is DocChange<SessionDoc> => c.model === 'sessions';
/** Totals count a close the log made: a session held closed at its deadline (`swept`, by its SessionLapsed) counts open until then. */
const closedInLog = (s: SessionDoc): boolean => s.status === 'closed' && s.swept !== true;
const isMessage = (c: DocChange): c is DocChange<MessageDoc> => c.model === 'messages';
const isPayment = (c: DocChange): c is DocChange<PaymentDoc> => c.model === 'payments';
/** A message counts once it has been recorded (a tombstone is a deletion that overtook it). */
const recorded = (m: MessageDoc | undefined): boolean => m !== undefined && m.sentAt !== undefined && !m.tombstone;

/**
 * The account's row after the event, from what the event changed (`changes`: the documents of
 * the read models folded before this one); undefined when it changes no total.
 */
export function foldAccountStats(doc: AccountStatsDoc | undefined, p: Positioned, changes: readonly DocChange[]): AccountStatsDoc | undefined {
  const e = p.event;
  const { partition, offset } = sourceOf(p);
  if (doc && (offset < doc.appliedOffset || (offset === doc.appliedOffset && doc.appliedIds.includes(e.id)))) return undefined;
  const a: AccountStatsDoc = doc ?? {
    _id: accountStatsDocId(e.accountId, partition), accountId: e.accountId, partition, appliedOffset: -1, appliedIds: [], chats: 0, sessionsOpened: 0,
    sessionsClosed: 0, messages: 0, fanMessages: 0, revenueCents: 0, paymentCount: 0, lateRecords: 0, lastActivityAt: null,
    lastStatusEvent: null, lastStatusState: null, lastStatusAt: null,
  };
  let { chats, sessionsOpened, sessionsClosed, messages, fanMessages, revenueCents, paymentCount, lastActivityAt, lastStatusEvent, lastStatusState, lastStatusAt } = a;
  let lateRecords = a.lateRecords ?? 0;
  let moved = false;
  for (const c of changes) {
    if (isSession(c)) {
      if (c.before === undefined) {
        sessionsOpened++;
        // A chat's first session is the first sign of that chat.
        if (isFirstSessionId(c.after._id)) chats++;
        moved = true;
      }
      const closed = (closedInLog(c.after) ? 1 : 0) - (c.before !== undefined && closedInLog(c.before) ? 1 : 0);
      if (closed !== 0) {
        sessionsClosed += closed;
        moved = true;
      }
    } else if (isMessage(c)) {
      const counted = (recorded(c.after) ? 1 : 0) - (recorded(c.before) ? 1 : 0);
      if (counted !== 0) {
        messages += counted;
        if (c.after.sender === 'fan') fanMessages += counted;
        moved = true;
      }
      if (recorded(c.after) && c.after.sentAt !== undefined && c.after.sentAt > (lastActivityAt ?? 0)) {
        lastActivityAt = c.after.sentAt;
        moved = true;
      }
    } else if (isPayment(c)) {
      const revenue = c.after.grossCents - (c.before?.grossCents ?? 0);
      const count = c.before === undefined ? 1 : 0;
      if (revenue !== 0 || count !== 0) {
        revenueCents += revenue;
        paymentCount += count;
        moved = true;
      }
      if (c.after.paidAt > (lastActivityAt ?? 0)) {
        lastActivityAt = c.after.paidAt;
        moved = true;
      }
    }
  }
  // A late record counts once: when it changed something (a redelivery changes nothing).
  if (isLate(e) && changes.length > 0) {
    lateRecords++;
    moved = true;
  }
  if (e.type === 'AccountStatusChanged') {
    // The newest status by its own time, whatever order the notices arrived in; the same
    // notice again is not newer.
    const newer = lastStatusAt === null || e.at > lastStatusAt || (e.at === lastStatusAt && e.data.event > (lastStatusEvent ?? ''));
    if (newer) {
      lastStatusEvent = e.data.event;
      lastStatusState = e.data.state;
      lastStatusAt = e.at;
      moved = true;
    }
  }
  if (!moved) return undefined;
  // Every field written out (a copy by spread with overrides costs V8 microseconds).
  return {
    _id: a._id, accountId: a.accountId, partition: a.partition,
    appliedOffset: offset, appliedIds: offset === a.appliedOffset ? [...a.appliedIds, e.id] : [e.id],
    chats, sessionsOpened, sessionsClosed, messages, fanMessages, revenueCents, paymentCount, lateRecords,
    lastActivityAt, lastStatusEvent, lastStatusState, lastStatusAt,
  };
}

export const accountStats: DocumentProjection<AccountStatsDoc> = {
  name: ACCOUNT_STATS,
  // Every event counts towards its account's row for the partition of its source record.
  canHandle: () => true,
  documentIds: (p) => [accountStatsDocId(p.event.accountId, sourceOf(p).partition)],
  // Every change comes through evolveFromChanges; an event on its own changes no total.
  evolve: () => undefined,
  evolveFromChanges: foldAccountStats,
  // Read whole (an account's rows, or every row in scope): no index beyond `_id`.
  indexes: [],
};
