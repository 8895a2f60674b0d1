// A window's settled buckets merged into one per account (window-sums.ts mergeDecoded) give the
// window the same figures as adding each bucket: counts, every percentile of every histogram,
// each chatter's credit under each model, each chatter's and campaign's conversion figures.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BucketCounters } from '../../src/read-models/report-buckets/document.js';
import { AccountWindow, decodeBucket, mergeDecoded } from '../../src/read-models/report-buckets/window-sums.js';
import type { HistogramSet } from '../../src/read-models/report-buckets/histogram.js';
import { propertyRuns } from '../support/property-runs.js';

const params = propertyRuns;

const histogram = fc.dictionary(fc.integer({ min: 0, max: 40 }).map((n) => `s${n}`), fc.integer({ min: 0, max: 5 }), { maxKeys: 6 });
const key = fc.constantFrom('u', 'cYW5u', 'cYm9i');
const bucket: fc.Arbitrary<BucketCounters> = fc.record({
  opened: fc.integer({ min: 0, max: 9 }),
  revenueCents: fc.integer({ min: 0, max: 9_000 }),
  frt: histogram,
  wait: histogram,
  // Corrections to open hours (document.ts bfrt): a bucket whose keys sum below zero drops them, either way.
  bfrt: histogram,
  bwait: histogram,
  chatters: fc.dictionary(key, fc.record({ frt: histogram, bfrt: histogram, revenueCents: fc.nat(5_000), payments: fc.nat(3), senderCents: fc.nat(5_000), senderPayments: fc.nat(3), converterCents: fc.nat(5_000), converterPayments: fc.nat(3) }, { requiredKeys: [] }), { maxKeys: 3 }),
  conv: fc.dictionary(key, fc.record({ direct: fc.nat(9), ppvSent: fc.nat(5), unlocked: fc.nat(5), price: histogram, unlockMin: histogram }, { requiredKeys: [] }), { maxKeys: 3 }),
  camp: fc.dictionary(fc.constantFrom('a', 'qNTU1'), fc.record({ sent: fc.nat(9), unlocked: fc.nat(3), price: histogram }, { requiredKeys: [] }), { maxKeys: 2 }),
}, { requiredKeys: [] }).map((b) => JSON.parse(JSON.stringify(b)) as BucketCounters);

const PCTS = [1, 25, 50, 90, 99, 100];
const shape = (h: HistogramSet) => [h.total, ...PCTS.map((p) => h.percentile(p))];

function figures(w: AccountWindow) {
  return {
    counters: Object.fromEntries(Object.entries(w.counters).filter(([, v]) => v !== 0)),
    frt: shape(w.frt), wait: shape(w.wait),
    chatters: Object.fromEntries([...w.chatters].map(([k, c]) => [k, { frt: shape(c.frt), credit: c.credit }])),
    conv: Object.fromEntries([...w.conv].map(([k, c]) => [k, { counts: c.counts, price: shape(c.price), unlockMin: shape(c.unlockMin) }])),
    camp: Object.fromEntries([...w.camp].map(([k, c]) => [k, { counts: c.counts, price: shape(c.price), unlockMin: shape(c.unlockMin) }])),
  };
}

describe('merged settled buckets', () => {
  it('give a window the figures that adding each bucket gives', () => {
    fc.assert(fc.property(fc.array(bucket, { minLength: 1, maxLength: 8 }), fc.option(bucket, { nil: undefined }), (settled, current) => {
      for (const clock of ['wall', 'business'] as const) {
        const oneByOne = new AccountWindow(clock);
        const merged = new AccountWindow(clock);
        for (const b of settled) oneByOne.add(decodeBucket(b));
        merged.add(mergeDecoded(settled.map((b) => decodeBucket(b))));
        // The current hour's bucket is added to both as it is.
        if (current) {
          oneByOne.add(decodeBucket(current));
          merged.add(decodeBucket(current));
        }
        expect(figures(merged), clock).toEqual(figures(oneByOne));
      }
    }), params(300));
  });
});
