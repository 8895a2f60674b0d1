// One pipeline alert while any record is set aside, stored with the other alerts (`alerts`),
// so operators see it where they see those: GET /api/alerts, the floor and `convops_alerts_open`.
// It is tied to no account, session or chat (all null), so only callers who see every account
// (the admin token, unscoped keys, the open floor) see it; it names no fan and quotes no text.
//
// Its state is a function of the set-aside collection, read when it is reconciled: open (with
// the count in its reason) while any record is kept, resolved once none is. It is reconciled
// where that changes: after a round that set records aside (processor, projector), after an
// admin drops or retries one, after a purge, and on every alert sweep, which also settles a
// reconcile that raced another (one read the count before the other's write).
import type { DocumentStore } from '../adapters/store/store.js';
import { ALERTS_COLLECTION, announcing, HOOK_OUTBOX, HOOK_PENDING, outboxEntry, type AlertDoc } from './alert-doc.js';
import { SET_ASIDE_COLLECTION } from './set-aside.js';

export const SET_ASIDE_ALERT_ID = 'pipeline.set-aside';

export type SetAsideAlertState = 'open' | 'resolved' | 'none';

/** Opens, updates or resolves the set-aside alert to match what the store keeps now; answers its state. */
export async function reconcileSetAsideAlert(store: DocumentStore, now: number = Date.now()): Promise<SetAsideAlertState> {
  const kept = await store.collection(SET_ASIDE_COLLECTION).countDocuments();
  const alerts = store.collection<AlertDoc>(ALERTS_COLLECTION);
  if (kept === 0) {
    // Read for what the announcement says; the write is conditional on the status read.
    const current = await alerts.findOne({ _id: SET_ASIDE_ALERT_ID, status: { $in: ['open', 'acked'] } });
    if (!current) return 'none';
    const r = await alerts.updateOne(
      { _id: SET_ASIDE_ALERT_ID, status: current.status },
      announcing({ $set: { status: 'resolved', resolvedAt: now, updatedAt: now } }, outboxEntry('resolved', now, current)),
    );
    return r.matched > 0 ? 'resolved' : 'none';
  }
  const reason = `${kept} record${kept === 1 ? ' is' : 's are'} set aside: processing threw on ${kept === 1 ? 'it' : 'them'}, or writing what ${kept === 1 ? 'it' : 'they'} produced failed the same way twice, and ${kept === 1 ? 'its' : 'their'} effects are not in the read models`;
  const labels = ['pipeline', 'set-aside'];
  const recommendation = 'Inspect them (GET /api/admin/set-aside); once the cause is dealt with, retry each (POST /api/admin/set-aside/:id/retry) or drop it (DELETE /api/admin/set-aside/:id)';
  const onInsert: Omit<AlertDoc, '_id' | 'severity' | 'reason' | 'updatedAt'> = {
    ruleId: SET_ASIDE_ALERT_ID, ruleVersion: 1, labels, recommendation,
    sessionId: null, accountId: null, chatId: null, chatterId: null,
    status: 'open', openedAt: now, ackedAt: null, ackedBy: null, resolvedAt: null,
  };
  const opened = outboxEntry('opened', now, {
    _id: SET_ASIDE_ALERT_ID, ruleId: SET_ASIDE_ALERT_ID, severity: 'warning', reason, recommendation, labels,
    accountId: null, sessionId: null, chatId: null, chatterId: null, ackedBy: null,
  });
  await alerts.updateOne(
    { _id: SET_ASIDE_ALERT_ID },
    { $set: { severity: 'warning', reason, updatedAt: now }, $setOnInsert: { ...onInsert, [HOOK_OUTBOX]: [opened], [HOOK_PENDING]: true } },
    { upsert: true },
  );
  // Resolved before: a new episode, open again and not acknowledged (an old acknowledgement was of other records).
  await alerts.updateOne(
    { _id: SET_ASIDE_ALERT_ID, status: 'resolved' },
    announcing({ $set: { status: 'open', openedAt: now, resolvedAt: null, ackedAt: null, ackedBy: null } }, opened),
  );
  return 'open';
}
