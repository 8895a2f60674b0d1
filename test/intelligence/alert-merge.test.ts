// The merge rule of GET /api/alerts: live and stored alerts share ids; the stored one wins.
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
    const storedAcked = { ...findingToAlert(finding('sla.fan-waiting:s1:1', 'warning'), 1000), status: 'acked' as const, ackedAt: 2000, ackedBy: 'admin' };
    const live = [finding('sla.fan-waiting:s1:1', 'critical'), finding('vip.waiting:s1:1', 'critical')];
    const merged = mergeAlerts([storedAcked], live, 5000);
    expect(merged.map((a) => [a._id, a.origin, a.status])).toEqual([
      ['vip.waiting:s1:1', 'live', 'open'],
      ['sla.fan-waiting:s1:1', 'stored', 'acked'],
    ]);
    expect(withStatus(merged, 'open').map((a) => a._id)).toEqual(['vip.waiting:s1:1']);
    expect(withStatus(merged, 'acked').map((a) => a._id)).toEqual(['sla.fan-waiting:s1:1']);
    expect(withStatus(merged, 'all')).toHaveLength(2);
  });
});
