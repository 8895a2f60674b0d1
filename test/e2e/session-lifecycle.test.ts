// Sessions close by clock ticks alone, and by an admin through the log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../src/app.js';
import { DEPLOYMENTS, deploymentEnv, removeDataDirs, startWithEnv } from '../support/deployments.js';
import { getJson, messageBody, postWebhook } from '../support/platform.js';
import { eventually } from '../support/wait.js';

const ACCOUNT = 'acct_0d000000000000000000000000000000';
const ADMIN = 'admin-token-for-tests-0123456789';

interface SessionItem { id: string; chatId: string; status: string; closeReason: string | null; closedAt: string | null }

describe.each(DEPLOYMENTS)('session lifecycle on %s', (kind) => {
  let app: RunningApp;
  let url: string;
  let ticking: RunningApp;

  beforeAll(async () => {
    app = await startWithEnv(deploymentEnv(kind, { ADMIN_TOKEN: ADMIN }));
    url = app.url ?? '';
    ticking = await startWithEnv(deploymentEnv(kind, { TICK_INTERVAL_SEC: '1', SESSION_IDLE_SEC: '2' }));
  });
  afterAll(async () => {
    await app?.stop();
    await ticking?.stop();
    removeDataDirs();
  });

  const sessionOf = async (chatId: string, base = url) => (await getJson<{ items: SessionItem[] }>(base, '/api/sessions?limit=500&sort=opened')).body.items.find((s) => s.chatId === chatId);
  const close = (sessionId: unknown, token: string | null = ADMIN) => fetch(`${url}/api/admin/close-session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ sessionId }),
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));

  it('an idle session closes by ticks alone, at its deadline', async () => {
    const base = ticking.url ?? '';
    const opened = new Date(Date.now() - 3600_000);
    const raw = messageBody({ accountId: ACCOUNT, fanId: 610001, messageId: 9400001, createdAt: opened.toISOString(), direction: 'received' });
    expect((await postWebhook(base, raw, { key: 'evt_idle_1' })).status).toBe(200);
    const s = await eventually(async () => { const x = await sessionOf('610001', base); return x?.status === 'closed' ? x : undefined; }, 30_000, 'idle close by tick');
    expect(s.closeReason).toBe('idle');
    // Closed at the record-time deadline: its only message plus the 2 s idle timeout.
    expect(s.closedAt).toBe(new Date(opened.getTime() + 2_000).toISOString());
  });

  it('an admin closes an open session through the log; repeats and unknown ids get clear answers', async () => {
    const raw = messageBody({ accountId: ACCOUNT, fanId: 610002, messageId: 9400002, createdAt: new Date().toISOString(), direction: 'received' });
    expect((await postWebhook(url, raw, { key: 'evt_force_1' })).status).toBe(200);
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
    const app = await startWithEnv(deploymentEnv('embedded'));
    try {
      const res = await fetch(`${app.url}/api/admin/close-session`, {
        method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer anything-at-all-123' }, body: JSON.stringify({ sessionId: 'x' }),
      });
      expect(res.status).toBe(401);
      expect(((await res.json()) as { message: string }).message).toContain('ADMIN_TOKEN');
    } finally {
      await app.stop();
      removeDataDirs();
    }
  });
});
