// The merge rule of GET /api/alerts: live and stored alerts share ids; the stored one wins, with the live reason.
import { describe, expect, it } from 'vitest';
import { mergeAlerts, withStatus } from '../../src/intelligence/alert-merge.js';
import { findingToAlert } from '../../src/intelligence/intelligence.js';
import type { Finding } from '../../src/pipeline/alert-doc.js';

const finding = (id: string, severity: Finding['severity']): Finding => ({
  alertId: id, ruleId: id.split(':')[0] ?? id, ruleVersion: 1, severity, reason: `reason ${id}`, labels: [], recommendation: 'do it',
  sessionId: 's1', accountId: 'a', chatId: '1', chatterId: null,
});

describe('alert merge', () => {
  it('keeps one alert per id, the stored record winning, critical first', () => {
    const storedAcked = { ...findingToAlert(finding('sla.fan-waiting:s1:1', 'warning'), 1000), reason: 'waited 4 min', status: 'acked' as const, ackedAt: 2000, ackedBy: 'admin' };
    const live = [finding('sla.fan-waiting:s1:1', 'critical'), finding('vip.waiting:s1:1', 'critical')];
    const merged = mergeAlerts([storedAcked], live, 5000);
    // The stored record keeps its status and history; the wait it reports is today's: the live
    // reason and severity (it was at risk when stored, it is breached now). Critical first, oldest first.
    expect(merged.map((a) => [a._id, a.origin, a.status, a.severity, a.reason, a.openedAt])).toEqual([
      ['sla.fan-waiting:s1:1', 'stored', 'acked', 'critical', 'reason sla.fan-waiting:s1:1', 1000],
      ['vip.waiting:s1:1', 'live', 'open', 'critical', 'reason vip.waiting:s1:1', 5000],
    ]);
    // A resolved record is history: it keeps what it said.
    const resolved = { ...storedAcked, status: 'resolved' as const, reason: 'waited 5 min', severity: 'warning' as const };
    expect(mergeAlerts([resolved], live, 5000).find((a) => a._id === resolved._id)).toMatchObject({ reason: 'waited 5 min', severity: 'warning', origin: 'stored' });
    expect(withStatus(merged, 'open').map((a) => a._id)).toEqual(['vip.waiting:s1:1']);
    expect(withStatus(merged, 'acked').map((a) => a._id)).toEqual(['sla.fan-waiting:s1:1']);
    expect(withStatus(merged, 'all')).toHaveLength(2);
  });
});
