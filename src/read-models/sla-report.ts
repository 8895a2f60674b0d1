// The first-response SLA report's shape: per window, per account and per chatter. The terms
// (within, breach, pending, how a wait rounds) and the figures of a set of sessions
// (SlaFigures) are defined once in domain/sla.ts; the figures come from the report buckets
// (report-buckets/figures.ts).
import type { SlaFigures } from '../domain/sla.js';

export interface SlaReport extends SlaFigures {
  readonly thresholdSec: number;
  readonly byAccount: readonly (SlaFigures & { readonly accountId: string })[];
  /**
   * By the chatter of the first reply, named ones by id, then (chatterId null) the sessions first
   * answered without a named chatter: no id can stand for "nobody". Unanswered sessions are left out.
   */
  readonly byChatter: readonly (SlaFigures & { readonly chatterId: string | null })[];
}
