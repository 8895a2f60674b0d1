// What the pages show is true at the moment they are read. A months-old sample, or a chat whose
// idle gap passed before the tick came, is shown closed as the tick will close it: no wait of
// days on the floor, in stats or in the inbox, and no alert for it. The inbox says why each
// waiting fan is where it is; a stored alert's reason is today's wait; the public floor says
// "×2" rather than repeating a line. Through inject(), on both deployments (the store
// evaluates the deadline conditions).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALERTS_COLLECTION } from '../../src/pipeline/alert-doc.js';
import { kafkaMongoEnv, startHarness, type Harness } from '../support/app-harness.js';
import { DEPLOYMENTS, type Deployment } from '../support/deployments.js';
import { messageBody } from '../support/platform.js';

const ADMIN = 'admin-token-for-live-reasons-000';
const ACCOUNT = 'acct_0000000000000000000000000000lr00';
const MIN = 60_000;
const DAY = 86_400_000;

interface Reason { kind: string; text: string }
interface SessionRow { id: string; status: string; awaiting: boolean; waitSec: number; closeReason: string | null; closedAt: string | null; priorityReasons: Reason[] }
interface Alert { id: string; ruleId: string; status: string; sessionId: string | null; reason: string; severity: string; count?: number; accountId?: string | null }
interface Floor { totals: { open: number; awaiting: number; longestWaitSec: number; breached: number }; topAlerts: Alert[]; view: string }

