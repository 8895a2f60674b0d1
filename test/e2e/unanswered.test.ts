// A fan nobody answers never vanishes. Forty minutes into the wait (past the 30-minute idle
// gap, with the clock ticking) the session is still open, awaiting, first in the priority
// inbox and a breach; once UNANSWERED_CLOSE_SEC has passed by the clock it closes as
// `unanswered`, the SLA report counts it as a breach and as missed, its alert resolves saying
// so, and the reply that finally comes opens nothing. On both deployments, through inject().
import { afterAll, describe, expect, it } from 'vitest';
import { kafkaMongoEnv, startHarness, type Harness } from '../support/app-harness.js';
import { DEPLOYMENTS, type Deployment } from '../support/deployments.js';
import { messageBody } from '../support/platform.js';
import { eventually } from '../support/wait.js';

const ADMIN = 'admin-token-for-unanswered-00000';
const ACCOUNT = 'acct_0000000000000000000000000000ua00';
const MIN = 60_000;

interface SessionRow { id: string; status: string; awaiting: boolean; waitSec: number | null; grade: string | null; closeReason: string | null; closedAt: string | null; priorityReasons: { kind: string }[] }
interface Sla { sessions: number; breaches: number; missed: number; pending: number; withinThreshold: number }
interface Alert { id: string; ruleId: string; status: string; sessionId: string | null; resolvedBecause: string | null }

async function tick(app: Harness, at: number): Promise<void> {
  await app.tick(at);
  await app.settled();
}

describe.each(DEPLOYMENTS)('an unanswered fan on %s', (kind: Deployment) => {
  const running: Harness[] = [];
  afterAll(async () => {
    await Promise.all(running.map((a) => a.stop()));
  });

  it('stays awaiting and first in the inbox past the idle gap, then closes unanswered at the limit, missed and breached; the late reply opens nothing', async () => {
    const app = await startHarness({ ...(kind === 'kafka+mongo' ? await kafkaMongoEnv() : {}), ADMIN_TOKEN: ADMIN, ALERT_SWEEP_SEC: '0', UNANSWERED_CLOSE_SEC: '86400' });
    running.push(app);
    const now = Date.now();
    const fan = (fanId: number, messageId: number, agoMs: number, direction: 'received' | 'sent' = 'received') =>
      messageBody({ accountId: ACCOUNT, fanId, messageId, createdAt: new Date(now - agoMs).toISOString(), direction, text: direction === 'received' ? 'anyone there?' : 'sorry!' });
    // Fan 1 has waited 40 minutes, fan 2 ten; fan 3 was answered and then went quiet.
    await app.deliver([
      { key: 'evt_ua_1', body: fan(101, 9_100_001, 40 * MIN) },
      { key: 'evt_ua_2', body: fan(102, 9_100_002, 10 * MIN) },
      { key: 'evt_ua_3', body: fan(103, 9_100_003, 45 * MIN) },
      { key: 'evt_ua_4', body: fan(103, 9_100_004, 44 * MIN, 'sent') },
    ]);
    await app.settled();
    // A tick just past the lateness after the arrivals (a tick settles a chat only once its
    // arrivals are that old): fan 1's idle deadline, 10 minutes ago, is long past.
    await tick(app, Date.now() + (app.config.allowedLatenessSec + 1) * 1000);
    const s1 = `${ACCOUNT}:101:1`;
    const s3 = `${ACCOUNT}:103:1`;

    const inbox = (await app.call<{ items: SessionRow[] }>('GET', `/api/sessions?accountId=${ACCOUNT}`)).body.items;
    expect(inbox[0]).toMatchObject({ id: s1, status: 'open', awaiting: true, grade: 'breached' });
    expect(inbox[0]?.waitSec).toBeGreaterThanOrEqual(40 * 60);
    expect(inbox[0]?.priorityReasons.map((r) => r.kind)).toEqual(['waiting', 'past-sla', 'open-alerts']);
    expect((await app.call<{ items: SessionRow[] }>('GET', `/api/sessions?accountId=${ACCOUNT}&status=open`)).body.items.map((s) => s.id).sort()).toEqual([s1, `${ACCOUNT}:102:1`]);
    // The answered one closed as idle, as before.
    const answered = (await app.call<{ items: SessionRow[] }>('GET', `/api/sessions?accountId=${ACCOUNT}&status=closed`)).body.items;
    expect(answered.map((s) => [s.id, s.closeReason])).toEqual([[s3, 'idle']]);
    let sla = (await app.call<Sla>('GET', `/api/sla?accountId=${ACCOUNT}&thresholdSec=300`)).body;
    expect(sla).toMatchObject({ sessions: 3, breaches: 2, missed: 0, withinThreshold: 1, pending: 0 });
    const analysis = (await app.call<{ metrics: { slaOutcome: string } }>('GET', `/api/sessions/${encodeURIComponent(s1)}/analysis`)).body;
    expect(analysis.metrics.slaOutcome).toBe('breach');

    // The SLA alert is stored open by a run of the rules over the session, and holds while the fan waits.
    const sweep = () => app.call('POST', '/api/admin/intelligence/run', { token: ADMIN, body: { sessionId: s1 } });
    const alertsOf = async (sessionId: string) => (await app.call<{ items: Alert[] }>('GET', `/api/alerts?status=all&sessionId=${encodeURIComponent(sessionId)}`)).body.items;
    expect((await sweep()).status).toBe(200);
    expect((await alertsOf(s1)).find((a) => a.ruleId === 'sla.fan-waiting')).toMatchObject({ status: 'open', resolvedBecause: null });

    // A day and an hour on by the clock: both waiting fans reached the unanswered limit.
    await tick(app, now + 25 * 60 * MIN);
    const closed = (await app.call<{ items: SessionRow[] }>('GET', `/api/sessions?accountId=${ACCOUNT}&status=closed`)).body.items;
    const byId = new Map(closed.map((s) => [s.id, s]));
    expect(byId.get(s1)).toMatchObject({ closeReason: 'unanswered', awaiting: true, closedAt: new Date(now - 40 * MIN + 24 * 60 * MIN).toISOString() });
    expect(byId.get(`${ACCOUNT}:102:1`)).toMatchObject({ closeReason: 'unanswered' });
    sla = (await app.call<Sla>('GET', `/api/sla?accountId=${ACCOUNT}&thresholdSec=300`)).body;
    expect(sla).toMatchObject({ sessions: 3, breaches: 2, missed: 2, withinThreshold: 1, pending: 0 });
    expect((await sweep()).status).toBe(200);
    expect((await alertsOf(s1)).find((a) => a.ruleId === 'sla.fan-waiting')).toMatchObject({ status: 'resolved', resolvedBecause: 'closed-unanswered' });

    // The reply that finally comes is recorded, in no session, and opens none.
    await app.deliver([{ key: 'evt_ua_5', body: fan(101, 9_100_005, MIN, 'sent') }]);
    await app.settled();
    const chat = (await app.call<{ sessions: SessionRow[] }>('GET', `/api/chats?chatId=101&accountId=${ACCOUNT}`)).body;
    expect(chat.sessions.map((s) => [s.id, s.closeReason])).toEqual([[s1, 'unanswered']]);
    await eventually(async () => {
      const again = (await app.call<Sla>('GET', `/api/sla?accountId=${ACCOUNT}&thresholdSec=300`)).body;
      return again.missed === 2 && again.sessions === 3 ? true : undefined;
    }, 10_000, 'the report unchanged by the late reply');
  });
});
