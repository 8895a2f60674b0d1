// Report figures from a window's buckets. Histograms count whole seconds (rounded as
// domain/sla.ts rounds a wait), so a threshold splits them exactly as outcomeOf judges one
// session: at most the threshold is within (answered) or pending (not answered), more is a
// breach; a session closed unanswered is a breach whatever it waited. The median and p90 are
// exact order statistics.
import { isBreach, wholeSec, type SlaFigures } from '../../domain/sla.js';
import type { CloseReason } from '../../../machines/lifecycle.js';
import { percent } from '../../domain/percentiles.js';
import type { BucketCounters, ChatterCounters } from './document.js';
import type { HistogramSet } from './histogram.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] extends object ? Mutable<T[K]> : T[K] };
export type Sums = Mutable<BucketCounters>;

/** An open session whose fan has not had a reply: judged against the clock. */
export interface Unanswered {
  readonly firstFanMessageAt: number;
  /** Past its deadline (shown closed, the tick has yet to close it), and why it closes: a breach, missed too for `unanswered`. */
  readonly closedAs?: CloseReason | null;
}

/**
 * `wait`: sessions closed unanswered, each a breach whatever it waited (domain/sla.ts outcomeOf);
 * `missed`: those closed at the unanswered limit (breaches too). Only `unanswered`, the open
 * ones, can be pending.
 */
export function slaOf(frt: HistogramSet, wait: HistogramSet, unanswered: readonly Unanswered[], thresholdSec: number, now: number, missed = 0): SlaFigures {
  const responded = frt.total;
  const within = frt.atMost(thresholdSec);
  let breaches = responded - within + wait.total;
  let pending = 0;
  let lapsedMissed = 0;
  for (const u of unanswered) {
    if (u.closedAs !== undefined) {
      breaches++;
      if (u.closedAs === 'unanswered') lapsedMissed++;
    } else if (isBreach(wholeSec(now - u.firstFanMessageAt), thresholdSec)) breaches++;
    else pending++;
  }
  return {
    sessions: within + breaches + pending,
    responded,
    withinThreshold: within,
    breaches,
    missed: missed + lapsedMissed,
    pending,
    withinThresholdPct: percent(within, within + breaches),
    medianFirstResponseSec: frt.percentile(50),
    p90FirstResponseSec: frt.percentile(90),
  };
}

export function chattersOf(s: Sums): [string, ChatterCounters][] {
  return Object.entries(s.chatters ?? {});
}
