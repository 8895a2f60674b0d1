// Chatters (issue 51) over the real stages (driven harness): a record an admin sets, clocking in
// and out through the log, the refusals, and clocked time. The automatic clock-out's arithmetic
// is test/domain/clocked-time.test.ts's; the clock chat's machine is test/machines/clock.test.ts's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageWebhook, transactionWebhook } from '../../src/demo/platform-bodies.js';
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

  it('keeps a roster as planned, refuses one that cannot be worked, and sets the shifts against clocked time', async () => {
    const now = Date.now();
    const oneOff = { accountId: A, start: new Date(now - 3_600_000).toISOString(), end: new Date(now + 3_600_000).toISOString() };
    const refused: [Record<string, unknown>, RegExp][] = [
      [{ timezone: 'Mars/Olympus', weekly: [] }, /timezone: "Mars\/Olympus" is not a known time zone/],
      [{ timezone: 'UTC', weekly: [{ accountId: A, day: 'mon', start: '08:00', end: '12:00' }, { accountId: A, day: 'mon', start: '11:00', end: '13:00' }] }, /weekly\[1\]: overlaps mon 08:00–12:00/],
      [{ timezone: 'UTC', weekly: [], oneOff: [{ accountId: A, start: '2026-06-01T00:00:00Z', end: '2026-06-02T06:00:00Z' }] }, /oneOff\[0\]\.end: a shift lasts at most 24 hours/],
      [{ timezone: 'UTC', weekly: [], oneOff: [{ accountId: A, start: 'yesterday', end: '2026-06-02T06:00:00Z' }] }, /oneOff\[0\]\.start/],
      [{ timezone: 'UTC', weekly: [{ accountId: A, day: 'funday', start: '08:00', end: '12:00' }] }, /day/],
    ];
    for (const [body, message] of refused) {
      const r = await h.call<{ message: string }>('PUT', '/api/admin/chatters/ann/roster', { token: ADMIN, body });
      expect(r.status, r.text).toBe(400);
      expect(r.body.message).toMatch(message);
    }
    expect((await h.call('GET', '/api/chatters/ann/roster')).status).toBe(404);
    const put = await h.call('PUT', '/api/admin/chatters/ann/roster', { token: ADMIN, body: { timezone: 'Europe/Berlin', weekly: [{ accountId: A, day: 'sat', start: '22:00', end: '06:00' }], oneOff: [oneOff] } });
    expect(put.status, put.text).toBe(200);
    expect((await h.call('GET', '/api/chatters/ann/roster')).body).toMatchObject({ chatterId: 'ann', timezone: 'Europe/Berlin', weekly: [{ day: 'sat', start: '22:00', end: '06:00' }], updatedBy: 'ADMIN_TOKEN' });

    interface Shifts { shifts: { kind: string; status: string; noShow: boolean; lateStartSec: number | null; clockedSec: number }[]; chatters: { chatterId: string; noShows: number; lateStarts: number }[] }
    const window = `from=${encodeURIComponent(new Date(now - 2 * 3_600_000).toISOString())}&to=${encodeURIComponent(new Date(now + 2 * 3_600_000).toISOString())}`;
    const before = await h.call<Shifts>('GET', `/api/shifts?${window}`);
    expect(before.status, before.text).toBe(200);
    // An hour into the one-off shift and not clocked in now: off. Not a no-show: the test before
    // clocked ann in and out (for under a second) inside it, an hour late.
    expect(before.body.shifts).toEqual([expect.objectContaining({ kind: 'one-off', status: 'off', noShow: false, clockedSec: 0 })]);
    expect(before.body.shifts[0]?.lateStartSec).toBeGreaterThanOrEqual(3_599);
    expect((await clock('ann', A, 'in')).status).toBe(202);
    await h.settled();
    const on = await h.call<Shifts>('GET', `/api/shifts?${window}`);
    expect(on.body.shifts).toEqual([expect.objectContaining({ status: 'on', noShow: false })]);
    expect(on.body.shifts[0]?.lateStartSec).toBeGreaterThanOrEqual(3_599);
    expect(on.body.chatters).toEqual([expect.objectContaining({ chatterId: 'ann', lateStarts: 1, noShows: 0 })]);
    // The default window is this week; a window longer than a quarter is refused.
    expect((await h.call('GET', '/api/shifts')).status).toBe(200);
    const long = await h.call('GET', '/api/shifts?from=2026-01-01&to=2026-06-01');
    expect(long.status).toBe(400);
    expect(long.text).toMatch(/from: a shift report spans at most 92 days/);
  });

  it('counts what the chatter did while clocked in on the shift, and the pay view and shifts.csv say the same', async () => {
    // ann is on (the test before clocked her in): a fan writes, she answers, the fan tips, all
    // after her clock-in and before the report's now (the platform stamps whole seconds).
    await new Promise((r) => setTimeout(r, 4_200));
    const t = Date.now() - 3_000;
    const at = (ms: number) => new Date(Math.floor((t + ms) / 1000) * 1000).toISOString();
    await h.webhook(messageWebhook({ accountId: A, fanId: '705', messageId: '8705', createdAt: at(0), text: 'are you there?', direction: 'received' }), { key: 'evt_shift_5' });
    expect((await h.call('POST', '/api/connector/ingest', { token: CONNECTOR, body: { accountId: A, messages: [{ chatId: '705', messageId: '8706', text: 'here!', sentAt: at(1_000), chatterId: 'ann' }] } })).status).toBe(200);
    await h.webhook(transactionWebhook({ accountId: A, fanId: '705', transactionId: 'e'.repeat(32), createdAt: at(2_000), type: 'tip', amountDollars: 20 }), { key: 'evt_shift_6' });
    await h.settled();
    const window = `from=${encodeURIComponent(new Date(t - 3 * 3_600_000).toISOString())}&to=${encodeURIComponent(new Date(t + 3 * 3_600_000).toISOString())}`;
    interface Shifts { shifts: Record<string, unknown>[]; chatters: Record<string, unknown>[] }
    const r = await h.call<Shifts>('GET', `/api/shifts?${window}`);
    expect(r.status, r.text).toBe(200);
    expect(r.body.shifts).toEqual([expect.objectContaining({ chatterId: 'ann', status: 'on', fansWaited: 1, sessionsAnswered: 1, withinThresholdPct: 100, medianFirstResponseSec: 1, revenueCents: 2000 })]);
    expect(r.body.chatters).toEqual([expect.objectContaining({ chatterId: 'ann', fansWaited: 1, sessionsAnswered: 1, revenueCents: 2000 })]);
    // Under the converter model too: her reply was the last message before the tip.
    expect((await h.call<Shifts>('GET', `/api/shifts?${window}&model=converter`)).body.shifts[0]).toMatchObject({ revenueCents: 2000 });

    const csv = await h.call('GET', `/api/exports/shifts.csv?${window}`);
    expect(csv.status).toBe(200);
    const lines = csv.text.trim().split('\r\n');
    expect(lines[0]).toMatch(/^shiftId,chatterId,displayName,accountId,kind,plannedStart,plannedEnd,plannedSec,clockedSec,lateStartSec,earlyEndSec,noShow,status,fansWaited,sessionsAnswered,/);
    expect(lines).toHaveLength(2);

    const pay = await h.call<{ items: Record<string, unknown>[] }>('GET', `/api/chatters/pay?${window}`);
    expect(pay.status, pay.text).toBe(200);
    expect(pay.body.items).toEqual([expect.objectContaining({ chatterId: 'ann', creditedRevenueCents: 2000, commissionPct: null, commissionCents: null })]);
    await h.call('PUT', '/api/admin/chatters/ann', { token: ADMIN, body: { displayName: 'Ann', accountIds: [A], commissionPct: 12.5 } });
    const paid = await h.call<{ items: Record<string, unknown>[] }>('GET', `/api/chatters/pay?${window}`);
    expect(paid.body.items).toEqual([expect.objectContaining({ chatterId: 'ann', displayName: 'Ann', creditedRevenueCents: 2000, commissionPct: 12.5, commissionCents: 250 })]);
    // The scorecard names her by her record too.
    const card = await h.call<{ items: { chatterId: string; displayName: string | null }[] }>('GET', `/api/chatters/scorecard?accountId=${A}`);
    expect(card.body.items.find((c) => c.chatterId === 'ann')?.displayName).toBe('Ann');
    const payCsv = await h.call('GET', `/api/exports/pay.csv?${window}`);
    expect(payCsv.text.trim().split('\r\n')[0]).toBe('chatterId,displayName,clockedSec,creditedRevenueCents,commissionPct,commissionCents');
  });
  it('credits a sale under the shift model to everyone clocked in on the account then, shared, in every report that takes a model', async () => {
    // ann is still on A; bob comes on too, then a fan tips $25.01: 1,251 cents to ann (the cent
    // an equal split cannot divide goes to the first by id), 1,250 to bob, who answered nobody.
    expect((await h.call('PUT', '/api/admin/chatters/bob', { token: ADMIN, body: { displayName: 'Bob B.', accountIds: [A, B] } })).status).toBe(200);
    expect((await clock('bob', A, 'in')).status).toBe(202);
    await h.settled();
    await new Promise((r) => setTimeout(r, 1_100));
    const paidAt = new Date(Math.floor(Date.now() / 1000) * 1000);
    await h.webhook(transactionWebhook({ accountId: A, fanId: '705', transactionId: 'f'.repeat(32), createdAt: paidAt.toISOString(), type: 'tip', amountDollars: 25.01 }), { key: 'evt_shift_7' });
    await h.settled();
    const window = `from=${encodeURIComponent(new Date(paidAt.getTime() - 3 * 3_600_000).toISOString())}&to=${encodeURIComponent(new Date(paidAt.getTime() + 3 * 3_600_000).toISOString())}`;
    interface Rows { items: { chatterId: string; revenueCents?: number; creditedRevenueCents?: number; paymentCount?: number }[]; model: string }
    const card = await h.call<Rows>('GET', `/api/chatters/scorecard?accountId=${A}&${window}&model=shift`);
    expect(card.status, card.text).toBe(200);
    expect(card.body.model).toBe('shift');
    // The earlier $20 tip came while ann alone was on.
    const byId = new Map(card.body.items.map((r) => [r.chatterId, r]));
    expect(byId.get('ann')).toMatchObject({ revenueCents: 3_251, paymentCount: 2 });
    expect(byId.get('bob')).toMatchObject({ revenueCents: 1_250, paymentCount: 1 });
    // The session model gives the new tip to ann's last reply in its session: bob has nothing.
    const session = await h.call<Rows>('GET', `/api/chatters/scorecard?accountId=${A}&${window}`);
    expect(session.body.items.find((r) => r.chatterId === 'bob')).toBeUndefined();
    const pay = await h.call<Rows>('GET', `/api/chatters/pay?${window}&model=shift`);
    expect(pay.body.items).toEqual([expect.objectContaining({ chatterId: 'ann', creditedRevenueCents: 3_251 }), expect.objectContaining({ chatterId: 'bob', creditedRevenueCents: 1_250 })]);
    // Asked about bob alone, his share is still a share: ann was on too.
    const bobsPay = await h.call<Rows>('GET', `/api/chatters/pay?${window}&model=shift&chatterId=bob`);
    expect(bobsPay.body.items).toEqual([expect.objectContaining({ chatterId: 'bob', creditedRevenueCents: 1_250 })]);
    const shifts = await h.call<{ shifts: { chatterId: string; revenueCents: number }[] }>('GET', `/api/shifts?${window}&model=shift&chatterId=ann`);
    expect(shifts.body.shifts).toEqual([expect.objectContaining({ chatterId: 'ann', revenueCents: 3_251 })]);
    const conversion = await h.call<{ chatters: { chatterId: string; revenueCents: number }[] }>('GET', `/api/conversion?accountId=${A}&${window}&model=shift`);
    expect(conversion.body.chatters.find((c) => c.chatterId === 'ann')?.revenueCents).toBe(3_251);
    const csv = await h.call('GET', `/api/exports/scorecard.csv?accountId=${A}&${window}&model=shift`);
    expect(csv.status).toBe(200);
    expect(csv.text).toMatch(/\r\nbob,.*,1250,1,/);
    // Worked out from the window's payments and clock: an open-ended or long window is refused.
    for (const path of ['/api/chatters/scorecard?model=shift', '/api/conversion?model=shift&from=2026-01-01', '/api/exports/conversion.csv?model=shift']) {
      const r = await h.call('GET', path);
      expect(r.status, path).toBe(400);
      expect(r.text, path).toMatch(/from: with model=shift the window may span at most 92 days/);
    }
  });
  it('says per account how long fans waited with nobody clocked in there, in the report and coverage.csv', async () => {
    // Nobody is on B (bob is clocked in on A only): a fan of B writes and waits unanswered.
    const start = Math.floor(Date.now() / 1000) * 1000;
    await h.webhook(messageWebhook({ accountId: B, fanId: '709', messageId: '8709', createdAt: new Date(start).toISOString(), text: 'anyone?', direction: 'received' }), { key: 'evt_shift_9' });
    await h.settled();
    await new Promise((r) => setTimeout(r, 2_100));
    const window = `from=${encodeURIComponent(new Date(start - 3 * 3_600_000).toISOString())}&to=${encodeURIComponent(new Date(start + 3 * 3_600_000).toISOString())}`;
    interface Coverage { accountId: string; waitingSec: number; uncoveredWaitingSec: number; staffedSec: number }
    const r = await h.call<{ accounts: Coverage[] }>('GET', `/api/shifts?${window}`);
    expect(r.status, r.text).toBe(200);
    const [a, b] = [r.body.accounts.find((x) => x.accountId === A), r.body.accounts.find((x) => x.accountId === B)];
    // On A, ann was on while fan 705 waited for her second's reply: waited, all of it covered.
    expect(a).toMatchObject({ waitingSec: 1, uncoveredWaitingSec: 0 });
    expect(a?.staffedSec).toBeGreaterThan(0);
    expect(b?.waitingSec).toBeGreaterThanOrEqual(2);
    expect(b).toMatchObject({ uncoveredWaitingSec: b?.waitingSec, staffedSec: 0 });
    const csv = await h.call('GET', `/api/exports/coverage.csv?${window}&accountId=${B}`);
    expect(csv.status, csv.text).toBe(200);
    const lines = csv.text.trim().split('\r\n');
    expect(lines[0]).toBe('accountId,waitingSec,uncoveredWaitingSec,staffedSec');
    expect(lines[1]).toMatch(new RegExp(`^${B},\\d+,\\d+,0$`));
  });
});
