// What an alert is (a finding of a rule of intelligence/rules.ts, or the pipeline's set-aside
// alert) and how it is stored, with its lifecycle, in `alerts`. In pipeline/, below intelligence/,
// so the set-aside alert (set-aside-alert.ts) the processor and the projector reconcile writes
// one without importing intelligence/, which reads the projector's read models.
import type { Doc } from '../adapters/store/store.js';

export const ALERTS_COLLECTION = 'alerts';

export type Severity = 'info' | 'warning' | 'critical';

/** What a rule found about a session or a chatter: an alert before it is stored. */
export interface Finding {
  readonly alertId: string;
  readonly ruleId: string;
  readonly ruleVersion: number;
  readonly severity: Severity;
  readonly reason: string;
  readonly labels: readonly string[];
  readonly recommendation: string;
  readonly sessionId: string | null;
  readonly accountId: string | null;
  readonly chatId: string | null;
  readonly chatterId: string | null;
}

export type AlertStatus = 'open' | 'acked' | 'resolved';

/** A stored alert: what the rule found, plus its lifecycle. */
export interface AlertDoc extends Doc, Omit<Finding, 'alertId' | 'severity' | 'reason'> {
  severity: Severity;
  reason: string;
  status: AlertStatus;
  readonly openedAt: number;
  updatedAt: number;
  ackedAt: number | null;
  ackedBy: string | null;
  resolvedAt: number | null;
  /** Why it resolved (intelligence/resolution.ts); absent on alerts resolved before it was kept. */
  resolvedBecause?: string | null;
}
