// GET /api/alerts shows durable alert records merged with alerts evaluated live over waiting
// fans. Ids are stable, so a live alert and its stored record collide by design: the stored
// record wins (it carries the acknowledgement and the history), with the live reason.
import { findingToAlert, type AlertDoc, type AlertStatus, type Intelligence } from './intelligence.js';
import type { Filter } from '../adapters/store/store.js';
import type { Finding } from '../pipeline/alert-doc.js';

export interface MergedAlert extends AlertDoc {
  readonly origin: 'stored' | 'live';
}

const SEVERITY_ORDER = { critical: 0, warning: 1, info: 2 } as const;

export function mergeAlerts(stored: readonly AlertDoc[], live: readonly Finding[], now: number): MergedAlert[] {
  const byId = new Map<string, MergedAlert>();
  for (const f of live) byId.set(f.alertId, { ...findingToAlert(f, now), origin: 'live' });
  for (const a of stored) {
    // A wait goes on growing after its alert was stored: while it is not resolved, the reason,
    // severity and labels are today's (the live evaluation's), the status and history stored.
    const current = a.status === 'resolved' ? undefined : byId.get(a._id);
    byId.set(a._id, current ? { ...a, reason: current.reason, severity: current.severity, labels: current.labels, origin: 'stored' } : { ...a, origin: 'stored' });
  }
  return [...byId.values()].sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] || a.openedAt - b.openedAt || a._id.localeCompare(b._id));
}

export function withStatus(alerts: readonly MergedAlert[], status: AlertStatus | 'all'): MergedAlert[] {
  return status === 'all' ? [...alerts] : alerts.filter((a) => a.status === status);
}

/**
 * Open alerts per chatter among the accounts `inScope` selects, stored and live merged as
 * GET /api/alerts shows them, of the accounts `visible` admits (the scorecard's and its export's
 * `openAlerts`).
 */
export async function openAlertsByChatter(intelligence: Intelligence, now: number, inScope: Filter, visible: (accountId: string | null) => boolean): Promise<Map<string, number>> {
  const [stored, live] = await Promise.all([intelligence.alerts.find({ ...inScope, status: 'open' }), intelligence.liveFindings(now, inScope)]);
  const out = new Map<string, number>();
  for (const a of mergeAlerts(stored, live, now)) if (a.status === 'open' && visible(a.accountId) && a.chatterId) out.set(a.chatterId, (out.get(a.chatterId) ?? 0) + 1);
  return out;
}
