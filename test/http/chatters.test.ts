// Chatters (issue 51) over the real stages (driven harness): a record an admin sets, clocking in
// and out through the log, the refusals, and clocked time. The automatic clock-out's arithmetic
// is test/domain/clocked-time.test.ts's; the clock chat's machine is test/machines/clock.test.ts's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageWebhook } from '../../src/demo/platform-bodies.js';
import { startHarness, type Harness } from '../support/app-harness.js';

const A = 'acct_shift';
const B = 'acct_shift_other';
const ADMIN = 'admin-token-for-chatters-000000';
const CONNECTOR = 'connector-token-chatters-00000';

interface Chatter { chatterId: string; displayName: string | null; accountIds: string[]; hasRecord: boolean; onNow: { accountId: string; since: string }[] }
interface Clocked { items: { accountId: string; chatterId: string; clockedSec: number; intervals: number; automaticClockOuts: number; onNow: boolean; displayName: string | null }[]; intervals: { endedAt: string | null; automatic: boolean; clockedInBy: string; clockedOutBy: string | null }[] }

describe('chatters, clock-in and clock-out', () => {
  let h: Harness;
  const clock = (chatterId: string, accountId: string, action: 'in' | 'out') => h.call('POST', `/api/admin/chatters/${chatterId}/clock`, { token: ADMIN, body: { accountId, action } });
  const chatters = async () => (await h.call<{ items: Chatter[] }>('GET', '/api/chatters')).body.items;

  beforeAll(async () => {
    h = await startHarness({ ADMIN_TOKEN: ADMIN, CONNECTOR_TOKEN: CONNECTOR }, { driven: true });
    // ann has worked for A: the connector named her on a reply.
    const at = (min: number) => new Date(Date.UTC(2026, 5, 14, 9, min)).toISOString();
    await h.webhook(messageWebhook({ accountId: A, fanId: '701', messageId: '8701', createdAt: at(0), text: 'hi', direction: 'received' }), { key: 'evt_shift_1' });
    const named = await h.call('POST', '/api/connector/ingest', { token: CONNECTOR, body: { accountId: A, messages: [{ chatId: '701', messageId: '8702', text: 'hey', sentAt: at(1), chatterId: 'ann' }] } });
    expect(named.status, named.text).toBe(200);
    await h.webhook(messageWebhook({ accountId: B, fanId: '702', messageId: '8703', createdAt: at(0), text: 'hi', direction: 'received' }), { key: 'evt_shift_2' });
    await h.settled();
  });
  afterAll(async () => { await h?.stop(); });

  it('lists a chatter seen in the pipeline, and one an admin gave a record', async () => {
    const put = await h.call('PUT', '/api/admin/chatters/bob', { token: ADMIN, body: { displayName: 'Bob B.', accountIds: [B], commissionPct: 7.5 } });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({ chatterId: 'bob', displayName: 'Bob B.', accountIds: [B], commissionPct: 7.5, active: true, updatedBy: 'ADMIN_TOKEN' });
    const list = await chatters();
    expect(list).toEqual([
      { chatterId: 'ann', displayName: null, accountIds: [A], commissionPct: null, active: true, hasRecord: false, onNow: [] },
      { chatterId: 'bob', displayName: 'Bob B.', accountIds: [B], commissionPct: 7.5, active: true, hasRecord: true, onNow: [] },
    ]);
  });

  it('refuses what makes no sense, naming the field', async () => {
    const cases: [string, string, 'in' | 'out', number, RegExp][] = [
      ['carl', A, 'in', 400, /chatterId: no chatter carl/],
      ['bob', A, 'in', 400, /accountId: chatter bob does not work account acct_shift/],
      ['ann', 'acct_nowhere', 'in', 400, /accountId: no account acct_nowhere/],
      ['ann', A, 'out', 409, /not clocked in/],
    ];
    for (const [chatter, account, action, status, message] of cases) {
      const r = await clock(chatter, account, action);
      expect(r.status, r.text).toBe(status);
      expect(r.text).toMatch(message);
    }
    const bad = await h.call('POST', '/api/admin/chatters/ann/clock', { token: ADMIN, body: { accountId: A, action: 'pause' } });
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/action/);
    expect((await h.call('PUT', '/api/admin/chatters/bob', { token: ADMIN, body: { displayName: 'x', accountIds: [], commissionPct: 140 } })).status).toBe(400);
    expect((await h.call('POST', '/api/admin/chatters/ann/clock', { body: { accountId: A, action: 'in' } })).status).toBe(401);
  });

  it('clocks in through the log, refuses a second clock-in, and clocks out', async () => {
    const r = await clock('ann', A, 'in');
    expect(r.status, r.text).toBe(202);
    expect(r.body).toMatchObject({ status: 'clock-requested', chatterId: 'ann', accountId: A, action: 'in', endsIdleIntervalAt: null });
    await h.settled();
    const on = (await chatters()).find((c) => c.chatterId === 'ann');
    expect(on?.onNow).toEqual([expect.objectContaining({ accountId: A })]);
    const twice = await clock('ann', A, 'in');
    expect(twice.status).toBe(409);
    expect(twice.text).toMatch(/already clocked in/);
    const during = await h.call<Clocked>('GET', `/api/chatters/clocked?accountId=${A}`);
    expect(during.body.items).toEqual([expect.objectContaining({ accountId: A, chatterId: 'ann', intervals: 1, automaticClockOuts: 0, onNow: true })]);

    expect((await clock('ann', A, 'out')).status).toBe(202);
    await h.settled();
    expect((await chatters()).find((c) => c.chatterId === 'ann')?.onNow).toEqual([]);
    const after = await h.call<Clocked>('GET', `/api/chatters/clocked?accountId=${A}`);
    expect(after.status, after.text).toBe(200);
    expect(after.body.items).toEqual([expect.objectContaining({ chatterId: 'ann', intervals: 1, onNow: false })]);
    expect(after.body.intervals).toEqual([expect.objectContaining({ automatic: false, clockedInBy: 'ADMIN_TOKEN', clockedOutBy: 'ADMIN_TOKEN' })]);
    expect(after.body.intervals[0]?.endedAt).not.toBeNull();
    // A window before any of it: nothing clocked.
    const before = await h.call<Clocked>('GET', `/api/chatters/clocked?accountId=${A}&to=2026-01-01`);
    expect(before.body.items).toEqual([]);
  });
});
