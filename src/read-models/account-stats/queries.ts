// Named queries over the account totals. An account's totals are kept as one row per
// partition; readers add them up.
import type { Filter } from '../../adapters/store/store.js';
import type { ReadModelCollections } from '../read-model-set.js';
import type { AccountCounters, AccountStatsDoc } from './projection.js';

export type AccountTotals = AccountCounters;

/** Each account's totals in scope, by account id. */
export async function totals(rm: ReadModelCollections, inScope: Filter): Promise<AccountTotals[]> {
  return accountTotals(await rm.account_stats.find(inScope, { sort: { _id: 1 } }));
}

/** The accounts in scope the pipeline has seen (one entry per row: an account may repeat). */
export async function accountIds(rm: ReadModelCollections, inScope: Filter): Promise<string[]> {
  return (await rm.account_stats.find(inScope, { projection: { accountId: 1 } })).map((a) => a.accountId);
}

export function accountTotals(rows: readonly AccountStatsDoc[]): AccountTotals[] {
  const byAccount = new Map<string, AccountTotals & { lastStatusAt: number | null }>();
  for (const r of rows) {
    const t = byAccount.get(r.accountId);
    if (!t) {
      byAccount.set(r.accountId, {
        accountId: r.accountId, chats: r.chats, sessionsOpened: r.sessionsOpened, sessionsClosed: r.sessionsClosed, messages: r.messages,
        fanMessages: r.fanMessages, revenueCents: r.revenueCents, paymentCount: r.paymentCount, lateRecords: r.lateRecords ?? 0, lastActivityAt: r.lastActivityAt,
        lastStatusEvent: r.lastStatusEvent, lastStatusState: r.lastStatusState, lastStatusAt: r.lastStatusAt ?? null,
      });
      continue;
    }
    const newerStatus = r.lastStatusAt !== null && (t.lastStatusAt === null || r.lastStatusAt > t.lastStatusAt);
    byAccount.set(r.accountId, {
      accountId: r.accountId,
      chats: t.chats + r.chats,
      sessionsOpened: t.sessionsOpened + r.sessionsOpened,
      sessionsClosed: t.sessionsClosed + r.sessionsClosed,
      messages: t.messages + r.messages,
      fanMessages: t.fanMessages + r.fanMessages,
      revenueCents: t.revenueCents + r.revenueCents,
      paymentCount: t.paymentCount + r.paymentCount,
      lateRecords: (t.lateRecords ?? 0) + (r.lateRecords ?? 0),
      lastActivityAt: Math.max(t.lastActivityAt ?? 0, r.lastActivityAt ?? 0) || null,
      lastStatusEvent: newerStatus ? r.lastStatusEvent : t.lastStatusEvent,
      lastStatusState: newerStatus ? r.lastStatusState : t.lastStatusState,
      lastStatusAt: newerStatus ? r.lastStatusAt : t.lastStatusAt,
    });
  }
  return [...byAccount.values()]
    .map(({ lastStatusAt: _ignored, ...t }) => t)
    .sort((a, b) => a.accountId.localeCompare(b.accountId));
}
