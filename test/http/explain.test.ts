// GET /api/sessions/:id/explain on both stores (issue 55): a fan writes, a chatter answers, the
// fan tips, and the clock closes the session idle. Each figure names the event that set it and
// the inbound record behind it (the fan's message opened it, the reply answered it, the tip
// paid, a clock tick closed it), the chart's steps that moved it come in order, and the session
// decided again agrees with the stored one. Unknown ids and other accounts' sessions are 404.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageWebhook, transactionWebhook } from '../../src/demo/platform-bodies.js';
import { mongoStoreEnv, startHarness, STORE_KINDS, type Harness } from '../support/app-harness.js';

const A = 'acct_e4b1a1000000000000000000000000055';
const B = 'acct_e4b1a1000000000000000000000000056';
const ADMIN = 'admin-token-for-explain-tests-0000';
const MIN = 60_000;

interface Figure { figure: string; value: unknown; event: { type: string } | null; record: { offset: number; event: string; source: string; input: { type: string; id: string | null } | null } | null }
interface Explained { payments: unknown[]; sessionId: string; agrees: boolean; differences: unknown[]; figures: Figure[]; steps: { input: string; stateBefore: unknown; stateAfter: unknown; events: { type: string }[] }[]; recordsRead: number; definitions: Record<string, number> }

describe.each(STORE_KINDS)('GET /api/sessions/:id/explain (%s store)', (kind) => {
  let h: Harness;
  const t0 = Date.parse('2026-11-20T10:00:00.000Z');
  beforeAll(async () => {
    h = await startHarness({ ADMIN_TOKEN: ADMIN, ...(kind === 'mongo' ? await mongoStoreEnv() : {}) }, { driven: true });
    await h.deliver([
      { key: 'evt_x1', body: messageWebhook({ accountId: A, fanId: '5501', messageId: '9550001', createdAt: new Date(t0).toISOString(), text: 'hi', direction: 'received' }) },
      { key: 'evt_x2', body: messageWebhook({ accountId: A, fanId: '5501', messageId: '9550002', createdAt: new Date(t0 + 40_000).toISOString(), text: 'hello', direction: 'sent' }) },
      { key: 'evt_x3', body: transactionWebhook({ accountId: A, fanId: '5501', transactionId: 'e55000000000000000000000000000001', createdAt: new Date(t0 + 2 * MIN).toISOString(), type: 'tip', amountDollars: 10 }) },
      { key: 'evt_x4', body: messageWebhook({ accountId: B, fanId: '5601', messageId: '9560001', createdAt: new Date(t0).toISOString(), text: 'hi', direction: 'received' }) },
    ]);
    await h.settled();
    await h.tick(t0 + 365 * 86_400_000);
    await h.settled();
  }, 120_000);
  afterAll(async () => { await h?.stop(); });

  it('names, per figure, the event and the record behind it, and the chart\'s steps, agreeing with the stored session', async () => {
    const res = await h.call<Explained>('GET', `/api/sessions/${encodeURIComponent(`${A}:5501:1`)}/explain`, { token: ADMIN });
    expect(res.status, res.text).toBe(200);
    const e = res.body;
    expect(e).toMatchObject({ sessionId: `${A}:5501:1`, agrees: true, differences: [] });
    expect(e.definitions).toMatchObject({ sessionIdleSec: expect.any(Number), allowedLatenessSec: expect.any(Number) });
    const figure = (name: string): Figure => e.figures.find((f) => f.figure === name) as Figure;
    expect(figure('openedAt')).toMatchObject({ value: new Date(t0).toISOString(), event: { type: 'SessionOpened' }, record: { source: 'webhook', input: { type: 'chat.message', id: '9550001' } } });
    expect(figure('firstResponseSec')).toMatchObject({ value: 40, record: { input: { type: 'chat.message', id: '9550002' } } });
    expect(figure('revenueCents')).toMatchObject({ value: 1000, event: { type: 'PaymentRecorded' }, record: { input: { type: 'chat.payment' } } });
    expect(figure('closeReason')).toMatchObject({ value: 'idle', event: { type: 'SessionClosed' }, record: { source: 'tick', input: { type: 'chat.tick' } } });
    expect(figure('status').value).toBe('closed');
    // The tip, the record that brought it, and who each model credits (the webhook reply names no chatter).
    expect(e.payments).toEqual([expect.objectContaining({ kind: 'tip', grossCents: 1000, record: expect.objectContaining({ input: expect.objectContaining({ type: 'chat.payment' }) }), credits: expect.objectContaining({ session: null, reassignedTo: null }) })]);
    // The steps, in the order of their records: the fan's message first, the tick that closed it last.
    expect(e.steps[0]).toMatchObject({ input: 'chat.message' });
    expect(e.steps.at(-1)).toMatchObject({ input: 'chat.tick', events: expect.arrayContaining([expect.objectContaining({ type: 'SessionClosed' })]) });
    expect(e.steps.at(-1)?.stateBefore).not.toEqual(e.steps.at(-1)?.stateAfter);
    // Its chat's three records and the tick (the other account's chat is not read again, whatever the partition).
    expect(e.recordsRead).toBeGreaterThanOrEqual(4);
  });

  it('answers 404 for an unknown session and for another account\'s session under a key scoped to one', async () => {
    expect((await h.call('GET', `/api/sessions/${encodeURIComponent(`${A}:5501:9`)}/explain`, { token: ADMIN })).status).toBe(404);
    const key = await h.call<{ secret: string }>('POST', '/api/admin/keys', { token: ADMIN, body: { name: 'one account', role: 'manager', accounts: [A] } });
    expect(key.status, key.text).toBe(201);
    const theirs = await h.call('GET', `/api/sessions/${encodeURIComponent(`${B}:5601:1`)}/explain`, { token: key.body.secret });
    expect(theirs.status, theirs.text).toBe(404);
    expect((await h.call('GET', `/api/sessions/${encodeURIComponent(`${A}:5501:1`)}/explain`, { token: key.body.secret })).status).toBe(200);
  });
});
