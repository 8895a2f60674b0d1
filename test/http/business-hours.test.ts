// Business hours through the API: an admin sets, reads and removes an account's schedule (with
// 400s naming the field and the reason), and the SLA report, the scorecard and stats measure
// waits in open hours with clock=business, in wall-clock seconds with clock=wall (as before).
// Account A has Berlin office hours (Monday to Friday, 09:00 to 17:00), set before its records
// arrive (the processor measures each session by the schedule in force when its records are
// received; history is measured again only through a definitions preview, business-time-restate.test.ts);
// account W has none.
// On the embedded store and on the test Mongo-wire server (the session reads are the store's).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageWebhook } from '../../src/demo/platform-bodies.js';
import { BusinessClock } from '../../src/domain/business-hours.js';
import { gradeOf, gradeSteps } from '../../src/domain/sla.js';
import { mongoStoreEnv, startHarness, STORE_KINDS, type Harness } from '../support/app-harness.js';

const ADMIN = 'admin-token-for-business-hours-tests';
const CONNECTOR = 'connector-token-for-business-hours';
const A = 'acct_b0000000000000000000000000000001';
const W = 'acct_b0000000000000000000000000000002';
const UNKNOWN = 'acct_b00000000000000000000000000000ff';
const DAY_SEC = 86_400;
const OFFICE = { timezone: 'Europe/Berlin', weekly: { mon: [['09:00', '17:00']], tue: [['09:00', '17:00']], wed: [['09:00', '17:00']], thu: [['09:00', '17:00']], fri: [['09:00', '17:00']], sat: [] }, holidays: ['2026-12-25'] };
const at = (iso: string): number => Date.parse(iso);

// Friday 2026-11-13 16:55 in Berlin (15:55Z), answered Monday 09:03 (08:03Z): 8 business minutes.
const FRIDAY = '2026-11-13T15:55:00Z';
const MONDAY = '2026-11-16T08:03:00Z';
const WEEKEND_WALL_SEC = (at(MONDAY) - at(FRIDAY)) / 1000;
// A fan who wrote Friday 2026-11-06 16:50 and was never answered: closed unanswered when five
// days (120 hours) of open hours had passed: 10 minutes that Friday, three working weeks of 40
// hours less 10 minutes, so Friday 2026-11-27 at 16:50 in Berlin.
const UNANSWERED_FROM = '2026-11-06T15:50:00Z';
const UNANSWERED_CLOSED = '2026-11-27T15:50:00.000Z';

const NOW = Date.now();
const WAITING_SINCE = NOW - 2 * 3_600_000;

interface Figures { sessions: number; responded: number; withinThreshold: number; breaches: number; missed: number; pending: number; medianFirstResponseSec: number | null; p90FirstResponseSec: number | null }
interface SlaAnswer extends Figures { clock: string; businessHoursAccounts: string[]; byAccount: (Figures & { accountId: string })[]; byChatter: (Figures & { chatterId: string })[] }
interface Scorecard { clock: string; businessHoursAccounts: string[]; items: { chatterId: string; sla: Figures }[] }

