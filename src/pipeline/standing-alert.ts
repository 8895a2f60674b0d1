// An alert about the system rather than a session or a chatter (the pipeline's set-aside alert,
// a disabled alert hook's): tied to no account, raised while its condition holds and resolved
// when it clears, each change announced to the alert hooks in the same write (alert-doc.ts).
import type { DocumentStore } from '../adapters/store/store.js';
import { ALERTS_COLLECTION, announcing, HOOK_OUTBOX, HOOK_PENDING, outboxEntry, type AlertDoc, type AlertWording } from './alert-doc.js';

/** A standing alert is tied to no account, session or chat: its wording is all it has. */
export type StandingAlert = AlertWording;

/**
 * Opens the alert, or keeps it open with today's wording. One that had resolved opens again as
 * a new episode, not acknowledged (an old acknowledgement was of something else).
 */
export async function raiseStandingAlert(store: DocumentStore, a: StandingAlert, now: number): Promise<void> {
  const alerts = store.collection<AlertDoc>(ALERTS_COLLECTION);
  const fields = { ruleId: a.ruleId, ruleVersion: 1, labels: [...a.labels], recommendation: a.recommendation, sessionId: null, accountId: null, chatId: null, chatterId: null };
  const opened = outboxEntry('opened', now, { _id: a.id, severity: a.severity, reason: a.reason, ackedBy: null, ...fields });
  await alerts.updateOne(
    { _id: a.id },
    {
      $set: { severity: a.severity, reason: a.reason, updatedAt: now },
      $setOnInsert: { ...fields, status: 'open', openedAt: now, ackedAt: null, ackedBy: null, resolvedAt: null, [HOOK_OUTBOX]: [opened], [HOOK_PENDING]: true },
    },
    { upsert: true },
  );
  await alerts.updateOne(
    { _id: a.id, status: 'resolved' },
    announcing({ $set: { status: 'open', openedAt: now, resolvedAt: null, resolvedBecause: null, ackedAt: null, ackedBy: null } }, opened),
  );
}

/**
 * Resolves the alert if it is open or acknowledged (`because`, when given, is kept as why);
 * whether it did. Conditional on the alert as read: one changed meanwhile is left for the next
 * settling.
 */
export async function settleStandingAlert(store: DocumentStore, id: string, now: number, because?: string): Promise<boolean> {
  const alerts = store.collection<AlertDoc>(ALERTS_COLLECTION);
  // Read for what the announcement says.
  const current = await alerts.findOne({ _id: id, status: { $in: ['open', 'acked'] } });
  if (!current) return false;
  const r = await alerts.updateOne(
    { _id: id, status: current.status, updatedAt: current.updatedAt },
    announcing({ $set: { status: 'resolved', resolvedAt: now, updatedAt: now, ...(because === undefined ? {} : { resolvedBecause: because }) } }, outboxEntry('resolved', now, current)),
  );
  return r.matched > 0;
}
