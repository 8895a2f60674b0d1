// Report figures from summed buckets. Histograms count whole seconds, so any whole-second
// threshold splits them exactly, and the median and p90 are exact order statistics.
import { percent } from '../../../queries/percentiles.js';
import type { SlaFigures } from '../../../queries/sla.js';
import type { BucketCounters, ChatterCounters, Histogram } from './document.js';
import { secOf } from './keys.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] extends object ? Mutable<T[K]> : T[K] };
export type Sums = Mutable<BucketCounters>;

/** Adds a bucket (or any sums) into `into`, field by field, nested maps included; `skip`: top-level fields to leave out. */
export function addSums(into: Record<string, unknown>, from: Readonly<Record<string, unknown>>, skip?: ReadonlySet<string>): void {
  // for...in and no intermediate arrays: a month's histograms hold thousands of seconds.
  for (const k in from) {
    if (skip?.has(k)) continue;
    const v = from[k];
    if (typeof v === 'number') {
      const cur = into[k];
      into[k] = typeof cur === 'number' ? cur + v : v;
    } else if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      let t = into[k];
      if (typeof t !== 'object' || t === null) {
        t = {};
        into[k] = t;
      }
      addSums(t as Record<string, unknown>, v as Record<string, unknown>);
    }
  }
}

/** Counts of a histogram, ascending by seconds, zeros dropped. */
function entries(h: Histogram | undefined): [number, number][] {
  const out: [number, number][] = [];
  if (!h) return out;
  for (const k in h) {
    const n = h[k] as number;
    if (n > 0) out.push([secOf(k), n]);
  }
  return out.sort((a, b) => a[0] - b[0]);
}

/** Nearest rank over a histogram: the value at rank ceil(p/100 · n). */
function rankOf(sorted: readonly [number, number][], total: number, p: number): number | null {
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * total));
  let seen = 0;
  for (const [sec, n] of sorted) {
    seen += n;
    if (seen >= rank) return sec;
  }
  return null;
}

/** An open session whose fan has not had a reply: judged against the clock. */
export interface Unanswered {
  readonly firstFanMessageAt: number;
}

export function slaOf(frt: Histogram | undefined, wait: Histogram | undefined, unanswered: readonly Unanswered[], thresholdSec: number, now: number): SlaFigures {
  const answered = entries(frt);
  let responded = 0;
  let within = 0;
  for (const [sec, n] of answered) {
    responded += n;
    if (sec <= thresholdSec) within += n;
  }
  let breaches = responded - within;
  let pending = 0;
  for (const [sec, n] of entries(wait)) {
    if (sec > thresholdSec) breaches += n;
    else pending += n;
  }
  for (const u of unanswered) {
    if ((now - u.firstFanMessageAt) / 1000 > thresholdSec) breaches++;
    else pending++;
  }
  return {
    sessions: within + breaches + pending,
    responded,
    withinThreshold: within,
    breaches,
    pending,
    withinThresholdPct: percent(within, within + breaches),
    medianFirstResponseSec: rankOf(answered, responded, 50),
    p90FirstResponseSec: rankOf(answered, responded, 90),
  };
}

export function chattersOf(s: Sums): [string, ChatterCounters][] {
  return Object.entries(s.chatters ?? {});
}
