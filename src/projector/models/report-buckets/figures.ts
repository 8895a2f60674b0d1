// Report figures from summed buckets. Histograms count whole seconds, so any whole-second
// threshold splits them exactly, and the median and p90 are exact order statistics.
import { percent } from '../../../queries/percentiles.js';
import type { SlaFigures } from '../../../queries/sla.js';
import type { BucketCounters, ChatterCounters, Histogram } from './document.js';
import { secOf } from './keys.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] extends object ? Mutable<T[K]> : T[K] };
export type Sums = Mutable<BucketCounters>;

/** Adds a bucket (or any sums) into `into`, field by field, nested maps included. */
export function addSums(into: Record<string, unknown>, from: Readonly<Record<string, unknown>>): void {
  for (const [k, v] of Object.entries(from)) {
    if (typeof v === 'number') into[k] = (typeof into[k] === 'number' ? (into[k] as number) : 0) + v;
    else if (v && typeof v === 'object' && !Array.isArray(v)) {
      if (typeof into[k] !== 'object' || into[k] === null) into[k] = {};
      addSums(into[k] as Record<string, unknown>, v as Record<string, unknown>);
    }
  }
}

/** Counts of a histogram, ascending by seconds, zeros dropped. */
function entries(h: Histogram | undefined): [number, number][] {
  if (!h) return [];
  return Object.entries(h).filter(([, n]) => n > 0).map(([k, n]): [number, number] => [secOf(k), n]).sort((a, b) => a[0] - b[0]);
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
