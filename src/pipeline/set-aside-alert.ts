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
import { raiseStandingAlert, settleStandingAlert } from './standing-alert.js';
import { SET_ASIDE_COLLECTION } from './set-aside.js';

export const SET_ASIDE_ALERT_ID = 'pipeline.set-aside';

export type SetAsideAlertState = 'open' | 'resolved' | 'none';

/** Opens, updates or resolves the set-aside alert to match what the store keeps now; answers its state. */
export async function reconcileSetAsideAlert(store: DocumentStore, now: number = Date.now()): Promise<SetAsideAlertState> {
  const kept = await store.collection(SET_ASIDE_COLLECTION).countDocuments();
  if (kept === 0) return (await settleStandingAlert(store, SET_ASIDE_ALERT_ID, now)) ? 'resolved' : 'none';
  await raiseStandingAlert(store, {
    id: SET_ASIDE_ALERT_ID, ruleId: SET_ASIDE_ALERT_ID, severity: 'warning', labels: ['pipeline', 'set-aside'],
    reason: `${kept} record${kept === 1 ? ' is' : 's are'} set aside: processing threw on ${kept === 1 ? 'it' : 'them'}, or writing what ${kept === 1 ? 'it' : 'they'} produced failed the same way twice, and ${kept === 1 ? 'its' : 'their'} effects are not in the read models`,
    recommendation: 'Inspect them (GET /api/admin/set-aside); once the cause is dealt with, retry each (POST /api/admin/set-aside/:id/retry) or drop it (DELETE /api/admin/set-aside/:id)',
  }, now);
  return 'open';
}
