// The first-response SLA report's shape: per window, per account and per chatter. The terms
// (within, breach, pending, how a wait rounds) and the figures of a set of sessions
// (SlaFigures) are defined once in domain/sla.ts; the figures come from the report buckets
// (report-buckets/figures.ts).
import type { SlaFigures } from '../domain/sla.js';

export const UNATTRIBUTED = 'unattributed';

export interface SlaReport extends SlaFigures {
  readonly thresholdSec: number;
  readonly byAccount: readonly (SlaFigures & { readonly accountId: string })[];
  /** By the chatter of the first reply; unanswered sessions have no chatter and are left out. */
  readonly byChatter: readonly (SlaFigures & { readonly chatterId: string })[];
}
