// A first-response histogram read for reporting: its seconds ascending with running counts. A
// window's figures come from many buckets' histograms at once without merging them: how many
// are at most T is a binary search in each, and the k-th smallest a binary search over the
// seconds on top of that. A month holds thousands of distinct seconds, and a long window
// dozens of months, so merging field by field (what the first version did) cost most of a
// report; this costs a few comparisons per bucket.
import type { Histogram } from './document.js';
import { secOf } from './keys.js';

export interface SortedCounts {
  /** Whole seconds, ascending, each with a count above zero. */
  readonly secs: Float64Array;
  /** cum[i]: how many are at most secs[i]. */
  readonly cum: Float64Array;
}

const EMPTY: SortedCounts = { secs: new Float64Array(0), cum: new Float64Array(0) };

export function sortedCounts(h: Histogram | undefined): SortedCounts {
  if (!h) return EMPTY;
  const pairs: [number, number][] = [];
  for (const k in h) {
    const n = h[k] as number;
    if (n > 0) pairs.push([secOf(k), n]);
  }
  if (pairs.length === 0) return EMPTY;
  pairs.sort((a, b) => a[0] - b[0]);
  const secs = new Float64Array(pairs.length);
  const cum = new Float64Array(pairs.length);
  let running = 0;
  pairs.forEach(([sec, n], i) => {
    running += n;
    secs[i] = sec;
    cum[i] = running;
  });
  return { secs, cum };
}

export function totalOf(h: SortedCounts): number {
  return h.cum.length === 0 ? 0 : (h.cum[h.cum.length - 1] as number);
}

/** Several histograms as one (the settled part of a window, merged once and kept: queries.ts). */
export function mergeCounts(hs: readonly SortedCounts[]): SortedCounts {
  const parts = hs.filter((h) => h.secs.length > 0);
  if (parts.length <= 1) return parts[0] ?? EMPTY;
  const counts = new Map<number, number>();
  for (const h of parts) {
    for (let i = 0; i < h.secs.length; i++) {
      const sec = h.secs[i] as number;
      counts.set(sec, (counts.get(sec) ?? 0) + (h.cum[i] as number) - (i === 0 ? 0 : (h.cum[i - 1] as number)));
    }
  }
  const secs = Float64Array.from([...counts.keys()].sort((a, b) => a - b));
  const cum = new Float64Array(secs.length);
  let running = 0;
  secs.forEach((sec, i) => {
    running += counts.get(sec) as number;
    cum[i] = running;
  });
  return { secs, cum };
}

/** How many are at most `sec`. */
export function atMost(h: SortedCounts, sec: number): number {
  let lo = 0;
  let hi = h.secs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((h.secs[mid] as number) <= sec) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? 0 : (h.cum[lo - 1] as number);
}

/** Figures over several histograms as if they were one. */
export class HistogramSet {
  private readonly parts: SortedCounts[] = [];

  add(h: SortedCounts): void {
    if (h.secs.length > 0) this.parts.push(h);
  }

  addAll(other: HistogramSet): void {
    for (const h of other.parts) this.parts.push(h);
  }

  get total(): number {
    let n = 0;
    for (const h of this.parts) n += totalOf(h);
    return n;
  }

  atMost(sec: number): number {
    let n = 0;
    for (const h of this.parts) n += atMost(h, sec);
    return n;
  }

  /** Nearest rank: the smallest second s with at least ceil(p/100 · total) at most s; null when empty. */
  percentile(p: number): number | null {
    const total = this.total;
    if (total === 0) return null;
    const rank = Math.max(1, Math.ceil((p / 100) * total));
    // Seconds are whole, so the answer is the smallest whole s in [min, max] with atMost(s) ≥ rank.
    let lo = Infinity;
    let hi = -Infinity;
    for (const h of this.parts) {
      lo = Math.min(lo, h.secs[0] as number);
      hi = Math.max(hi, h.secs[h.secs.length - 1] as number);
    }
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      if (this.atMost(mid) >= rank) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}
