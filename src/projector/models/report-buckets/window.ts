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
  const hs = startOf('h', h0);
  const he = startOf('h', h1);
  if (from < hs) edges.push([from, hs]);
  if (he < to) edges.push([he, to]);
  const d0 = ceilIdx('d', hs);
  const d1 = floorIdx('d', he);
  if (d0 >= d1) {
    buckets.push({ level: 'h', from: h0, to: h1 });
    return { buckets, edges };
  }
  const ds = startOf('d', d0);
  const de = startOf('d', d1);
  if (hs < ds) buckets.push({ level: 'h', from: h0, to: bucketIndex('h', ds) });
  if (de < he) buckets.push({ level: 'h', from: bucketIndex('h', de), to: h1 });
  const m0 = ceilIdx('m', ds);
  const m1 = floorIdx('m', de);
  if (m0 >= m1) {
    buckets.push({ level: 'd', from: d0, to: d1 });
    return { buckets, edges };
  }
  const ms = startOf('m', m0);
  const me = startOf('m', m1);
  if (ds < ms) buckets.push({ level: 'd', from: d0, to: bucketIndex('d', ms) });
  if (me < de) buckets.push({ level: 'd', from: bucketIndex('d', me), to: d1 });
  buckets.push({ level: 'm', from: m0, to: m1 });
  return { buckets, edges };
}
