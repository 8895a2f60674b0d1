// A definitions preview and its switch survive SIGKILL (issue 55): killed during a preview, the
// service comes back with the old set live and the preview resumed where it stood; killed
// during the switch, before its pointer write, the old set; after it, the new one, whole. Each
// time GET /api/admin/verify names the live generation, and the served sessions are all of one
// definition: the chat whose two visits are 19 minutes apart is one session under a 30-minute
// gap and two under a 10-minute one, never anything between.
import { afterAll, describe, expect, it } from 'vitest';
import { messageWebhook } from '../../src/demo/platform-bodies.js';
import { deploymentEnv, removeDataDirs } from '../support/deployments.js';
import { deliverAll } from '../support/sender.js';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { eventually } from '../support/wait.js';
import { freePort } from '../infra/servers.js';

const A = 'acct_kill1a100000000000000000000000055';
const ADMIN = 'admin-token-for-definitions-kills';
const SECRET = 'webhook-secret-for-definitions-kills';

afterAll(() => removeDataDirs());

interface Verify { ok: boolean; definitions: { generation: number; previewing: number | null; held: number[] } }
interface Generation { status: string; audit: { action: string; by: string }[] }

describe('definitions generations under SIGKILL', () => {
  it('a kill during a preview, before the switch\'s write and after it leaves one whole set live, named by verify', { timeout: 300_000 }, async () => {
    const env = await deploymentEnv('embedded', { ADMIN_TOKEN: ADMIN, WEBHOOK_SECRET: SECRET, SESSION_IDLE_SEC: '1800', ALLOWED_LATENESS_SEC: '60' });
    const port = await freePort();
    let svc: ServiceProcess = await startServiceProcess(env, port);
    const api = async <T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> => {
      const res = await fetch(`${svc.url}${path}`, { method, headers: { authorization: `Bearer ${ADMIN}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
      return { status: res.status, body: await res.json() as T };
    };
    const base = Date.now() - 4 * 3_600_000;
    // Fan 1 of each of 30 chats: two visits 19 minutes apart.
    const deliveries = Array.from({ length: 30 }, (_, c) => [0, 1, 20, 21].map((minute, i) => ({
      key: `evt_kill_${c}_${i}`,
      body: messageWebhook({ accountId: A, fanId: String(8000 + c), messageId: String(98_000_000 + c * 10 + i), createdAt: new Date(base + minute * 60_000).toISOString(), text: i % 2 === 0 ? 'hey' : 'hi!', direction: i % 2 === 0 ? 'received' : 'sent' }),
    }))).flat();
    const sessionsServed = async (): Promise<number> => (await api<{ items: unknown[] }>('GET', `/api/sessions?accountId=${A}&limit=500`)).body.items.length;
    const settledAt = (n: number) => eventually(async () => ((await sessionsServed()) === n ? true : undefined), 60_000, `${n} sessions served`);
    const verify = async (): Promise<Verify['definitions']> => {
      const v = await api<Verify>('GET', '/api/admin/verify');
      expect(v.body.ok).toBe(true);
      return v.body.definitions;
    };
    const restart = async (extra: Record<string, string> = {}) => {
      await svc.kill9();
      svc = await startServiceProcess({ ...env, ...extra }, port);
    };
    try {
      await deliverAll(() => svc.url, deliveries, { secret: SECRET });
      await settledAt(30);

      // Killed during the preview: the old set is live, the preview resumes and catches up.
      expect((await api('POST', '/api/admin/definitions/generations', { sessionIdleSec: 600 })).status).toBe(202);
      await restart({ CONVOPS_FAILPOINT_STALL_BEFORE_SWITCH_MS: '60000' });
      expect(await verify()).toMatchObject({ generation: 0, previewing: 1, held: [] });
      expect(await sessionsServed()).toBe(30);
      const ready = async () => eventually(async () => ((await api<Generation>('GET', '/api/admin/definitions/generations/1')).body.status === 'ready' ? true : undefined), 60_000, 'preview ready');
      await ready();
      expect((await api<Generation>('GET', '/api/admin/definitions/generations/1')).body.audit.map((a) => a.action)).toEqual(['preview', 'resume']);

      // Killed during the switch, before its write: still the old set, the preview still there.
      void api('POST', '/api/admin/definitions/generations/1/apply').catch(() => undefined);
      await new Promise((r) => setTimeout(r, 3000));
      expect((await verify()).generation).toBe(0);
      await restart({ CONVOPS_FAILPOINT_STALL_AFTER_SWITCH_MS: '60000' });
      expect(await verify()).toMatchObject({ generation: 0, previewing: 1, held: [] });
      expect(await sessionsServed()).toBe(30);
      await ready();

      // Killed during the switch, after its write: the new set, whole, and the preview is live.
      void api('POST', '/api/admin/definitions/generations/1/apply').catch(() => undefined);
      await eventually(async () => ((await verify()).generation === 1 ? true : undefined), 30_000, 'pointer written');
      await restart();
      expect(await verify()).toMatchObject({ generation: 1, previewing: null, held: [0] });
      expect(await sessionsServed()).toBe(60);
      expect((await api<Generation>('GET', '/api/admin/definitions/generations/1')).body.status).toBe('live');
      // The new generation's pipeline runs: a new chat is one session under it.
      await deliverAll(() => svc.url, [{ key: 'evt_kill_new', body: messageWebhook({ accountId: A, fanId: '8999', messageId: '98999999', createdAt: new Date(base).toISOString(), text: 'hey', direction: 'received' }) }], { secret: SECRET });
      await settledAt(61);
    } finally {
      await svc.stop();
    }
  });
});
