// The unanswered limit on an account with business hours counts open hours (issue 53): under the
// default limit (a day) a fan who writes Friday 16:55 and is answered Monday 09:05 gets a first
// response of ten business minutes in the same session, where an account without a schedule
// closes the wait unanswered on Saturday and the Monday reply starts nothing (which schedule
// applies when: test/accounts/schedule-book.test.ts). On the embedded store and on the test
// Mongo-wire server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageWebhook } from '../../src/demo/platform-bodies.js';
import { mongoStoreEnv, startHarness, STORE_KINDS, type Harness } from '../support/app-harness.js';

const ADMIN = 'admin-token-for-business-hours-limit';
const CONNECTOR = 'connector-token-for-business-hours-limit';
const A = 'acct_b1000000000000000000000000000001';
const W = 'acct_b1000000000000000000000000000002';
const OFFICE = { timezone: 'Europe/Berlin', weekly: { mon: [['09:00', '17:00']], tue: [['09:00', '17:00']], wed: [['09:00', '17:00']], thu: [['09:00', '17:00']], fri: [['09:00', '17:00']] } };

// Friday 2026-11-20 16:55 in Berlin (15:55Z); the reply Monday 09:05 (08:05Z).
const FRIDAY = '2026-11-20T15:55:00Z';
const MONDAY = '2026-11-23T08:05:00Z';
const WALL_SEC = (Date.parse(MONDAY) - Date.parse(FRIDAY)) / 1000;

interface Session { status: string; closeReason: string | null; closedAt: string | null; firstResponseSec: number | null; firstResponseAt: string | null }
interface Figures { sessions: number; responded: number; withinThreshold: number; breaches: number; missed: number; pending: number; medianFirstResponseSec: number | null }

describe.each(STORE_KINDS.map((k) => [k]))('the unanswered limit on business hours, on the %s store', (kind) => {
  let h: Harness;
  const admin = { token: ADMIN };

  const fan = (account: string, fanId: string, n: number, iso: string) => ({
    key: `evt_bhl_${fanId}_${n}`,
    body: messageWebhook({ accountId: account, fanId, messageId: String(6_300_000_000 + n), createdAt: new Date(iso).toISOString(), text: 'anyone there?', direction: 'received' }),
  });
  const reply = async (account: string, chatId: string, n: number, iso: string): Promise<void> => {
    const r = await h.call('POST', '/api/connector/ingest', { token: CONNECTOR, body: { accountId: account, messages: [{ chatId, messageId: String(6_400_000_000 + n), text: 'good morning!', sentAt: new Date(iso).toISOString(), chatterId: 'bhl-ana' }] } });
    expect(r.status, r.text).toBe(200);
  };
  const sessionOf = async (account: string, chatId: string): Promise<Session> => {
    const r = await h.call<{ sessions: Session[] }>('GET', `/api/chats?chatId=${chatId}&accountId=${account}`);
    expect(r.status, r.text).toBe(200);
    expect(r.body.sessions).toHaveLength(1);
    return r.body.sessions[0] as Session;
  };

  beforeAll(async () => {
    // The default limit (a day) and idle gap: what a new user runs.
    h = await startHarness({ ...(kind === 'mongo' ? await mongoStoreEnv() : {}), ADMIN_TOKEN: ADMIN, CONNECTOR_TOKEN: CONNECTOR, ALERT_SWEEP_SEC: '0', REPORT_TIMEZONE: 'Europe/Berlin' }, { driven: true });
    for (const id of [A, W]) expect((await h.call('POST', '/api/admin/accounts', { ...admin, body: { id, displayName: id.slice(-4) } })).status).toBe(201);
    const put = await h.call('PUT', `/api/admin/accounts/${A}/business-hours`, { ...admin, body: OFFICE });
    expect(put.status, put.text).toBe(200);
    await h.deliver([fan(A, '8200001', 1, FRIDAY), fan(A, '8200002', 2, FRIDAY), fan(W, '8200003', 3, FRIDAY), fan(W, '8200004', 4, FRIDAY)]);
    await reply(A, '8200001', 1, MONDAY);
    await reply(W, '8200003', 3, MONDAY);
    await h.settled();
    // Today is past every deadline: the tick closes what is due.
    await h.tick(Date.now() + 121_000);
    await h.settled();
  }, 300_000);
  afterAll(async () => { await h?.stop(); });

  it('with a schedule, the Monday reply answers the Friday wait in the same session', async () => {
    expect(await sessionOf(A, '8200001')).toMatchObject({ status: 'closed', closeReason: 'idle', firstResponseAt: new Date(MONDAY).toISOString(), firstResponseSec: WALL_SEC });
  });

  it('with a schedule, a wait never answered closes after a day of open hours: Wednesday 16:55, not Saturday', async () => {
    // Five minutes on Friday, eight hours on Monday and on Tuesday, 7 h 55 on Wednesday.
    expect(await sessionOf(A, '8200002')).toMatchObject({ status: 'closed', closeReason: 'unanswered', closedAt: '2026-11-25T15:55:00.000Z', firstResponseSec: null });
  });

  it('without a schedule, the limit is a wall-clock day: closed unanswered Saturday, and the Monday reply starts nothing', async () => {
    expect(await sessionOf(W, '8200003')).toMatchObject({ status: 'closed', closeReason: 'unanswered', closedAt: '2026-11-21T15:55:00.000Z', firstResponseSec: null });
    expect(await sessionOf(W, '8200004')).toMatchObject({ closeReason: 'unanswered', closedAt: '2026-11-21T15:55:00.000Z' });
  });

  it('the SLA report in business time: the weekend wait is ten minutes, within a ten-minute threshold; the unanswered one a breach and missed, never pending', async () => {
    const r = await h.call<Figures>('GET', `/api/sla?from=2026-11-20T00:00:00Z&to=2026-11-21T00:00:00Z&accountId=${A}&thresholdSec=600&clock=business`);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ sessions: 2, responded: 1, withinThreshold: 1, breaches: 1, missed: 1, pending: 0, medianFirstResponseSec: 600 });
  });
});
