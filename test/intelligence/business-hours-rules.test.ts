// The wait rules on an account with business hours measure the wait in open hours: a fan who
// wrote Friday 16:55 (Berlin office hours, 09:00–17:00 on weekdays) has waited 5 minutes by
// Monday 09:00, not 64 hours. The rules take the measure as a parameter and stay pure.
import { describe, expect, it } from 'vitest';
import { BusinessClock, businessWaitClock, WALL_CLOCK, type BusinessHours } from '../../src/domain/business-hours.js';
import { DEFAULT_RULE_SETTINGS, evaluateSession, type SessionFacts } from '../../src/intelligence/rules.js';

const office: BusinessHours = {
  timezone: 'Europe/Berlin',
  weekly: { mon: [['09:00', '17:00']], tue: [['09:00', '17:00']], wed: [['09:00', '17:00']], thu: [['09:00', '17:00']], fri: [['09:00', '17:00']] },
  holidays: [],
};
const SCHEDULED = 'acct_hours';
const WALL = 'acct_wall';
const waits = businessWaitClock(new Map([[SCHEDULED, new BusinessClock(office)]]));
const settings = { ...DEFAULT_RULE_SETTINGS, thresholdSec: 600 };

// Friday 2026-11-13 16:55 in Berlin.
const SINCE = Date.parse('2026-11-13T15:55:00Z');
const berlin = (iso: string) => Date.parse(iso);

const waiting = (accountId: string, extra: Partial<SessionFacts> = {}): SessionFacts => ({
  sessionId: `${accountId}:77:1`, accountId, chatId: '77', status: 'open', openedAt: SINCE, awaiting: true, waitingSince: SINCE,
  replyCount: 1, lastHumanChatterId: 'ana', fanSpendCents: 0, closesAt: null, ...extra,
});
const sla = (s: SessionFacts, now: number, clock = waits) => evaluateSession(s, now, settings, true, clock).filter((f) => f.ruleId === 'sla.fan-waiting');

describe('wait rules on business time', () => {
  it('over the weekend: no alert until the open minutes add up, whatever the wall clock says', () => {
    // Monday 08:59: 5 business minutes (Friday 16:55–17:00), under 80% of 10 minutes.
    const monday = berlin('2026-11-16T07:59:00Z');
    expect(sla(waiting(SCHEDULED), monday)).toEqual([]);
    // The same wait on the wall clock (no schedule): 64 hours, critical.
    expect(sla(waiting(WALL), monday)).toMatchObject([{ severity: 'critical' }]);
    expect(evaluateSession(waiting(SCHEDULED), monday, settings).map((f) => f.ruleId), 'the default measure is the wall clock').toContain('sla.fan-waiting');
    expect(sla(waiting(SCHEDULED), monday, WALL_CLOCK), 'measured on the wall clock').toMatchObject([{ severity: 'critical' }]);
  });

  it('pre-breach at 80% of the threshold in open minutes, breach past it, and the reason says so', () => {
    // Monday 09:03: 8 business minutes = 480 s, 80% of 600: at risk.
    const atRisk = sla(waiting(SCHEDULED), berlin('2026-11-16T08:03:00Z'));
    expect(atRisk).toMatchObject([{ severity: 'warning', labels: ['awaiting-reply', 'sla-at-risk'] }]);
    expect(atRisk[0]?.reason).toBe('Fan 77 has waited 8m 00s in business hours; the 10m 00s SLA is close.');
    // 09:02:59: 479 s, not yet.
    expect(sla(waiting(SCHEDULED), berlin('2026-11-16T08:02:59Z'))).toEqual([]);
    // 09:05:01: 601 s, breached.
    const breached = sla(waiting(SCHEDULED), berlin('2026-11-16T08:05:01Z'));
    expect(breached).toMatchObject([{ severity: 'critical', alertId: atRisk[0]?.alertId }]);
    expect(breached[0]?.reason).toBe('Fan 77 has waited 10m 01s in business hours for a reply, past the 10m 00s SLA.');
  });

  it('vip.waiting counts open minutes too', () => {
    // A big spender who wrote Friday 16:59.
    const friday = berlin('2026-11-13T15:59:00Z');
    const vip = (now: number) => evaluateSession(waiting(SCHEDULED, { fanSpendCents: 50_000, waitingSince: friday }), now, settings, true, waits).filter((f) => f.ruleId === 'vip.waiting');
    // Saturday noon: one open minute, under the 2-minute VIP threshold (on the wall clock: 19 hours).
    expect(vip(berlin('2026-11-14T11:00:00Z'))).toEqual([]);
    // Monday 09:02: three open minutes.
    const fired = vip(berlin('2026-11-16T08:02:00Z'));
    expect(fired).toMatchObject([{ severity: 'critical' }]);
    expect(fired[0]?.reason).toContain('has waited 3m 00s in business hours');
  });
});
