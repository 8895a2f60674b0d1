// The alert a disabled hook raises, stored with the others (so the floor, GET /api/alerts and the
// other hooks hear of it) and resolved when an admin enables the hook again. Tied to no account.
import type { DocumentStore } from '../adapters/store/store.js';
import { raiseStandingAlert, settleStandingAlert } from '../pipeline/standing-alert.js';

export const HOOK_DISABLED_RULE = 'alert-hook.disabled';
export const hookAlertId = (hookId: string): string => `${HOOK_DISABLED_RULE}:${hookId}`;

export async function openHookAlert(store: DocumentStore, hookId: string, url: string, because: string, now: number): Promise<void> {
  const origin = (() => { try { return new URL(url).origin; } catch { return 'its URL'; } })();
  await raiseStandingAlert(store, {
    id: hookAlertId(hookId), ruleId: HOOK_DISABLED_RULE, severity: 'warning', labels: ['alert-hooks'],
    reason: `alert hook ${hookId} (${origin}) was disabled: ${because}`,
    recommendation: `Check the receiver at ${origin} (GET /api/admin/alert-hooks/${hookId}/deliveries shows the failures), then enable the hook again (POST /api/admin/alert-hooks/${hookId}/enable)`,
  }, now);
}

export async function resolveHookAlert(store: DocumentStore, hookId: string, now: number): Promise<void> {
  await settleStandingAlert(store, hookAlertId(hookId), now, 'condition-cleared');
}
