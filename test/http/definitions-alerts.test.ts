// Alerts across a definitions switch (issue 55): an alert stored about a waiting fan names the
// session as the live generation made it. After a switch to a generation that decided the chat
// again (its ids tagged), the alert sweep finds that session gone from the read models served and
// resolves the alert (`session-removed`), and the new generation's session of the same waiting fan
// gets its own alert: a manager sees the fan once, never an alert that can no longer resolve.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageWebhook } from '../../src/demo/platform-bodies.js';
import { startHarness, type Harness } from '../support/app-harness.js';
import { eventually } from '../support/wait.js';

const A = 'acct_a1e47000000000000000000000000055';
const ADMIN = 'admin-token-for-definitions-alerts';

interface Alert { id: string; ruleId: string; status: string; sessionId: string | null; chatId: string | null; resolvedBecause: string | null; origin: string }

describe('alerts across a definitions switch', () => {
  let h: Harness;
  const call = async <T>(method: string, url: string, body?: unknown) => h.call<T>(method, url, { token: ADMIN, ...(body !== undefined ? { body } : {}) });
  const stored = async (): Promise<Alert[]> => (await call<{ items: Alert[] }>('GET', '/api/alerts?status=all&limit=500')).body.items.filter((a) => a.origin === 'stored' && a.ruleId === 'sla.fan-waiting' && a.chatId === '7401');
  const until = <T>(what: string, probe: () => Promise<T | undefined>): Promise<T> => eventually(probe, 20_000, what);

  beforeAll(async () => {
    h = await startHarness({ ADMIN_TOKEN: ADMIN, SESSION_IDLE_SEC: '1800', ALLOWED_LATENESS_SEC: '60', SLA_THRESHOLD_SEC: '60', ALERT_SWEEP_SEC: '1' });
    // A fan who wrote ten minutes ago and waits: past the one-minute threshold.
    await h.deliver([{ key: 'evt_alert_gen_1', body: messageWebhook({ accountId: A, fanId: '7401', messageId: '9740001', createdAt: new Date(Date.now() - 600_000).toISOString(), text: 'anyone?', direction: 'received' }) }]);
    await h.settled();
  }, 60_000);
  afterAll(async () => { await h?.stop(); });

  it('the old generation\'s alert resolves as session-removed, and the new generation\'s session has its own', async () => {
    const before = await until('an alert stored for the waiting fan', async () => (await stored()).find((a) => a.status === 'open'));
    expect(before.sessionId).toMatch(/:1$/);

    const started = await call<{ generation: number }>('POST', '/api/admin/definitions/generations', { sessionIdleSec: 900 });
    expect(started.status, started.text).toBe(202);
    await until('the preview ready', async () => ((await call<{ status: string }>('GET', `/api/admin/definitions/generations/${started.body.generation}`)).body.status === 'ready' ? true : undefined));
    const applied = await call('POST', `/api/admin/definitions/generations/${started.body.generation}/apply`);
    expect(applied.status, applied.text).toBe(200);

    const resolved = await until('the old alert resolved', async () => (await stored()).find((a) => a.id === before.id && a.status === 'resolved'));
    expect(resolved.resolvedBecause).toBe('session-removed');
    const fresh = await until('an alert for the new generation\'s session', async () => (await stored()).find((a) => a.status === 'open' && a.sessionId?.endsWith(`~g${started.body.generation}`) === true));
    expect(fresh.sessionId).toBe(`${before.sessionId}~g${started.body.generation}`);
    expect((await stored()).filter((a) => a.status === 'open'), 'the fan is on the list once').toHaveLength(1);
  }, 60_000);
});
