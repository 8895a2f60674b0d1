// The alert a disabled hook raises, stored with the others (so the floor, GET /api/alerts and the
// other hooks hear of it) and resolved when an admin enables the hook again. Tied to no account.
import type { DocumentStore } from '../adapters/store/store.js';
import { ALERTS_COLLECTION, announcing, HOOK_OUTBOX, HOOK_PENDING, outboxEntry, type AlertDoc } from '../pipeline/alert-doc.js';

export const HOOK_DISABLED_RULE = 'alert-hook.disabled';
export const hookAlertId = (hookId: string): string => `${HOOK_DISABLED_RULE}:${hookId}`;

export async function openHookAlert(store: DocumentStore, hookId: string, url: string, because: string, now: number): Promise<void> {
  const alerts = store.collection<AlertDoc>(ALERTS_COLLECTION);
  const _id = hookAlertId(hookId);
  const origin = (() => { try { return new URL(url).origin; } catch { return 'its URL'; } })();
  const reason = `alert hook ${hookId} (${origin}) was disabled: ${because}`;
  const fields = {
    ruleId: HOOK_DISABLED_RULE, ruleVersion: 1, labels: ['alert-hooks'],
    recommendation: `Check the receiver at ${origin} (GET /api/admin/alert-hooks/${hookId}/deliveries shows the failures), then enable the hook again (POST /api/admin/alert-hooks/${hookId}/enable)`,
    sessionId: null, accountId: null, chatId: null, chatterId: null,
  };
  const opened = outboxEntry('opened', now, { _id, severity: 'warning', reason, ackedBy: null, ...fields });
  await alerts.updateOne(
    { _id },
    { $set: { severity: 'warning', reason, updatedAt: now }, $setOnInsert: { ...fields, status: 'open', openedAt: now, ackedAt: null, ackedBy: null, resolvedAt: null, [HOOK_OUTBOX]: [opened], [HOOK_PENDING]: true } },
    { upsert: true },
  );
  await alerts.updateOne({ _id, status: 'resolved' }, announcing({ $set: { status: 'open', openedAt: now, resolvedAt: null, resolvedBecause: null, ackedAt: null, ackedBy: null } }, opened));
}

export async function resolveHookAlert(store: DocumentStore, hookId: string, now: number): Promise<void> {
  const alerts = store.collection<AlertDoc>(ALERTS_COLLECTION);
  const current = await alerts.findOne({ _id: hookAlertId(hookId), status: { $in: ['open', 'acked'] } });
  if (!current) return;
  await alerts.updateOne(
    { _id: current._id, status: current.status, updatedAt: current.updatedAt },
    announcing({ $set: { status: 'resolved', resolvedAt: now, resolvedBecause: 'condition-cleared', updatedAt: now } }, outboxEntry('resolved', now, current)),
  );
}
