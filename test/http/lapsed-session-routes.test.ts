// A session past its deadline answers the same on the routes that show one session, whether
// the projector has swept it closed in the read models yet or not (src/projector/lapse-sweep.ts):
// the session lists it is in, its analysis (duration to the deadline, the SLA outcome) and an
// admin's force-close (already closed, for the reason it closed with). The harness is driven, so nothing sweeps but the test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepLapsed } from '../../src/projector/lapse-sweep.js';
import { ReadModelSet } from '../../src/read-models/read-model-set.js';
import { startHarness, type Harness } from '../support/app-harness.js';
import { messageBody } from '../support/platform.js';

const ACCOUNT = 'acct_0d000000000000000000000000000053';
const ADMIN = 'admin-token-for-lapsed-session-tests';
const DAY = 86_400_000;

describe('one session past its deadline, swept or not', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ ADMIN_TOKEN: ADMIN }, { driven: true });
  });
  afterAll(async () => { await h?.stop(); });

  it('reads the same analysis and refuses the same force-close before and after the sweep', async () => {
    const wrote = Date.now() - 3 * DAY;
    const raw = messageBody({ accountId: ACCOUNT, fanId: 753001, messageId: 9530001, createdAt: new Date(wrote).toISOString(), direction: 'received' });
    expect((await h.webhook(raw, { key: 'evt_lapsed_1' })).status).toBe(200);
    await h.settled(60_000);
    const rm = new ReadModelSet(h.store).at(await new ReadModelSet(h.store).activeVersion());
    const [stored] = await rm.sessions.find({ accountId: ACCOUNT });
    // Open in the store, its deadline (the unanswered limit, a day on) two days past.
    expect(stored).toMatchObject({ status: 'open', awaiting: true, closesAs: 'unanswered' });
    const deadline = stored?.closesAt ?? 0;
    expect(deadline).toBeLessThan(Date.now() - DAY);
    const id = stored?._id ?? '';

    const read = async () => {
      const listed = async (query: string) => (await h.call<{ items: { id: string; status: string }[] }>('GET', `/api/sessions?${query}`)).body.items.filter((x) => x.id === id).map((x) => x.status);
      const lists = { newestNotWaiting: await listed('sort=opened&awaiting=0'), newestWaiting: await listed('sort=opened&awaiting=1'), inboxNotWaiting: await listed('awaiting=0'), closed: await listed('status=closed&sort=opened') };
      const analysis = await h.call<{ session: Record<string, unknown>; metrics: Record<string, unknown> }>('GET', `/api/sessions/${encodeURIComponent(id)}/analysis`);
      const close = await h.call<Record<string, unknown>>('POST', '/api/admin/close-session', { body: { sessionId: id }, token: ADMIN });
      return { lists, analysis: { status: analysis.status, session: analysis.body.session, metrics: analysis.body.metrics }, close: { status: close.status, body: close.body } };
    };
    const before = await read();
    // Listed where a closed session whose fan no longer waits is listed, and nowhere else.
    expect(before.lists).toEqual({ newestNotWaiting: ['closed'], newestWaiting: [], inboxNotWaiting: ['closed'], closed: ['closed'] });
    expect(before.analysis.session).toMatchObject({ status: 'closed', closeReason: 'unanswered', closedAt: new Date(deadline).toISOString() });
    expect(before.analysis.metrics).toMatchObject({ durationSec: Math.round((deadline - (stored?.openedAt ?? 0)) / 1000), slaOutcome: 'breach' });
    expect(before.close).toEqual({ status: 200, body: { status: 'already-closed', sessionId: id, closedAt: new Date(deadline).toISOString(), closeReason: 'unanswered' } });

    expect((await sweepLapsed(rm, Date.now())).swept).toBe(1);
    expect(await rm.sessions.findOne({ _id: id })).toMatchObject({ status: 'closed', swept: true });
    expect(await read()).toEqual(before);
  });
});
