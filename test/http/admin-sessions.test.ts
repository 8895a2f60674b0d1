// Sessions close by clock ticks alone, and by an admin through the log (POST
// /api/admin/close-session), through inject() over the real pipeline.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/app-harness.js';
import { messageBody } from '../support/platform.js';
import { eventually } from '../support/wait.js';

const ACCOUNT = 'acct_0d000000000000000000000000000000';
const ADMIN = 'admin-token-for-tests-0123456789';

interface SessionItem { id: string; chatId: string; status: string; closeReason: string | null; closedAt: string | null }

describe('session lifecycle', () => {
  let app: Harness;
  let ticking: Harness;

  beforeAll(async () => {
    app = await startHarness({ ADMIN_TOKEN: ADMIN });
    ticking = await startHarness({ TICK_INTERVAL_SEC: '1', SESSION_IDLE_SEC: '2' });
  });
  afterAll(async () => {
    await app?.stop();
    await ticking?.stop();
  });

  const sessionOf = async (chatId: string, base = app) => (await base.call<{ items: SessionItem[] }>('GET', '/api/sessions?limit=500&sort=opened')).body.items.find((s) => s.chatId === chatId);
  const close = async (sessionId: unknown, token: string | null = ADMIN) => {
    const r = await app.call<Record<string, unknown>>('POST', '/api/admin/close-session', { body: { sessionId }, ...(token ? { token } : {}) });
    return { status: r.status, body: r.body };
  };

  it('an answered session closes idle by ticks alone, at its deadline', async () => {
    const base = ticking;
    const opened = new Date(Date.now() - 3600_000);
    const raw = messageBody({ accountId: ACCOUNT, fanId: 610001, messageId: 9400001, createdAt: opened.toISOString(), direction: 'received' });
    const reply = messageBody({ accountId: ACCOUNT, fanId: 610001, messageId: 9400011, createdAt: new Date(opened.getTime() + 1_000).toISOString(), direction: 'sent' });
    expect((await base.webhook(raw, { key: 'evt_idle_1' })).status).toBe(200);
    expect((await base.webhook(reply, { key: 'evt_idle_1r' })).status).toBe(200);
    const s = await eventually(async () => { const x = await sessionOf('610001', base); return x?.status === 'closed' ? x : undefined; }, 30_000, 'idle close by tick');
    expect(s.closeReason).toBe('idle');
    // Closed at the record-time deadline: its last message (the reply) plus the 2 s idle timeout.
    expect(s.closedAt).toBe(new Date(opened.getTime() + 3_000).toISOString());
  });

  it('an admin closes an open session through the log; repeats and unknown ids get clear answers', async () => {
    const raw = messageBody({ accountId: ACCOUNT, fanId: 610002, messageId: 9400002, createdAt: new Date().toISOString(), direction: 'received' });
    expect((await app.webhook(raw, { key: 'evt_force_1' })).status).toBe(200);
    const open = await eventually(() => sessionOf('610002'), 20_000, 'open session');
    expect(open.status).toBe('open');

    expect(await close(open.id, null)).toMatchObject({ status: 401, body: { code: 'UNAUTHORIZED' } });
    expect(await close(open.id, 'wrong-token-wrong-token')).toMatchObject({ status: 401 });
    expect(await close('acct_x:1:1')).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    expect(await close(42)).toMatchObject({ status: 400, body: { code: 'INVALID_INPUT' } });

    expect(await close(open.id)).toMatchObject({ status: 202, body: { status: 'close-requested', sessionId: open.id } });
    const closed = await eventually(async () => { const x = await sessionOf('610002'); return x?.status === 'closed' ? x : undefined; }, 20_000, 'forced close');
    expect(closed.closeReason).toBe('forced');
    expect(await close(open.id)).toMatchObject({ status: 200, body: { status: 'already-closed', closeReason: 'forced' } });
  });
});

describe('admin routes without ADMIN_TOKEN', () => {
  it('refuse everyone', async () => {
    const app = await startHarness();
    try {
      const res = await app.call<{ message: string }>('POST', '/api/admin/close-session', { token: 'anything-at-all-123', body: { sessionId: 'x' } });
      expect(res.status).toBe(401);
      expect(res.body.message).toContain('ADMIN_TOKEN');
    } finally {
      await app.stop();
    }
  });
});
