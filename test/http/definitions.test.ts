// Reports name the definitions their figures were decided under (issue 55): the processor records
// its settings as version 1 when it starts; a processor started later with another session gap
// records version 2 from then. A window before the change names version 1, one across it both,
// one after it version 2; the admin route lists them; an explanation names the version it
// re-decided under.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageWebhook } from '../../src/demo/platform-bodies.js';
import { DefinitionsStore } from '../../src/definitions/definitions-store.js';
import { startHarness, type Harness } from '../support/app-harness.js';

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
    expect(listed.items).toEqual([expect.objectContaining({ version: 1, until: null, recordedBy: 'environment', values: expect.objectContaining({ sessionIdleSec: 1800 }) })]);
    const from = new Date(Date.now() - 86_400_000).toISOString();
    for (const url of ['/api/sla', `/api/sla?from=${from}`, '/api/overview', `/api/accounts?from=${from}`, '/api/chatters/scorecard', `/api/conversion?from=${from}`]) {
      const body = await get<{ window: Versions }>(url);
      expect(body.window.definitions.map((d) => d.version), url).toEqual([1]);
    }
    const explained = await get<{ definitions: { version: number | null } }>(`/api/sessions/${encodeURIComponent(`${A}:5701:1`)}/explain`);
    expect(explained.definitions.version).toBe(1);
  });

  it('after a change, a window across it names both versions, one after it the new one only', async () => {
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
    expect(after.window.definitions.map((d) => d.version)).toEqual([2]);
    const before = await get<{ window: Versions }>(`/api/sla?from=${new Date(changedAt - 7_200_000).toISOString()}&to=${new Date(changedAt - 3_600_000).toISOString()}`);
    expect(before.window.definitions.map((d) => d.version)).toEqual([1]);
    expect((await get<{ current: number }>('/api/admin/definitions')).current).toBe(2);
  });
});
