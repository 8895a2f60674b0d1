// A stored alert and its collection: its own module so the pipeline's set-aside alert
// (pipeline/set-aside-alert.ts) writes one without importing the intelligence service, which
// imports it back.
import type { Doc } from '../adapters/store/store.js';
import type { Finding, Severity } from './rules.js';

export const ALERTS_COLLECTION = 'alerts';

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
}
