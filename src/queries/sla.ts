// The first-response SLA report's shape: per window, per account and per chatter. The terms
// (within, breach, pending, how a wait rounds) are defined once in domain/sla.ts; the figures
// come from the report buckets (projector/models/report-buckets/figures.ts).

export interface SlaFigures {
  readonly sessions: number;
  readonly responded: number;
  readonly withinThreshold: number;
  readonly breaches: number;
  readonly pending: number;
  readonly withinThresholdPct: number | null;
  readonly medianFirstResponseSec: number | null;
  readonly p90FirstResponseSec: number | null;
}

export const UNATTRIBUTED = 'unattributed';

export interface SlaReport extends SlaFigures {
  readonly thresholdSec: number;
  readonly byAccount: readonly (SlaFigures & { readonly accountId: string })[];
  /** By the chatter of the first reply; unanswered sessions have no chatter and are left out. */
  readonly byChatter: readonly (SlaFigures & { readonly chatterId: string })[];
}