describe.each(STORE_KINDS.map((k) => [k]))('business hours on the %s store', (kind) => {
  let h: Harness;
  const admin = { token: ADMIN };

  const fan = (account: string, fanId: string, n: number, iso: string) => ({
    key: `evt_bh_${fanId}_${n}`,
    body: messageWebhook({ accountId: account, fanId, messageId: String(6_100_000_000 + n), createdAt: new Date(iso).toISOString(), text: 'hello?', direction: 'received' }),
  });

  async function reply(account: string, chatId: string, n: number, iso: string, chatterId: string): Promise<void> {
    for (let tries = 1; ; tries++) {
      const r = await h.call('POST', '/api/connector/ingest', { token: CONNECTOR, body: { accountId: account, messages: [{ chatId, messageId: String(6_200_000_000 + n), text: 'here!', sentAt: new Date(iso).toISOString(), chatterId }] } });
      if (r.status === 200) return;
      if (r.status !== 503 || tries === 10) throw new Error(`connector: ${r.status} ${r.text}`);
      await new Promise((resolve) => setTimeout(resolve, 200 * tries));
    }
  }

  beforeAll(async () => {
    h = await startHarness({
      ...(kind === 'mongo' ? await mongoStoreEnv() : {}), ADMIN_TOKEN: ADMIN, CONNECTOR_TOKEN: CONNECTOR, ALERT_SWEEP_SEC: '0',
      SESSION_IDLE_SEC: String(4 * DAY_SEC), UNANSWERED_CLOSE_SEC: String(5 * DAY_SEC), REPORT_TIMEZONE: 'Europe/Berlin',
    }, { driven: true });
    for (const id of [A, W]) expect((await h.call('POST', '/api/admin/accounts', { ...admin, body: { id, displayName: id.slice(-4) } })).status).toBe(201);
    const put = await h.call('PUT', `/api/admin/accounts/${A}/business-hours`, { ...admin, body: OFFICE });
    expect(put.status, put.text).toBe(200);
    await h.deliver([
      fan(A, '8100001', 1, FRIDAY),
      fan(W, '8100002', 2, FRIDAY),
      fan(A, '8100003', 3, '2026-11-17T09:00:00Z'),
      fan(A, '8100004', 4, UNANSWERED_FROM),
      fan(A, '8100005', 5, new Date(WAITING_SINCE).toISOString()),
      fan(W, '8100006', 6, new Date(WAITING_SINCE).toISOString()),
      // Across the night Berlin's clocks fall back (2026-10-25 03:00 CEST → 02:00 CET).
      fan(W, '8100007', 7, '2026-10-24T23:30:00Z'),
    ]);
    await reply(A, '8100001', 1, MONDAY, 'bh-ana');
    await reply(W, '8100002', 2, MONDAY, 'bh-ben');
    // Tuesday 10:00 to 10:02 in Berlin: open hours, two minutes either way.
    await reply(A, '8100003', 3, '2026-11-17T09:02:00Z', 'bh-ana');
    await reply(W, '8100007', 7, '2026-10-25T02:10:00Z', 'bh-ben');
    await h.settled();
    // Closes what is past its deadline (the unanswered fan of November 6; a tick closes what was
    // due by its time less the allowed lateness, 120 s here); the others stay open.
    await h.tick(Date.now() + 121_000);
    await h.settled();
  }, 300_000);
  afterAll(async () => { await h?.stop(); });

  const sla = async (query: string) => {
    const r = await h.call<SlaAnswer>('GET', `/api/sla?${query}`);
    expect(r.status, r.text).toBe(200);
    return r.body;
  };
  const WEEK = 'from=2026-11-13T00:00:00Z&to=2026-11-18T00:00:00Z&thresholdSec=600';
  const pick = ({ sessions, responded, withinThreshold, breaches, missed, pending, medianFirstResponseSec, p90FirstResponseSec }: Figures) =>
    ({ sessions, responded, withinThreshold, breaches, missed, pending, medianFirstResponseSec, p90FirstResponseSec });

  describe('PUT, GET and DELETE /api/admin/accounts/:id/business-hours', () => {
    it('refuses a schedule it cannot keep with a 400 naming the field and the reason', async () => {
      const cases: [unknown, string][] = [
        [{ ...OFFICE, timezone: 'Europe/Atlantis' }, 'timezone: "Europe/Atlantis" is not a known time zone'],
        [{ ...OFFICE, weekly: { mon: [['25:00', '26:00']] } }, 'weekly.mon[0][0]: "25:00" is not a time of day'],
        [{ ...OFFICE, weekly: { mon: [['17:00', '09:00']] } }, 'weekly.mon[0][1]: must be after the start 17:00'],
        [{ ...OFFICE, weekly: { mon: [['09:00', '13:00'], ['12:00', '17:00']] } }, 'weekly.mon[1]: overlaps 09:00–13:00'],
        [{ ...OFFICE, weekly: { funday: [] } }, 'body.weekly.funday: is not a known field'],
        [{ ...OFFICE, weekly: { mon: Array.from({ length: 7 }, (_, i) => [`0${i}:00`, `0${i}:30`]) } }, 'body.weekly.mon: must NOT have more than 6 items'],
        [{ ...OFFICE, holidays: ['2026-02-30'] }, 'holidays[0]: "2026-02-30" is not a calendar date'],
        [{ ...OFFICE, holidays: ['christmas'] }, 'holidays[0]: "christmas" is not a calendar date'],
        [{ weekly: OFFICE.weekly }, "body.timezone: must have required property 'timezone'"],
      ];
      for (const [body, message] of cases) {
        const r = await h.call('PUT', `/api/admin/accounts/${A}/business-hours`, { ...admin, body });
        expect(r.status, JSON.stringify(body)).toBe(400);
        expect(r.body.code).toBe('INVALID_INPUT');
        expect(r.body.message).toContain(message);
      }
      expect((await h.call('GET', `/api/admin/accounts/${A}/business-hours`, admin)).body, 'nothing was stored').toMatchObject({ timezone: 'Europe/Berlin', holidays: ['2026-12-25'], weekly: { sun: [] } });
    });

    it('an unknown account is a 404, and so is one without a schedule; only an admin may set one', async () => {
      expect((await h.call('PUT', `/api/admin/accounts/${UNKNOWN}/business-hours`, { ...admin, body: OFFICE })).status).toBe(404);
      expect((await h.call('GET', `/api/admin/accounts/${UNKNOWN}/business-hours`, admin)).status).toBe(404);
      expect((await h.call('DELETE', `/api/admin/accounts/${UNKNOWN}/business-hours`, admin)).status).toBe(404);
      const none = await h.call('GET', `/api/admin/accounts/${W}/business-hours`, admin);
      expect(none.status).toBe(404);
      expect(none.body.message).toContain('has no business hours');
      expect((await h.call('PUT', `/api/admin/accounts/${A}/business-hours`, { body: OFFICE })).status).toBe(401);
      // A misspelt parameter is named, whatever the id.
      const typo = await h.call('GET', '/api/admin/accounts/x/business-hours?acountId=1', admin);
      expect([typo.status, typo.body.message]).toEqual([400, 'querystring.acountId: is not a known parameter']);
    });

    it('sets, reads back (normalised: every day, in order) and removes a schedule', async () => {
      const put = await h.call('PUT', `/api/admin/accounts/${W}/business-hours`, { ...admin, body: { timezone: 'america/new_york', weekly: { sun: [['13:00', '24:00'], ['08:00', '12:00']] } } });
      expect(put.status, put.text).toBe(200);
      expect(put.body).toMatchObject({ accountId: W, timezone: 'America/New_York', holidays: [], weekly: { mon: [], sun: [['08:00', '12:00'], ['13:00', '24:00']] } });
      expect((await h.call('GET', `/api/admin/accounts/${W}/business-hours`, admin)).body).toEqual(put.body);
      expect((await h.call('DELETE', `/api/admin/accounts/${W}/business-hours`, admin)).body).toEqual({ accountId: W, removed: true });
      expect((await h.call('GET', `/api/admin/accounts/${W}/business-hours`, admin)).status).toBe(404);
      expect((await h.call('DELETE', `/api/admin/accounts/${W}/business-hours`, admin)).body, 'idempotent').toEqual({ accountId: W, removed: false });
    });
  });

  describe('clock=business on the reports', () => {
    let wallBefore: SlaAnswer;
    let scorecardBefore: Scorecard;

    beforeAll(async () => {
      wallBefore = await sla(WEEK);
      scorecardBefore = (await h.call<Scorecard>('GET', `/api/chatters/scorecard?${WEEK}`)).body;
    });

    it('the SLA report: Friday 16:55 to Monday 09:03 is 8 business minutes; clock=wall is unchanged', async () => {
      // Wall: 120 s, and two weekends of 64 h 8 min.
      expect(pick(wallBefore)).toEqual({ sessions: 3, responded: 3, withinThreshold: 1, breaches: 2, missed: 0, pending: 0, medianFirstResponseSec: WEEKEND_WALL_SEC, p90FirstResponseSec: WEEKEND_WALL_SEC });
      const wall = await sla(WEEK);
      expect(wall.clock).toBe('wall');
      expect(wall.businessHoursAccounts).toEqual([]);
      expect(pick(wall)).toEqual(pick(wallBefore));
      expect(wall.byAccount.map(pick)).toEqual(wallBefore.byAccount.map(pick));

      const business = await sla(`${WEEK}&clock=business`);
      expect(business.clock).toBe('business');
      expect(business.businessHoursAccounts).toEqual([A]);
      // A: 480 s and 120 s, in time; W (no schedule): the weekend in wall-clock seconds.
      expect(pick(business)).toEqual({ sessions: 3, responded: 3, withinThreshold: 2, breaches: 1, missed: 0, pending: 0, medianFirstResponseSec: 480, p90FirstResponseSec: WEEKEND_WALL_SEC });
      const byAccount = Object.fromEntries(business.byAccount.map((a) => [a.accountId, pick(a)]));
      expect(byAccount[A]).toMatchObject({ sessions: 2, withinThreshold: 2, breaches: 0, medianFirstResponseSec: 120, p90FirstResponseSec: 480 });
      expect(byAccount[W]).toMatchObject({ sessions: 1, withinThreshold: 0, breaches: 1, medianFirstResponseSec: WEEKEND_WALL_SEC });
      const byChatter = Object.fromEntries(business.byChatter.map((c) => [c.chatterId, pick(c)]));
      expect(byChatter['bh-ana']).toMatchObject({ responded: 2, withinThreshold: 2, medianFirstResponseSec: 120, p90FirstResponseSec: 480 });
      expect(byChatter['bh-ben']).toMatchObject({ responded: 1, breaches: 1, medianFirstResponseSec: WEEKEND_WALL_SEC });
      // One account asked for: only its schedule is named.
      expect((await sla(`${WEEK}&clock=business&accountId=${W}`)).businessHoursAccounts).toEqual([]);
    });

    it('a window whose bounds fall inside an hour reads the open-hours seconds of the sessions at its edges too', async () => {
      // Friday's 15:55Z session lies in the partial hour after 15:30; Tuesday's 09:00Z in the one before 09:30.
      const edges = await sla(`from=2026-11-13T15:30:00Z&to=2026-11-17T09:30:00Z&accountId=${A}&thresholdSec=600&clock=business`);
      expect(pick(edges)).toMatchObject({ sessions: 2, responded: 2, withinThreshold: 2, breaches: 0, medianFirstResponseSec: 120, p90FirstResponseSec: 480 });
      const card = (await h.call<Scorecard>('GET', `/api/chatters/scorecard?from=2026-11-13T15:30:00Z&to=2026-11-17T09:30:00Z&accountId=${A}&thresholdSec=600&clock=business`)).body;
      expect(pick(card.items.find((i) => i.chatterId === 'bh-ana')?.sla as Figures)).toMatchObject({ responded: 2, withinThreshold: 2, p90FirstResponseSec: 480 });
    });

    it('an unanswered wait counts open hours too: the five-day limit is 120 open hours, three working weeks', async () => {
      const session = (await h.call('GET', `/api/chats?chatId=8100004&accountId=${A}`)).body.sessions[0];
      expect(session).toMatchObject({ status: 'closed', closeReason: 'unanswered', closedAt: UNANSWERED_CLOSED });
      const q = `from=2026-11-06T00:00:00Z&to=2026-11-07T00:00:00Z&accountId=${A}&thresholdSec=${DAY_SEC}`;
      // Closed unanswered on either clock: a breach (and missed), never pending as well (issue 53).
      expect(pick(await sla(q))).toMatchObject({ sessions: 1, responded: 0, breaches: 1, missed: 1, pending: 0 });
      expect(pick(await sla(`${q}&clock=business`))).toMatchObject({ sessions: 1, responded: 0, breaches: 1, missed: 1, pending: 0 });
      const stored = (await h.call('GET', `/api/sessions?accountId=${A}&limit=100`)).body.items as { chatId: string; id: string }[];
      const id = stored.find((x) => x.chatId === '8100004')?.id as string;
      const why = (await h.call('GET', `/api/sessions/${encodeURIComponent(id)}/explain`, admin)).body as { agrees: boolean; figures: { figure: string; value: unknown }[] };
      expect(why.agrees).toBe(true);
      expect(why.figures.find((f) => f.figure === 'waitBusinessSec')?.value, 'the wait in open hours, explained').toBe(5 * DAY_SEC);
    });

    it('the scorecard: a chatter\'s first responses in business time; clock=wall unchanged', async () => {
      const wall = (await h.call<Scorecard>('GET', `/api/chatters/scorecard?${WEEK}&clock=wall`)).body;
      expect(wall.clock).toBe('wall');
      expect(wall.items.map((i) => [i.chatterId, pick(i.sla)])).toEqual(scorecardBefore.items.map((i) => [i.chatterId, pick(i.sla)]));
      expect(pick(scorecardBefore.items.find((i) => i.chatterId === 'bh-ana')?.sla as Figures)).toMatchObject({ withinThreshold: 1, breaches: 1, p90FirstResponseSec: WEEKEND_WALL_SEC });
      const business = (await h.call<Scorecard>('GET', `/api/chatters/scorecard?${WEEK}&clock=business`)).body;
      expect(business).toMatchObject({ clock: 'business', businessHoursAccounts: [A] });
      const rows = Object.fromEntries(business.items.map((i) => [i.chatterId, pick(i.sla)]));
      expect(rows['bh-ana']).toEqual({ sessions: 2, responded: 2, withinThreshold: 2, breaches: 0, missed: 0, pending: 0, medianFirstResponseSec: 120, p90FirstResponseSec: 480 });
      expect(rows['bh-ben']).toMatchObject({ withinThreshold: 0, breaches: 1, medianFirstResponseSec: WEEKEND_WALL_SEC });
    });

    it('stats: the fans waiting now, in business time for the account with a schedule', async () => {
      const wall = (await h.call('GET', '/api/stats?thresholdSec=600')).body;
      expect(wall).toMatchObject({ clock: 'wall', businessHoursAccounts: [], awaitingReply: 2 });
      expect(wall.longestWaitSec).toBeGreaterThanOrEqual(2 * 3600);
      const business = (await h.call('GET', '/api/stats?thresholdSec=600&clock=business')).body;
      expect(business).toMatchObject({ clock: 'business', businessHoursAccounts: [A], awaitingReply: 2 });
      // W's fan has no schedule, so waited two hours either way; A's fan only what of those two hours was open.
      const open = new BusinessClock(OFFICE as never).businessMs(WAITING_SINCE, Date.now()) / 1000;
      expect(business.longestWaitSec).toBeGreaterThanOrEqual(Math.min(wall.longestWaitSec, Math.max(2 * 3600, open) - 2));
      expect(business.breachedNow).toBe(1 + (open > 600 ? 1 : 0));
    });

    it('alerts: the wait rules measure the account with a schedule in open hours, live and stored', async () => {
      const threshold = h.config.slaThresholdSec;
      const open = Math.round(new BusinessClock(OFFICE as never).businessMs(WAITING_SINCE, Date.now()) / 1000);
      // Two hours waited: on the wall clock past any threshold here; in open hours, whatever of
      // them fell on Berlin's weekday 09:00–17:00 (none at night or at the weekend).
      const nearStep = gradeSteps(threshold).some((g) => Math.abs(open - g.fromSec) < 5);
      const fanWaiting = async (status: string) => ((await h.call('GET', `/api/alerts?status=${status}&limit=500`)).body.items as { ruleId: string; chatId: string; reason: string; origin: string }[])
        .filter((a) => a.ruleId === 'sla.fan-waiting');
      const check = (alerts: { chatId: string; reason: string }[]) => {
        const w = alerts.find((a) => a.chatId === '8100006');
        expect(w?.reason, 'the account without a schedule: the wall clock').not.toContain('business hours');
        const a = alerts.find((x) => x.chatId === '8100005');
        if (nearStep) return;
        if (gradeOf(open, threshold) === 'ok') expect(a, `${open} business seconds`).toBeUndefined();
        else expect(a?.reason).toContain('in business hours');
      };
      check(await fanWaiting('open'));
      // Stored by a run of the rules, as the sweep stores them.
      expect((await h.call('POST', '/api/admin/intelligence/run', { ...admin, body: { limit: 20 } })).status).toBe(200);
      const stored = await fanWaiting('all');
      expect(stored.filter((a) => a.origin === 'stored').length).toBeGreaterThan(0);
      check(stored);
    });

    it('measures any window: open-ended, or years long, from the report buckets', async () => {
      for (const path of ['/api/sla', '/api/chatters/scorecard', '/api/exports/sla.csv', '/api/exports/scorecard.csv']) {
        for (const q of ['clock=business', 'clock=business&from=2020-01-01&to=2027-06-01', 'clock=business&to=2026-12-31']) {
          const res = await h.call('GET', `${path}?${q}`, admin);
          expect(res.status, `${path}?${q}: ${res.text}`).toBe(200);
        }
      }
      // Everything this test sent lies between 2020 and 2027: the long window is all time.
      const [all, years] = [await sla('clock=business&thresholdSec=600'), await sla('clock=business&from=2020-01-01&to=2027-06-01&thresholdSec=600')];
      expect(pick(years)).toEqual(pick(all));
      expect(all.responded).toBe(4);
    });

    it('a schedule removed reaches the sessions that change after it, not history', async () => {
      const before = await sla(`${WEEK}&clock=business`);
      expect((await h.call('DELETE', `/api/admin/accounts/${A}/business-hours`, admin)).body.removed).toBe(true);
      const business = await sla(`${WEEK}&clock=business`);
      expect(business.businessHoursAccounts).toEqual([]);
      expect(pick(business), 'measured as they were: restating history is a definitions preview').toEqual(pick(before));
      expect(pick(business)).not.toEqual(pick(wallBefore));
    });
  });
});
