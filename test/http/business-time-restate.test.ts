// A schedule change reaches history through a definitions preview (issue 55, business time as a
// fold): records received before an account had business hours keep their wall-clock figures on
// clock=business when the schedule is saved (a change applies from then on, and nothing says
// otherwise), and a preview that restates the schedules measures them again by today's, shows
// before and after in its diff, and switches to them on apply. Embedded default, real pipeline.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageWebhook } from '../../src/demo/platform-bodies.js';
import { startHarness, type Harness } from '../support/app-harness.js';

const A = 'acct_b7000000000000000000000000000055';
const ADMIN = 'admin-token-for-business-time-restate';
const OFFICE = { timezone: 'Europe/Berlin', weekly: Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri'].map((d) => [d, [['09:00', '17:00']]])) };
// Friday 2026-11-13 16:55 in Berlin, answered Monday 09:03: 64 h 8 min on the wall, 8 minutes open.
const FRIDAY = '2026-11-13T15:55:00Z';
const MONDAY = '2026-11-16T08:03:00Z';
const WALL_SEC = (Date.parse(MONDAY) - Date.parse(FRIDAY)) / 1000;
const WEEK = 'from=2026-11-13T00:00:00Z&to=2026-11-18T00:00:00Z&thresholdSec=600';

interface Figures { medianFirstResponseSec: number | null; withinThreshold: number; breaches: number }
interface Generation { generation: number; status: string; values: Record<string, number> }
interface Diff { overall: { before: Record<string, unknown>; after: Record<string, unknown> } }

describe('business hours restated through a definitions preview', () => {
  let h: Harness;
  const call = async <T>(method: string, url: string, body?: unknown) => h.call<T>(method, url, { token: ADMIN, ...(body !== undefined ? { body } : {}) });
  const sla = async (clock: 'wall' | 'business'): Promise<Figures> => {
    const r = await call<Figures>('GET', `/api/sla?${WEEK}&clock=${clock}`);
    expect(r.status, r.text).toBe(200);
    return r.body;
  };
  const msg = (id: string, iso: string, direction: 'received' | 'sent') =>
    ({ key: `evt_bt_${id}`, body: messageWebhook({ accountId: A, fanId: '7301', messageId: id, createdAt: iso, text: direction === 'received' ? 'hello?' : 'here!', direction }) });

  beforeAll(async () => {
    h = await startHarness({ ADMIN_TOKEN: ADMIN, SESSION_IDLE_SEC: String(4 * 86_400), ALLOWED_LATENESS_SEC: '60', UNANSWERED_CLOSE_SEC: String(5 * 86_400) });
    expect((await call('POST', '/api/admin/accounts', { id: A, displayName: 'restate' })).status).toBe(201);
    await h.deliver([msg('9730001', FRIDAY, 'received'), msg('9730002', MONDAY, 'sent')]);
    await h.settled();
  }, 60_000);
  afterAll(async () => { await h?.stop(); });

  it('a schedule saved after the records leaves their figures as they were measured', async () => {
    expect((await sla('business')).medianFirstResponseSec).toBe(WALL_SEC);
    const put = await call('PUT', `/api/admin/accounts/${A}/business-hours`, OFFICE);
    expect(put.status, put.text).toBe(200);
    const business = await sla('business');
    expect(business.medianFirstResponseSec, 'history is not changed silently').toBe(WALL_SEC);
    expect(await sla('wall')).toEqual({ ...business, clock: 'wall', businessHoursAccounts: [] });
  });

  it('a preview restating the schedules measures history by them, shows the change, and applies it', async () => {
    const started = await call<Generation>('POST', '/api/admin/definitions/generations', { restateBusinessHours: true });
    expect(started.status, started.text).toBe(202);
    expect(started.body.values.businessHoursRestatedAt).toBeGreaterThan(Date.parse(MONDAY));
    expect(started.body.values.sessionIdleSec, 'the rest stays as live').toBe(4 * 86_400);
    const n = started.body.generation;
    for (let i = 0; i < 300 && (await call<Generation>('GET', `/api/admin/definitions/generations/${n}`)).body.status !== 'ready'; i++) await new Promise((r) => setTimeout(r, 100));
    const diff = await call<Diff>('GET', `/api/admin/definitions/generations/${n}/diff?from=2026-11-13T00:00:00Z&to=2026-11-18T00:00:00Z`);
    expect(diff.status, diff.text).toBe(200);
    expect(diff.body.overall.before).toMatchObject({ sessions: 1, medianFirstResponseSec: WALL_SEC, businessMedianFirstResponseSec: WALL_SEC });
    expect(diff.body.overall.after).toMatchObject({ sessions: 1, medianFirstResponseSec: WALL_SEC, businessMedianFirstResponseSec: 480 });
    // Nothing served changes until it is applied.
    expect((await sla('business')).medianFirstResponseSec).toBe(WALL_SEC);

    const applied = await call('POST', `/api/admin/definitions/generations/${n}/apply`);
    expect(applied.status, applied.text).toBe(200);
    expect(await sla('business')).toMatchObject({ medianFirstResponseSec: 480, withinThreshold: 1, breaches: 0 });
    expect(await sla('wall')).toMatchObject({ medianFirstResponseSec: WALL_SEC, withinThreshold: 0, breaches: 1 });

    // The session says it, and its explanation re-derives it under the live generation.
    const session = (await call<{ items: { id: string; firstResponseBusinessSec: number | null }[] }>('GET', `/api/sessions?accountId=${A}`)).body.items[0];
    expect(session?.firstResponseBusinessSec).toBe(480);
    const why = await call<{ agrees: boolean; figures: { figure: string; value: unknown }[] }>('GET', `/api/sessions/${encodeURIComponent(session?.id ?? '')}/explain`);
    expect(why.status, why.text).toBe(200);
    expect(why.body.agrees).toBe(true);
    expect(why.body.figures.find((f) => f.figure === 'firstResponseBusinessSec')?.value).toBe(480);
    const live = (await call<{ items: { generation: number; values: Record<string, number> }[]; generation: number }>('GET', '/api/admin/definitions')).body;
    expect(live.generation).toBe(n);

    // Undone the same way: a preview with restateBusinessHours false measures each record by the
    // schedule in force when it was received again (none, for these), and says so in its values.
    const undo = await call<Generation>('POST', '/api/admin/definitions/generations', { restateBusinessHours: false });
    expect(undo.status, undo.text).toBe(202);
    expect(undo.body.values.businessHoursRestatedAt).toBeUndefined();
    for (let i = 0; i < 300 && (await call<Generation>('GET', `/api/admin/definitions/generations/${undo.body.generation}`)).body.status !== 'ready'; i++) await new Promise((r) => setTimeout(r, 100));
    const back = await call<Diff>('GET', `/api/admin/definitions/generations/${undo.body.generation}/diff?from=2026-11-13T00:00:00Z&to=2026-11-18T00:00:00Z`);
    expect(back.body.overall.before).toMatchObject({ businessMedianFirstResponseSec: 480 });
    expect(back.body.overall.after).toMatchObject({ businessMedianFirstResponseSec: WALL_SEC });
    expect((await call('DELETE', `/api/admin/definitions/generations/${undo.body.generation}`)).status).toBe(200);
  }, 90_000);
});