describe.each(DEPLOYMENTS)('pages true to the clock on %s', (kind: Deployment) => {
  let app: Harness;
  // Set when this deployment's data goes in, not when the file is collected: the other
  // deployment's tests run in between.
  let now = 0;
  const at = (agoMs: number) => new Date(now - agoMs).toISOString();
  const fan = (fanId: number, messageId: number, agoMs: number, spendDollars?: number) => {
    const body = JSON.parse(messageBody({ accountId: ACCOUNT, fanId, messageId, createdAt: at(agoMs), direction: 'received', text: 'hello?' })) as { payload: Record<string, unknown> };
    if (spendDollars !== undefined) body.payload.fanData = { spending: { total: spendDollars } };
    return JSON.stringify(body);
  };
  const reply = (fanId: number, messageId: number, agoMs: number) => messageBody({ accountId: ACCOUNT, fanId, messageId, createdAt: at(agoMs), direction: 'sent', text: 'here!' });
  const rows = async (query: string) => (await app.call<{ items: SessionRow[] }>('GET', `/api/sessions?accountId=${ACCOUNT}${query}`, { token: ADMIN })).body.items;

  beforeAll(async () => {
    now = Date.now();
    app = await startHarness({ ...(kind === 'kafka+mongo' ? await kafkaMongoEnv() : {}), ADMIN_TOKEN: ADMIN, ALERT_SWEEP_SEC: '0' }, { driven: kind !== 'kafka+mongo' });
    await app.deliver([
      // A stale sample: a fan unanswered for three days, and a chat answered two hours ago.
      { key: 'evt_lr_1', body: fan(201, 9_200_001, 3 * DAY) },
      { key: 'evt_lr_2', body: fan(202, 9_200_002, 2 * 60 * MIN) },
      { key: 'evt_lr_3', body: reply(202, 9_200_003, 119 * MIN) },
      // Live: a fan waiting 40 minutes, a big spender waiting 20, a fan waiting 10.
      { key: 'evt_lr_4', body: fan(203, 9_200_004, 40 * MIN) },
      { key: 'evt_lr_5', body: fan(204, 9_200_005, 20 * MIN, 500) },
      { key: 'evt_lr_6', body: fan(205, 9_200_006, 10 * MIN) },
    ]);
    await app.settled();
  }, 60_000);
  afterAll(async () => { await app?.stop(); });

  it('shows history whose deadline has passed as closed, before any tick: no wait of days anywhere', async () => {
    const byId = new Map((await rows('&sort=opened&limit=50')).map((s) => [s.id, s]));
    expect(byId.get(`${ACCOUNT}:201:1`)).toMatchObject({ status: 'closed', closeReason: 'unanswered', closedAt: at(3 * DAY - DAY), waitSec: 0, priorityReasons: [] });
    expect(byId.get(`${ACCOUNT}:202:1`)).toMatchObject({ status: 'closed', closeReason: 'idle', closedAt: at(119 * MIN - 30 * MIN) });
    expect((await rows('&status=open')).map((s) => s.id).sort()).toEqual([203, 204, 205].map((f) => `${ACCOUNT}:${f}:1`));
    expect((await rows('&status=closed')).map((s) => s.id).sort()).toEqual([201, 202].map((f) => `${ACCOUNT}:${f}:1`));
    // The inbox lists the stale ones after the waiting fans, closed.
    expect((await rows('')).map((s) => [s.id, s.status]).slice(3).sort()).toEqual([[`${ACCOUNT}:201:1`, 'closed'], [`${ACCOUNT}:202:1`, 'closed']]);

    const stats = (await app.call<{ openSessions: number; awaitingReply: number; longestWaitSec: number }>('GET', '/api/stats', { token: ADMIN })).body;
    expect(stats).toMatchObject({ openSessions: 3, awaitingReply: 3 });
    expect(stats.longestWaitSec).toBeLessThan(41 * 60);
    const floor = (await app.call<Floor>('GET', '/api/floor', { token: ADMIN })).body;
    expect(floor.totals).toMatchObject({ open: 3, awaiting: 3 });
    expect(floor.totals.longestWaitSec).toBeGreaterThanOrEqual(40 * 60);
    expect(floor.totals.longestWaitSec).toBeLessThan(41 * 60);
    const alerts = (await app.call<{ items: Alert[] }>('GET', '/api/alerts?status=all&limit=500', { token: ADMIN })).body.items;
    expect(alerts.filter((a) => a.sessionId === `${ACCOUNT}:201:1` || a.sessionId === `${ACCOUNT}:202:1`)).toEqual([]);
  });

  it('says why each waiting fan is where it is in the inbox', async () => {
    const inbox = await rows('&awaiting=1');
    // The big spender's head start (30 minutes) puts them above the fan waiting 40.
    expect(inbox.map((s) => s.id)).toEqual([204, 203, 205].map((f) => `${ACCOUNT}:${f}:1`));
    const kinds = inbox.map((s) => s.priorityReasons.map((r) => r.kind));
    expect(kinds[0]).toEqual(['waiting', 'past-sla', 'spend', 'open-alerts']);
    expect(kinds[1]).toEqual(['waiting', 'past-sla', 'open-alerts']);
    expect(inbox[1]?.priorityReasons[0]?.text).toMatch(/^waiting 40m \d\ds$/);
    expect(inbox[0]?.priorityReasons.find((r) => r.kind === 'spend')?.text).toMatch(/^ranked as if waiting 50m \d\ds: the fan has spent \$500\.00 \(\+30m 00s\)$/);
  });

  it('gives a stored alert the wait as it is now, not as it was when stored', async () => {
    const s = `${ACCOUNT}:203:1`;
    expect((await app.call('POST', '/api/admin/intelligence/run', { token: ADMIN, body: { sessionId: s } })).status).toBe(200);
    const id = `sla.fan-waiting:${s}:${Date.parse(at(40 * MIN))}`;
    expect(await app.store.collection(ALERTS_COLLECTION).updateOne({ _id: id }, { $set: { reason: 'Fan 203 has waited 1 s for a reply.' } })).toMatchObject({ matched: 1 });
    const alert = (await app.call<{ items: Alert[] }>('GET', `/api/alerts?sessionId=${encodeURIComponent(s)}`, { token: ADMIN })).body.items.find((a) => a.id === id);
    expect(alert?.reason).toMatch(/^Fan 203 has waited 40m \d\ds for a reply, past the 5m 00s SLA\.$/);
  });

  it('collapses alerts that look the same on the public floor into one line with a count', async () => {
    const open = (await app.call<Floor>('GET', '/api/floor')).body;
    expect(open.view).toBe('public');
    const waiting = open.topAlerts.filter((a) => a.ruleId === 'sla.fan-waiting');
    // Three fans past the SLA, no chatter: one line, counted three times.
    expect(waiting).toEqual([expect.objectContaining({ severity: 'critical', accountId: ACCOUNT, count: 3 })]);
    const full = (await app.call<Floor>('GET', '/api/floor', { token: ADMIN })).body;
    expect(full.topAlerts.filter((a) => a.ruleId === 'sla.fan-waiting').map((a) => a.count)).toEqual([1, 1, 1]);
  });
});
