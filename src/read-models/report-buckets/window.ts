// Splits a report window [from, to) into whole buckets, coarsest first, and the partial hours at
// its two ends. Whole months, then the days and hours around them: a window of any length reads
// at most ~60 day and ~46 hour buckets besides its months, and at most two partial hours of raw
// documents, so its cost follows the window's shape, not the history behind it.
import { bucketIndex, bucketStart, type TimeLevel } from './keys.js';

export interface BucketRange {
  readonly level: TimeLevel;
  /** Bucket indexes [from, to). */
  readonly from: number;
  readonly to: number;
}

export interface Cover {
  readonly buckets: readonly BucketRange[];
  /** Raw time ranges [from, to) left over at the ends, each inside one hour. */
  readonly edges: readonly (readonly [number, number])[];
}

/** Bounds may be infinite (an open window); every other bound is an epoch-ms time. */
export function cover(from: number, to: number): Cover {
  const buckets: BucketRange[] = [];
  const edges: [number, number][] = [];
  if (!(from < to)) return { buckets, edges };
  const ceilIdx = (level: TimeLevel, t: number): number => {
    if (t === -Infinity) return Number.MIN_SAFE_INTEGER;
    if (t === Infinity) return Number.MAX_SAFE_INTEGER;
    const i = bucketIndex(level, t);
    return bucketStart(level, i) === t ? i : i + 1;
  };
  const floorIdx = (level: TimeLevel, t: number): number => {
    if (t === -Infinity) return Number.MIN_SAFE_INTEGER;
    if (t === Infinity) return Number.MAX_SAFE_INTEGER;
    return bucketIndex(level, t);
  };
  const startOf = (level: TimeLevel, i: number): number => {
    if (i === Number.MIN_SAFE_INTEGER) return -Infinity;
    if (i === Number.MAX_SAFE_INTEGER) return Infinity;
    return bucketStart(level, i);
  };
  const h0 = ceilIdx('h', from);
  const h1 = floorIdx('h', to);
  if (h0 >= h1) {
    // No whole hour inside: one or two partial hours, read raw.
    const mid = startOf('h', h0);
    if (h0 === h1 && mid > from && mid < to) edges.push([from, mid], [mid, to]);
    else edges.push([from, to]);
    return { buckets, edges };
  }
  let [lo, hi] = [startOf('h', h0), startOf('h', h1)];
  if (from < lo) edges.push([from, lo]);
  if (hi < to) edges.push([hi, to]);
  // Climb: [lo, hi) is whole buckets of `fine`; what lies outside the next coarser level's
  // whole buckets stays at `fine`, the rest goes up a level.
  const steps: [TimeLevel, TimeLevel][] = [['h', 'd'], ['d', 'm']];
  for (const [fine, coarse] of steps) {
    const c0 = ceilIdx(coarse, lo);
    const c1 = floorIdx(coarse, hi);
    if (c0 >= c1) {
      buckets.push({ level: fine, from: floorIdx(fine, lo), to: floorIdx(fine, hi) });
      return { buckets, edges };
    }
    const [cs, ce] = [startOf(coarse, c0), startOf(coarse, c1)];
    if (lo < cs) buckets.push({ level: fine, from: floorIdx(fine, lo), to: bucketIndex(fine, cs) });
    if (ce < hi) buckets.push({ level: fine, from: bucketIndex(fine, ce), to: floorIdx(fine, hi) });
    [lo, hi] = [cs, ce];
  }
  buckets.push({ level: 'm', from: floorIdx('m', lo), to: floorIdx('m', hi) });
  return { buckets, edges };
}
