// Account totals: one document per account and partition, counted from every chat's events.
import type { Doc } from '../../../adapters/store/store.js';
import { isLate } from '../events.js';
import { ACCOUNT_STATS } from '../names.js';
import { sourceOf, type DocumentProjection, type Positioned } from '../projection.js';

/** Per-account totals, one document per account and partition: each has a single writer (the
 *  partition's owner), so projectors in several processes never race on an account. Events
 *  of many chats feed it, so instead of a chat sequence it remembers the last `inbound` offset
 *  it applied and which events of that record it has seen: an event appended twice (a
 *  processor re-running a record after a crash) counts once. Readers sum an account's rows. */
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

export function foldAccountStats(doc: AccountStatsDoc | undefined, p: Positioned): AccountStatsDoc | undefined {
  const e = p.event;
  const { partition, offset } = sourceOf(p);
  if (doc && (offset < doc.appliedOffset || (offset === doc.appliedOffset && doc.appliedIds.includes(e.id)))) return undefined;
  const a: AccountStatsDoc = doc ?? {
    _id: accountStatsDocId(e.accountId, partition), accountId: e.accountId, partition, appliedOffset: -1, appliedIds: [], chats: 0, sessionsOpened: 0,
    sessionsClosed: 0, messages: 0, fanMessages: 0, revenueCents: 0, paymentCount: 0, lateRecords: 0, lastActivityAt: null,
    lastStatusEvent: null, lastStatusState: null, lastStatusAt: null,
  };
  let { chats, sessionsOpened, sessionsClosed, messages, fanMessages, revenueCents, paymentCount, lastActivityAt, lastStatusEvent, lastStatusState, lastStatusAt } = a;
  switch (e.type) {
    case 'SessionOpened':
      sessionsOpened++;
      // A chat's first session is the first sign of that chat.
      if (e.data.session.sessionId.endsWith(':1')) chats++;
      break;
    case 'SessionClosed':
      sessionsClosed++;
      break;
    case 'MessageRecorded':
      messages++;
      if (e.data.sender === 'fan') fanMessages++;
      lastActivityAt = Math.max(lastActivityAt ?? 0, e.data.sentAt);
      break;
    case 'PaymentRecorded':
      revenueCents += e.data.grossCents;
      paymentCount++;
      lastActivityAt = Math.max(lastActivityAt ?? 0, e.data.paidAt);
      break;
    case 'AccountStatusChanged': {
      // The newest status by its own time, whatever order the notices arrived in.
      const newer = lastStatusAt === null || e.at > lastStatusAt || (e.at === lastStatusAt && e.data.event > (lastStatusEvent ?? ''));
      if (newer) {
        lastStatusEvent = e.data.event;
        lastStatusState = e.data.state;
        lastStatusAt = e.at;
      }
      break;
    }
    default:
      break;
  }
  // Every field written out (every event of every chat passes here, and a copy by spread with
  // overrides costs V8 microseconds).
  return {
    _id: a._id, accountId: a.accountId, partition: a.partition,
    appliedOffset: offset, appliedIds: offset === a.appliedOffset ? [...a.appliedIds, e.id] : [e.id],
    chats, sessionsOpened, sessionsClosed, messages, fanMessages, revenueCents, paymentCount,
    lateRecords: (a.lateRecords ?? 0) + (isLate(e) ? 1 : 0),
    lastActivityAt, lastStatusEvent, lastStatusState, lastStatusAt,
  };
}

export const accountStats: DocumentProjection<AccountStatsDoc> = {
  name: ACCOUNT_STATS,
  // Every event counts towards its account's row for the partition of its source record.
  canHandle: () => true,
  documentIds: (p) => [accountStatsDocId(p.event.accountId, sourceOf(p).partition)],
  evolve: foldAccountStats,
  // Read whole (an account's rows, or every row in scope): no index beyond `_id`.
  indexes: [],
};
