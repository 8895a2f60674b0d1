// Issue 53 on both stores: a backlog redelivered at once leaves sessions past their deadline that
// the lateness keeps open in the log. The next clock tick says each lapsed (SessionLapsed), and the
// projector folds that like any event, fenced by its marks, so MongoDB gets what the embedded
// store's sweep gives: the read models hold them closed at their deadline, no reader corrects
// one on each read (none is left open past its deadline), every route gives the same figures as
// before the tick, and the admin's check finds nothing. Once the lateness has passed, the real
// closes change no figure and leave nothing marked swept. The harness is driven: nothing sweeps.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageWebhook } from '../../src/demo/platform-bodies.js';
import { pastDeadlineFilter } from '../../src/domain/session-deadline.js';
import { ReadModelSet } from '../../src/read-models/read-model-set.js';
import { mongoStoreEnv, startHarness, STORE_KINDS, type Harness } from '../support/app-harness.js';

const A = 'acct_1a9se000000000000000000000000053';
const ADMIN = 'admin-token-for-lapse-event-tests';
const MIN = 60_000;
const LATE_SEC = 120;

describe.each(STORE_KINDS)('a backlog past its deadline, said lapsed by the next tick (%s store)', (kind) => {
  let h: Harness;
  let n = 0;
  const now = Date.now();
  const post = (fanId: string, minutesAgo: number, direction: 'received' | 'sent') =>
    h.webhook(messageWebhook({ accountId: A, fanId, messageId: String(530_000 + ++n), createdAt: new Date(now - minutesAgo * MIN).toISOString(), text: 'hi', direction }), { key: `evt_lapse_${kind}_${n}` });
  beforeAll(async () => {
    h = await startHarness({ ADMIN_TOKEN: ADMIN, ALLOWED_LATENESS_SEC: String(LATE_SEC), ...(kind === 'mongo' ? await mongoStoreEnv() : {}) }, { driven: true });
    // Answered three hours ago (past the idle gap), fans unanswered for thirty hours (past the
    // unanswered limit), and one fan waiting ten minutes.
    for (const fan of ['8001', '8002', '8003']) {
      expect((await post(fan, 180, 'received')).status).toBe(200);
      expect((await post(fan, 178, 'sent')).status).toBe(200);
    }
    for (const fan of ['8101', '8102']) expect((await post(fan, 30 * 60, 'received')).status).toBe(200);
    expect((await post('8201', 10, 'received')).status).toBe(200);
    await h.settled();
  }, 120_000);
  afterAll(async () => { await h?.stop(); });

  const figures = async () => {
    const get = async <T>(url: string): Promise<T> => {
      const res = await h.call<T>('GET', url, { token: ADMIN });
      expect(res.status, `${url}: ${res.text}`).toBe(200);
      return res.body;
    };
    const since = new Date(now - 2 * 86_400_000).toISOString();
    const [overview, accounts, stats, floor, sla] = await Promise.all([
      get<{ sessions: unknown }>(`/api/overview?accountId=${A}`),
      get<{ items: { id: string; openSessions: number; awaiting: number }[] }>(`/api/accounts?accountId=${A}&from=${since}`),
      get<{ openSessions: number; awaitingReply: number }>('/api/stats?thresholdSec=3600'),
      get<{ totals: { open: number; awaiting: number } }>('/api/floor'),
      get<{ sessions: number; responded: number; breaches: number; missed: number; pending: number }>(`/api/sla?accountId=${A}&from=${since}&thresholdSec=3600`),
    ]);
    const account = accounts.items.find((a) => a.id === A);
    return {
      overview: overview.sessions, accounts: { open: account?.openSessions, awaiting: account?.awaiting },
      stats: { open: stats.openSessions, awaiting: stats.awaitingReply }, floor: { open: floor.totals.open, awaiting: floor.totals.awaiting },
      sla: { sessions: sla.sessions, responded: sla.responded, breaches: sla.breaches, missed: sla.missed, pending: sla.pending },
    };
  };
  const verify = async () => (await h.call<{ ok: boolean }>('GET', '/api/admin/verify', { token: ADMIN })).body;

  it('holds the lapsed sessions closed in the read models after one tick, with every figure as before and the check clean', async () => {
    const rm = new ReadModelSet(h.store).at(await new ReadModelSet(h.store).activeVersion());
    // Before the tick: five sessions open in the store past their deadline, corrected by readers.
    expect((await rm.sessions.find(pastDeadlineFilter(Date.now()))).length).toBe(5);
    const before = await figures();
    expect(before.overview).toEqual({ total: 6, open: 1, closed: 5, awaiting: 1 });
    expect(before.sla).toEqual({ sessions: 6, responded: 3, breaches: 2, missed: 2, pending: 1 });

    // A tick now: the chats' arrivals are not idle for the lateness, so nothing closes in the log.
    await h.tick(Date.now());
    await h.settled();
    expect((await rm.sessions.find(pastDeadlineFilter(Date.now()))).length).toBe(0);
    const swept = await rm.sessions.find({ accountId: A, swept: true });
    expect(swept.map((s) => s.closeReason).sort()).toEqual(['idle', 'idle', 'idle', 'unanswered', 'unanswered']);
    for (const s of swept) expect(s).toMatchObject({ status: 'closed', closedAt: s.closesAt, priorityAt: null });
    expect(await rm.sessions.find({ accountId: A, status: 'open' })).toHaveLength(1);
    expect(await figures()).toEqual(before);
    expect(await verify()).toMatchObject({ ok: true });

    // A second tick says nothing again (each deadline lapses once): nothing moves.
    const stored = await rm.sessions.find({ accountId: A });
    await h.tick(Date.now());
    await h.settled();
    expect(await rm.sessions.find({ accountId: A })).toEqual(stored);

    // Past the lateness the ticks close them in the log: the same figures, nothing left swept.
    await h.tick(Date.now() + (LATE_SEC + 1) * 1000);
    await h.settled();
    expect(await rm.sessions.find({ accountId: A, swept: true })).toEqual([]);
    expect(await figures()).toEqual(before);
    expect(await verify()).toMatchObject({ ok: true });
  }, 120_000);
});
