// The shift model's shares against a reference written apart: for each payment, the chatters
// whose clocked span covers its instant, found by a plain scan, and its cents dealt out one at a
// time round the table in id order. src/ sweeps spans and payments in time order instead.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shiftShares, type CreditablePayment, type CreditSpan } from '../../src/domain/shift-credit.js';
import { propertyRuns } from '../support/property-runs.js';

function reference(p: CreditablePayment, spans: readonly CreditSpan[]): Map<string, number> {
  const out = new Map<string, number>();
  if (p.overrideChatterId !== null) return out.set(p.overrideChatterId, p.grossCents);
  if (p.uncredited === true) return out;
  const on = new Set<string>();
  for (const s of spans) if (s.accountId === p.accountId && s.inAt <= p.paidAt && (s.end === null || p.paidAt < s.end)) on.add(s.chatterId);
  const table = [...on].sort();
  if (table.length === 0) return out;
  for (let cent = 0; cent < p.grossCents; cent++) {
    const id = table[cent % table.length] as string;
    out.set(id, (out.get(id) ?? 0) + 1);
  }
  for (const id of table) if (!out.has(id)) out.set(id, 0);
  return out;
}

const span = fc.record({
  accountId: fc.constantFrom('a', 'b'), chatterId: fc.constantFrom('ann', 'bob', 'cy', 'dee'),
  inAt: fc.integer({ min: 0, max: 100 }), length: fc.option(fc.integer({ min: 0, max: 60 }), { nil: null }),
}).map(({ length, ...s }): CreditSpan => ({ ...s, end: length === null ? null : s.inAt + length }));

const payment = fc.record({
  accountId: fc.constantFrom('a', 'b'), paidAt: fc.integer({ min: 0, max: 170 }), grossCents: fc.integer({ min: 0, max: 2_000 }),
  overrideChatterId: fc.option(fc.constantFrom('ann', 'eve'), { nil: null, freq: 5 }), uncredited: fc.boolean(),
});

describe('the shift model\'s shares', () => {
  it('equal the reference, add up to each payment credited, and do not depend on the order given', () => {
    fc.assert(fc.property(fc.array(span, { maxLength: 12 }), fc.array(payment, { maxLength: 15 }), fc.infiniteStream(fc.nat()), (spans, payments, order) => {
      const shares = shiftShares(payments, spans);
      payments.forEach((p, i) => {
        const got = new Map(shares[i]);
        expect(got, `payment ${i} at ${p.paidAt}`).toEqual(reference(p, spans));
        const total = [...got.values()].reduce((a, b) => a + b, 0);
        expect(total).toBe(got.size === 0 ? 0 : p.grossCents);
      });
      // Spans and payments given in another order: the same shares per payment.
      const it = order[Symbol.iterator]();
      const shuffled = [...spans].sort(() => ((it.next().value as number) % 3) - 1);
      const perm = payments.map((_, i) => i).sort(() => ((it.next().value as number) % 3) - 1);
      const again = shiftShares(perm.map((i) => payments[i] as CreditablePayment), shuffled);
      perm.forEach((i, k) => expect(new Map(again[k])).toEqual(new Map(shares[i])));
    }), propertyRuns(500));
  });

  it('splits a payment between two on at once, the odd cent to the first by id, and not to one who clocked out at that instant', () => {
    const spans: CreditSpan[] = [
      { accountId: 'a', chatterId: 'bob', inAt: 0, end: null },
      { accountId: 'a', chatterId: 'ann', inAt: 5, end: 10 },
    ];
    const pay = (paidAt: number): CreditablePayment => ({ accountId: 'a', paidAt, grossCents: 2_501, overrideChatterId: null });
    expect(shiftShares([pay(7), pay(10), pay(3), { ...pay(7), accountId: 'b' }], spans)).toEqual([
      [['ann', 1_251], ['bob', 1_250]],
      [['bob', 2_501]],
      [['bob', 2_501]],
      [],
    ]);
  });
});
