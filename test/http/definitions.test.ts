// Reports name the definitions their figures may have been decided under (issue 55): the
// processor records its settings as version 1 when it starts; a processor started later with
// another session gap records version 2 from then. A chat keeps the version it was first seen
// under, so a window that ends before the change names version 1 and any later one both; the
// admin route lists them; an explanation names the chat's own.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageWebhook } from '../../src/demo/platform-bodies.js';
import { DefinitionsStore } from '../../src/definitions/definitions-store.js';
import { startHarness, type Harness } from '../support/app-harness.js';
import { tempDir } from '../support/temp-dirs.js';

const A = 'acct_def1a1000000000000000000000000055';
const ADMIN = 'admin-token-for-definitions-tests-0';

interface Versions { definitions: { version: number; since: string; until: string | null; values: { sessionIdleSec: number } }[] }

describe('definitions versions named by the reports', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ ADMIN_TOKEN: ADMIN, SESSION_IDLE_SEC: '1800' }, { driven: true });
    await h.deliver([{ key: 'evt_def_1', body: messageWebhook({ accountId: A, fanId: '5701', messageId: '9570001', createdAt: new Date(Date.now() - 60_000).toISOString(), text: 'hi', direction: 'received' }) }]);
    await h.settled();
  }, 60_000);
  afterAll(async () => { await h?.stop(); });

  const get = async <T>(url: string): Promise<T> => {
    const res = await h.call<T>('GET', url, { token: ADMIN });
    expect(res.status, `${url}: ${res.text}`).toBe(200);
    return res.body;
  };

  it('names version 1 (the processor\'s settings) on every report, and the admin route lists it', async () => {
    const listed = await get<{ items: { version: number; values: { sessionIdleSec: number }; until: string | null }[]; current: number }>('/api/admin/definitions');
    expect(listed.current).toBe(1);
    expect(listed.items).toEqual([expect.objectContaining({ version: 1, generation: 0, recordedBy: 'environment', values: expect.objectContaining({ sessionIdleSec: 1800 }) })]);
    const from = new Date(Date.now() - 86_400_000).toISOString();
    for (const url of ['/api/sla', `/api/sla?from=${from}`, '/api/overview', `/api/accounts?from=${from}`, '/api/chatters/scorecard', `/api/conversion?from=${from}`]) {
      const body = await get<{ window: Versions }>(url);
      expect(body.window.definitions.map((d) => d.version), url).toEqual([1]);
    }
    const explained = await get<{ definitions: { version: number | null } }>(`/api/sessions/${encodeURIComponent(`${A}:5701:1`)}/explain`);
    expect(explained.definitions.version).toBe(1);
  });

  it('after a change, a window that ends before it names the old version, one across or after it both', async () => {
    const changedAt = Date.now() + 1000;
    // What a processor started with SESSION_IDLE_SEC=600 records.
    const v2 = await new DefinitionsStore(h.store).record({ sessionIdleSec: 600, allowedLatenessSec: h.config.allowedLatenessSec, unansweredCloseSec: h.config.unansweredCloseSec, attributionLookbackSec: h.config.attributionLookbackSec }, changedAt);
    expect(v2.version).toBe(2);
    await new Promise((r) => setTimeout(r, 2100)); // the reports' copy is kept two seconds
    const across = await get<{ window: Versions }>(`/api/sla?from=${new Date(changedAt - 3_600_000).toISOString()}`);
    expect(across.window.definitions).toEqual([
      expect.objectContaining({ version: 1, until: new Date(changedAt).toISOString(), values: expect.objectContaining({ sessionIdleSec: 1800 }) }),
      expect.objectContaining({ version: 2, since: new Date(changedAt).toISOString(), until: null, values: expect.objectContaining({ sessionIdleSec: 600 }) }),
    ]);
    const after = await get<{ window: Versions }>(`/api/sla?from=${new Date(changedAt + 1).toISOString()}`);
    // Chats first seen before the change (5701's) keep version 1.
    expect(after.window.definitions.map((d) => d.version)).toEqual([1, 2]);
    const before = await get<{ window: Versions }>(`/api/sla?from=${new Date(changedAt - 7_200_000).toISOString()}&to=${new Date(changedAt - 3_600_000).toISOString()}`);
    expect(before.window.definitions.map((d) => d.version)).toEqual([1]);
    expect((await get<{ current: number }>('/api/admin/definitions')).current).toBe(2);
  });
});

describe('a settings change across a restart', () => {
  it('records version 2, and a chat first seen under version 1 is still explained under it, agreeing', async () => {
    const dir = tempDir('definitions-restart-');
    const post = (h: Harness, fan: string, id: string, ago: number, direction: 'received' | 'sent') =>
      ({ key: `evt_defr_${id}`, body: messageWebhook({ accountId: A, fanId: fan, messageId: id, createdAt: new Date(Date.now() - ago).toISOString(), text: 'hi', direction }) });
    const before = await startHarness({ ADMIN_TOKEN: ADMIN, DATA_DIR: dir, SESSION_IDLE_SEC: '1800' }, { driven: true });
    try {
      await before.deliver([post(before, '5801', '9580001', 20 * 60_000, 'received'), post(before, '5801', '9580002', 19 * 60_000, 'sent')]);
      await before.settled();
    } finally {
      await before.stop();
    }
    const after = await startHarness({ ADMIN_TOKEN: ADMIN, DATA_DIR: dir, SESSION_IDLE_SEC: '600' }, { driven: true });
    try {
      await after.deliver([post(after, '5801', '9580003', 5 * 60_000, 'received'), post(after, '5802', '9580004', 5 * 60_000, 'received')]);
      await after.settled();
      const call = async <T>(url: string): Promise<T> => {
        const res = await after.call<T>('GET', url, { token: ADMIN });
        expect(res.status, `${url}: ${res.text}`).toBe(200);
        return res.body;
      };
      expect((await call<{ current: number }>('/api/admin/definitions')).current).toBe(2);
      type Explained = { agrees: boolean; differences: unknown[]; definitions: { version: number | null; sessionIdleSec: number } };
      // The old chat keeps its 30-minute gap: its fan's message 14 minutes after the reply joins the same session.
      const old = await call<Explained>(`/api/sessions/${encodeURIComponent(`${A}:5801:1`)}/explain`);
      expect(old).toMatchObject({ agrees: true, differences: [], definitions: { version: 1, sessionIdleSec: 1800 } });
      const fresh = await call<Explained>(`/api/sessions/${encodeURIComponent(`${A}:5802:1`)}/explain`);
      expect(fresh).toMatchObject({ agrees: true, definitions: { version: 2, sessionIdleSec: 600 } });
      const sla = await call<{ window: Versions }>(`/api/sla?from=${new Date(Date.now() - 3_600_000).toISOString()}`);
      expect(sla.window.definitions.map((d) => d.version)).toEqual([1, 2]);
    } finally {
      await after.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
