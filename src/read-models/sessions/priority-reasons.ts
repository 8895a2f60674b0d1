// Why a waiting fan sits where it does in the priority inbox, in words: how long they have
// waited, whether that is past the SLA, the wait they rank as given their spend, and open alerts.
// The order is priorityAt's (priority.ts); these say what went into it.
import { spendHeadStartSec } from './priority.js';
import { gradeOf } from '../../domain/sla.js';
import { dollars, duration } from '../../domain/wording.js';

export type PriorityReasonKind = 'waiting' | 'past-sla' | 'sla-at-risk' | 'spend' | 'open-alerts';

export interface PriorityReason {
  readonly kind: PriorityReasonKind;
  readonly text: string;
}

export interface ReasonFacts {
  /** Whole seconds the fan has waited now; null when nobody waits. */
  readonly waitSec: number | null;
  readonly fanSpendCents: number | null;
  readonly openAlerts: number;
}

export function priorityReasons(f: ReasonFacts, thresholdSec: number): PriorityReason[] {
  if (f.waitSec === null) return [];
  const out: PriorityReason[] = [{ kind: 'waiting', text: `waiting ${duration(f.waitSec)}` }];
  const grade = gradeOf(f.waitSec, thresholdSec);
  if (grade === 'breached') out.push({ kind: 'past-sla', text: `past the ${duration(thresholdSec)} SLA` });
  else if (grade === 'at-risk') out.push({ kind: 'sla-at-risk', text: `near the ${duration(thresholdSec)} SLA` });
  const head = spendHeadStartSec(f.fanSpendCents);
  // In a manager's words: the order is by wait plus this head start, so say what the row ranks as.
  if (head > 0) out.push({ kind: 'spend', text: `ranked as if waiting ${duration(f.waitSec + head)}: the fan has spent ${dollars(f.fanSpendCents ?? 0)} (+${duration(head)})` });
  if (f.openAlerts > 0) out.push({ kind: 'open-alerts', text: f.openAlerts === 1 ? '1 open alert' : `${f.openAlerts} open alerts` });
  return out;
}
