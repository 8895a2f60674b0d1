// What an alert is (a finding of a rule of intelligence/rules.ts, or the pipeline's set-aside
// alert) and how it is stored, with its lifecycle, in `alerts`. In pipeline/, below intelligence/,
// so the set-aside alert (set-aside-alert.ts) the processor and the projector reconcile writes
// one without importing intelligence/, which reads the projector's read models.
import { createHash } from 'node:crypto';
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
  /** Transitions not yet handed to the alert hooks (see OutboxEntry). */
  hookOutbox?: OutboxEntry[];
  hookPending?: boolean;
}

/** What alert hooks announce: an alert opened (or opened again), was acknowledged, or resolved. */
export type AlertTransition = 'opened' | 'acked' | 'resolved';
export const ALERT_TRANSITIONS: readonly AlertTransition[] = ['opened', 'acked', 'resolved'];

/** What an alert says, whatever it is about. */
export interface AlertWording {
  readonly id: string;
  readonly ruleId: string;
  readonly severity: Severity;
  readonly reason: string;
  readonly recommendation: string;
  readonly labels: readonly string[];
}

/**
 * One transition waiting to be handed to the alert hooks, kept on the alert itself
 * (`hookOutbox`) and written by the same single-document write that changes the alert: the
 * change and its announcement land together or not at all, on MongoDB as on the embedded
 * store, with no transaction. The hook dispatcher (alert-hooks/) copies each entry into one
 * delivery per matching hook and then removes it.
 */
export interface OutboxEntry {
  /** The webhook-id of every delivery of this transition (the same on every retry). */
  readonly id: string;
  readonly event: AlertTransition;
  readonly at: number;
  /** The alert as the transition left it, so a later change does not rewrite what this one said. */
  readonly alert: AlertWording & {
    readonly accountId: string | null;
    readonly sessionId: string | null;
    readonly chatId: string | null;
    readonly chatterId: string | null;
    readonly ackedBy: string | null;
  };
}

/** The fields an alert write adds to carry one transition to the hooks (`$push` them). */
export const HOOK_OUTBOX = 'hookOutbox';
/** Set with every entry, so the dispatcher finds pending alerts through an index, not a scan. */
export const HOOK_PENDING = 'hookPending';

export function outboxEntry(event: AlertTransition, at: number, alert: Pick<AlertDoc, '_id' | 'ruleId' | 'severity' | 'reason' | 'recommendation' | 'labels' | 'accountId' | 'sessionId' | 'chatId' | 'chatterId' | 'ackedBy'>): OutboxEntry {
  return {
    id: `msg_${createHash('sha256').update(`${alert._id}\u0000${event}\u0000${at}`).digest('base64url').slice(0, 27)}`,
    event, at,
    alert: {
      id: alert._id, ruleId: alert.ruleId, severity: alert.severity, reason: alert.reason, recommendation: alert.recommendation, labels: [...alert.labels],
      accountId: alert.accountId, sessionId: alert.sessionId, chatId: alert.chatId, chatterId: alert.chatterId, ackedBy: alert.ackedBy,
    },
  };
}

/** `update` (a `$set` and whatever else) extended to also announce `entry`, in the same write. */
export function announcing(update: { readonly $set: Record<string, unknown> } & Record<string, unknown>, entry: OutboxEntry): Record<string, unknown> {
  return { ...update, $set: { ...update.$set, [HOOK_PENDING]: true }, $push: { [HOOK_OUTBOX]: entry } };
}
