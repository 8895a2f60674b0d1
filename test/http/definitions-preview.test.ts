// Recompute, preview, apply, undo (issue 55), through the API over the real pipeline on the
// embedded default: a shorter session gap previewed over the whole inbound log beside the live
// pipeline, its diff, its switch (records sent before, during and after it all counted once),
// the reports naming the new version, and the switch undone by bringing the old generation up to
// date and applying it back. Bad requests change nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageWebhook } from '../../src/demo/platform-bodies.js';
import { DefinitionsStore } from '../../src/definitions/definitions-store.js';
import { kafkaMongoEnv, startHarness, type Harness } from '../support/app-harness.js';
import { DEPLOYMENTS } from '../support/deployments.js';

const A = 'acct_prev1a100000000000000000000000055';
const ADMIN = 'admin-token-for-definitions-previews';

interface Generation { generation: number; status: string; definitionsVersion: number; progress: { caughtUpAt: string | null } | null; audit: { action: string; by: string }[] }
interface Session { id: string; chatId: string; messageCount: number }

describe.each(DEPLOYMENTS)('definitions: preview, diff, apply and undo, on %s', (kind) => {
  let h: Harness;
  const base = Date.now() - 3 * 3_600_000;
  const msg = (fan: string, id: string, minute: number, direction: 'received' | 'sent') =>
    ({ key: `evt_prev_${id}`, body: messageWebhook({ accountId: A, fanId: fan, messageId: id, createdAt: new Date(base + minute * 60_000).toISOString(), text: direction === 'received' ? 'hey' : 'hi!', direction }) });
  const call = async <T>(method: string, url: string, body?: unknown) => h.call<T>(method, url, { token: ADMIN, ...(body !== undefined ? { body } : {}) });
  const sessions = async (): Promise<Session[]> => (await call<{ items: Session[] }>('GET', `/api/sessions?accountId=${A}&limit=100&sort=opened`)).body.items;
  const chatSessions = async (fan: string): Promise<number> => (await sessions()).filter((s) => s.chatId === fan).length;
  const readyOf = async (n: number): Promise<Generation> => {
    for (let i = 0; i < 300; i++) {
      const g = (await call<Generation>('GET', `/api/admin/definitions/generations/${n}`)).body;
      if (g.status === 'ready') return g;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`generation ${n} never caught up`);
  };

  beforeAll(async () => {
    h = await startHarness({ ADMIN_TOKEN: ADMIN, SESSION_IDLE_SEC: '1800', ALLOWED_LATENESS_SEC: '60', ...(kind === 'kafka+mongo' ? await kafkaMongoEnv() : {}) });
    // Fan 7001: a 19-minute gap, inside the 30-minute session gap, outside a 10-minute one.
    await h.deliver([msg('7001', '9710001', 0, 'received'), msg('7001', '9710002', 1, 'sent'), msg('7001', '9710003', 20, 'received'), msg('7001', '9710004', 21, 'sent')]);
    await h.settled();
  }, 60_000);
  afterAll(async () => { await h?.stop(); });

  it('refuses bad changes with a 400 naming the field, and changes nothing', async () => {
    for (const [body, field] of [
      [{ sessionIdleSec: 600, allowedLatenessSec: 600 }, 'allowedLatenessSec'],
      [{ allowedLatenessSec: 1800 }, 'allowedLatenessSec'],
      [{ sessionIdleSec: 0 }, 'sessionIdleSec'],
      [{ sessionIdleSec: 600.5 }, 'sessionIdleSec'],
      [{}, 'body'],
      [{ sessionGap: 600 }, 'sessionGap'],
    ] as const) {
      const res = await call<{ message: string }>('POST', '/api/admin/definitions/generations', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message, JSON.stringify(body)).toContain(field);
    }
    expect((await call<{ items: unknown[] }>('GET', '/api/admin/definitions/generations')).body.items).toEqual([]);
    expect((await call<{ current: number; generation: number }>('GET', '/api/admin/definitions')).body).toMatchObject({ current: 1, generation: 0 });
  });

  it('previews a 10-minute gap, shows the diff, and switches to it with nothing lost or counted twice', async () => {
    expect(await chatSessions('7001')).toBe(1);
    const started = await call<Generation>('POST', '/api/admin/definitions/generations', { sessionIdleSec: 600 });
    expect(started.status, started.text).toBe(202);
    expect(started.body).toMatchObject({ generation: 1, status: 'building', definitionsVersion: 2 });
    // Not measured yet: it cannot be applied; a second preview is refused.
    const early = await call<{ message: string }>('POST', '/api/admin/definitions/generations/1/apply');
    expect(early.status).toBe(409);
    expect(early.body.message).toContain('NOT_CAUGHT_UP');
    const second = await call<{ message: string }>('POST', '/api/admin/definitions/generations', { sessionIdleSec: 900 });
    expect(second.status).toBe(409);
    expect(second.body.message).toContain('PREVIEW_RUNNING');
    // A record sent while the preview runs reaches both.
    await h.deliver([msg('7002', '9720001', 100, 'received'), msg('7002', '9720002', 101, 'sent')]);
    await readyOf(1);
    await h.settled();
    const diff = await call<{ overall: { before: { sessions: number }; after: { sessions: number } }; byAccount: { accountId: string }[] }>('GET', '/api/admin/definitions/generations/1/diff');
    expect(diff.status, diff.text).toBe(200);
    expect(diff.body.overall.before.sessions).toBe(2);
    expect(diff.body.overall.after.sessions).toBe(3);
    expect(diff.body.byAccount.map((a) => a.accountId)).toEqual([A]);
    // Nothing served changed before the switch.
    expect(await chatSessions('7001')).toBe(1);

    const applied = await call<Generation>('POST', '/api/admin/definitions/generations/1/apply');
    expect(applied.status, applied.text).toBe(200);
    expect(applied.body.status).toBe('live');
    expect(applied.body.audit.map((a) => a.action)).toEqual(['preview', 'apply']);
    expect(applied.body.audit[0]?.by).toBe('admin-token');
    expect(await chatSessions('7001')).toBe(2);
    expect(await chatSessions('7002')).toBe(1);
    // The new generation's ids are its own.
    expect((await sessions()).every((s) => s.id.endsWith('~g1'))).toBe(true);
    // Records after the switch go to the new generation's pipeline.
    await h.deliver([msg('7003', '9730001', 150, 'received'), msg('7003', '9730002', 151, 'sent'), msg('7001', '9710005', 25, 'received')]);
    await h.settled();
    expect(await chatSessions('7003')).toBe(1);
    const s7001 = (await sessions()).filter((s) => s.chatId === '7001');
    expect(s7001.map((s) => s.messageCount).sort()).toEqual([2, 3]);
    // Reports name the new version alone: every chat was decided again under it.
    await new Promise((r) => setTimeout(r, 2100));
    const sla = await call<{ window: { definitions: { version: number }[] } }>('GET', '/api/sla');
    expect(sla.body.window.definitions.map((d) => d.version)).toEqual([2]);
    expect((await call<{ current: number; generation: number }>('GET', '/api/admin/definitions')).body).toMatchObject({ current: 2, generation: 1 });
    // An explanation re-runs the chat under its generation and agrees.
    const first = s7001.find((s) => s.messageCount === 3) as Session;
    const explained = await call<{ agrees: boolean; differences: unknown[] }>('GET', `/api/sessions/${encodeURIComponent(first.id)}/explain`);
    expect(explained.status, explained.text).toBe(200);
    expect(explained.body.differences).toEqual([]);
    expect(explained.body.agrees).toBe(true);
  }, 90_000);

  it('undoes the switch: the old generation is brought up to date and applied back', async () => {
    const live = await call<{ message: string }>('DELETE', '/api/admin/definitions/generations/1');
    expect(live.status).toBe(409);
    expect(live.body.message).toContain('GENERATION_LIVE');
    const resumed = await call<Generation>('POST', '/api/admin/definitions/generations/0/resume');
    expect(resumed.status, resumed.text).toBe(202);
    await readyOf(0);
    const back = await call<Generation>('POST', '/api/admin/definitions/generations/0/apply');
    expect(back.status, back.text).toBe(200);
    await h.settled();
    // The 30-minute gap again, with everything sent while generation 1 was live.
    expect(await chatSessions('7001')).toBe(1);
    expect(await chatSessions('7003')).toBe(1);
    expect((await sessions()).find((s) => s.chatId === '7001')?.messageCount).toBe(5);
    expect((await sessions()).some((s) => s.id.includes('~'))).toBe(false);
    const dropped = await call<Generation>('DELETE', '/api/admin/definitions/generations/1');
    expect(dropped.status, dropped.text).toBe(200);
    expect(dropped.body.status).toBe('dropped');
    expect((await h.store.listCollections()).some((c) => c.startsWith('g1.'))).toBe(false);
  }, 90_000);

  it('refuses to apply a preview built over definitions no longer live, and changes nothing', async () => {
    const started = await call<Generation>('POST', '/api/admin/definitions/generations', { sessionIdleSec: 900 });
    expect(started.status, started.text).toBe(202);
    expect(started.body.generation).toBe(2);
    await readyOf(2);
    // What a processor restarted with other settings records: the live definitions moved on.
    const moved = await new DefinitionsStore(h.store).record({ sessionIdleSec: 2400, allowedLatenessSec: 60, unansweredCloseSec: h.config.unansweredCloseSec, attributionLookbackSec: h.config.attributionLookbackSec }, Date.now());
    await new Promise((r) => setTimeout(r, 2100)); // the definitions' copy is kept two seconds
    const stale = await call<{ message: string }>('POST', '/api/admin/definitions/generations/2/apply');
    expect(stale.status).toBe(409);
    expect(stale.body.message).toContain('STALE_BASE');
    expect((await call<{ current: number; generation: number }>('GET', '/api/admin/definitions')).body).toMatchObject({ current: moved.version, generation: 0 });
    expect(await chatSessions('7001')).toBe(1);
    expect((await call<Generation>('DELETE', '/api/admin/definitions/generations/2')).body.status).toBe('dropped');
  }, 90_000);
});
