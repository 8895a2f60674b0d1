// A window's first-response figures come from many buckets' histograms queried together,
// never merged. They must equal the figures of the one list of seconds the histograms count,
// computed the plain way (sort, count, nearest rank). A failure prints fast-check's seed:
// rerun with PROPERTY_SEED / PROPERTY_PATH.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HistogramSet, sortedCounts } from '../../src/read-models/report-buckets/histogram.js';
import { secKey } from '../../src/read-models/report-buckets/keys.js';
import { propertyRuns } from '../support/property-runs.js';

const params = propertyRuns;

/** Nearest rank over a sorted list, as the reference report computes it. */
function nearestRank(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1] ?? null;
}

// Seconds cluster (many equal values) or spread (up to a day), with zero counts mixed in as a
// bucket holds them after a session moved out.
const seconds = fc.oneof(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 86_400 }));
const bucket = fc.array(fc.tuple(seconds, fc.integer({ min: 0, max: 4 })), { maxLength: 40 });

describe('first-response figures over several histograms', () => {
  it('equal those of the seconds they count, listed and sorted', () => {
    fc.assert(fc.property(fc.array(bucket, { maxLength: 12 }), fc.integer({ min: 0, max: 90_000 }), fc.integer({ min: 1, max: 100 }), (buckets, threshold, p) => {
      const set = new HistogramSet();
      const all: number[] = [];
      for (const b of buckets) {
        const h: Record<string, number> = {};
        for (const [sec, n] of b) {
          h[secKey(sec)] = (h[secKey(sec)] ?? 0) + n;
          for (let i = 0; i < n; i++) all.push(sec);
        }
        set.add(sortedCounts(h));
      }
      all.sort((a, b) => a - b);
      expect(set.total).toBe(all.length);
      expect(set.atMost(threshold)).toBe(all.filter((s) => s <= threshold).length);
      expect(set.percentile(p)).toBe(nearestRank(all, p));
      expect(set.percentile(50)).toBe(nearestRank(all, 50));
      expect(set.percentile(90)).toBe(nearestRank(all, 90));
    }), params(1000));
  });

  it('of nothing are empty', () => {
    const set = new HistogramSet();
    set.add(sortedCounts(undefined));
    set.add(sortedCounts({ s5: 0 }));
    expect([set.total, set.atMost(10), set.percentile(50)]).toEqual([0, 0, null]);
  });
});
