// The `shift` model's credit over a window: each payment paid in it shared among the chatters
// clocked in on its account then (domain/shift-credit.ts). Unlike the other models it is not kept
// in the report buckets: a clock interval and a payment are facts of different chats, joined
// here from two indexed reads bounded by the window (the routes cap the window, see
// http/report-window.ts assertCreditable), so it costs what the window holds, not the history.
import type { Filter } from '../adapters/store/store.js';
import { shiftShares, type CreditablePayment, type Shares } from '../domain/shift-credit.js';
import { clockedIntervals } from './clock-intervals/queries.js';
import type { PaymentDoc } from './payments/projection.js';
import type { ReadModelCollections } from './read-model-set.js';
import { rangeOn, type ReportWindow } from './report-buckets/queries.js';

export interface CreditSum {
  revenueCents: number;
  /** Payments they had a share of. */
  payments: number;
}

/** Per account, per chatter: what the `shift` model credits them in the window. */
export type ShiftCredit = ReadonlyMap<string, ReadonlyMap<string, CreditSum>>;

/** A payment under the `shift` model: a late one is credited to nobody, as under every model. */
export const creditable = (d: PaymentDoc): CreditablePayment => ({
  accountId: d.accountId, paidAt: d.paidAt, grossCents: d.grossCents, overrideChatterId: d.override?.chatterId ?? null, uncredited: d.late === true,
});

/** Each of `payments`' shares under the `shift` model, from the clock intervals overlapping [from, to). */
export async function paymentShares(rm: ReadModelCollections, payments: readonly PaymentDoc[], inScope: Filter, from: number, to: number, idleMs: number, now: number): Promise<Shares[]> {
  const spans = await clockedIntervals(rm, inScope, from, to, idleMs, now);
  return shiftShares(payments.map(creditable), spans);
}

export async function shiftCreditOf(rm: ReadModelCollections, w: ReportWindow, inScope: Filter, idleMs: number, now: number): Promise<ShiftCredit> {
  const payments = await rm.payments.find({ ...inScope, ...rangeOn('paidAt', w) });
  const shares = await paymentShares(rm, payments, inScope, w.from, w.to, idleMs, now);
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
