// An admin's forced close across a definitions switch (issue 55): the close names the session as
// the live generation made it. A preview under a shorter session gap splits that conversation in
// two, with other ids; the close still reaches the part that was open when it was asked, because
// it carries the span the admin saw. Embedded default, real pipeline.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageWebhook } from '../../src/demo/platform-bodies.js';
import { startHarness, type Harness } from '../support/app-harness.js';
import { eventually } from '../support/wait.js';

const A = 'acct_f0c3d000000000000000000000000055';
const ADMIN = 'admin-token-for-definitions-forced-close';

interface Session { id: string; chatId: string; status: string; closeReason: string | null }

describe('a forced close across a definitions switch', () => {
  let h: Harness;
  const call = async <T>(method: string, url: string, body?: unknown) => h.call<T>(method, url, { token: ADMIN, ...(body !== undefined ? { body } : {}) });
  const sessions = async (): Promise<Session[]> => (await call<{ items: Session[] }>('GET', `/api/sessions?accountId=${A}&limit=100&sort=opened`)).body.items.filter((s) => s.chatId === '7501');
  const until = <T>(what: string, probe: () => Promise<T | undefined>): Promise<T> => eventually(probe, 20_000, what);
  const msg = (id: string, minutesAgo: number, direction: 'received' | 'sent') =>
    ({ key: `evt_fc_${id}`, body: messageWebhook({ accountId: A, fanId: '7501', messageId: id, createdAt: new Date(Date.now() - minutesAgo * 60_000).toISOString(), text: direction === 'received' ? 'hey' : 'hi!', direction }) });

  beforeAll(async () => {
    h = await startHarness({ ADMIN_TOKEN: ADMIN, SESSION_IDLE_SEC: '1800', ALLOWED_LATENESS_SEC: '60' });
    // Two exchanges 18 minutes apart: one session under a 30-minute gap, two under a 10-minute one.
    await h.deliver([msg('9750001', 25, 'received'), msg('9750002', 24, 'sent'), msg('9750003', 7, 'received'), msg('9750004', 6, 'sent')]);
    await h.settled();
  }, 60_000);
  afterAll(async () => { await h?.stop(); });

  it('reaches the part of the conversation that was open when it was asked', async () => {
    const [open] = await sessions();
    expect(open?.status).toBe('open');
    expect((await call('POST', '/api/admin/close-session', { sessionId: open?.id })).status).toBe(202);
    await until('closed forced', async () => ((await sessions())[0]?.closeReason === 'forced' ? true : undefined));

    const started = await call<{ generation: number }>('POST', '/api/admin/definitions/generations', { sessionIdleSec: 600 });
    expect(started.status, started.text).toBe(202);
    const n = started.body.generation;
    await until('the preview ready', async () => ((await call<{ status: string }>('GET', `/api/admin/definitions/generations/${n}`)).body.status === 'ready' ? true : undefined));
    expect((await call('POST', `/api/admin/definitions/generations/${n}/apply`)).status).toBe(200);

    // Oldest first: the part that had ended idle, then the part the admin closed.
    const after = (await sessions()).sort((x, y) => x.id.localeCompare(y.id));
    expect(after.map((s) => [s.id.endsWith(`~g${n}`), s.status, s.closeReason])).toEqual([[true, 'closed', 'idle'], [true, 'closed', 'forced']]);
  }, 60_000);
});
