// The `shift` model's credit over a window: each payment paid in it shared among the chatters
// clocked in on its account then (domain/shift-credit.ts). Unlike the other models it is not kept
// in the report buckets' sums: a clock interval and a payment are facts of different chats, joined
// here from the window's payment and interval facts (report-buckets/work-digest.ts; the routes cap
// the window, see http/report-window.ts assertCreditable), so it costs what the window holds, not the history.
import type { Filter } from '../adapters/store/store.js';
import { shiftShares } from '../domain/shift-credit.js';
import { clockedSpans } from './clock-intervals/queries.js';
import type { ReadModelCollections } from './read-model-set.js';
import type { ReportWindow } from './report-buckets/queries.js';
import { workIn } from './report-buckets/work-digest.js';

export interface CreditSum {
  revenueCents: number;
  /** Payments they had a share of. */
  payments: number;
}

/** Per account, per chatter: what the `shift` model credits them in the window. */
export type ShiftCredit = ReadonlyMap<string, ReadonlyMap<string, CreditSum>>;

export async function shiftCreditOf(rm: ReadModelCollections, w: ReportWindow, inScope: Filter, idleMs: number, now: number): Promise<ShiftCredit> {
  // The window's payments and clock intervals as their day documents hold them (report-buckets/work-digest.ts).
  const { payments, intervals } = await workIn(rm, inScope, w.from, w.to);
  const shares = shiftShares(payments, await clockedSpans(rm, intervals, w.from, idleMs, now));
  const out = new Map<string, Map<string, CreditSum>>();
  payments.forEach((p, i) => {
    for (const [chatterId, cents] of shares[i] ?? []) {
      // A cent split three ways: those who got none of it had no share.
      if (cents === 0) continue;
      let account = out.get(p.accountId);
      if (!account) out.set(p.accountId, (account = new Map()));
      const sum = account.get(chatterId) ?? { revenueCents: 0, payments: 0 };
      sum.revenueCents += cents;
      sum.payments++;
      account.set(chatterId, sum);
    }
  });
  return out;
}
