// The live routes (/api/stats, /api/floor) share one answer between callers within
// LIVE_CACHE_MS, so twenty wallboards cost what one does; but only callers who would get the
// same answer: a scoped key, another query or the public floor view each get their own.
import { afterAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/app-harness.js';

const ADMIN = 'admin-token-for-live-cache-000001';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function at(app: Harness, path: string, headers: Record<string, string> = {}): Promise<{ at: string; view?: string }> {
  const res = await app.fetch(path, { headers });
  expect(res.status, path).toBe(200);
  return (await res.json()) as { at: string; view?: string };
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('live routes share answers', () => {
  const apps: Harness[] = [];
  afterAll(async () => { await Promise.all(apps.map((a) => a.stop())); });

  it('between callers who would get the same answer, within LIVE_CACHE_MS only', async () => {
    const app = await startHarness({ ADMIN_TOKEN: ADMIN, LIVE_CACHE_MS: '60000' }, { driven: true });
    apps.push(app);
    const key = async (body: Record<string, unknown>) => {
      const res = await app.fetch('/api/admin/keys', { method: 'POST', headers: { ...bearer(ADMIN), 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(res.status).toBe(201);
      return ((await res.json()) as { secret: string }).secret;
    };
    const viewer = await key({ name: 'wall', role: 'viewer' });
    const scoped = await key({ name: 'one account', role: 'viewer', accounts: ['acct_live_cache_a'] });

    for (const route of ['/api/stats', '/api/floor']) {
      const first = await at(app, route);
      await pause(5);
      // The same caller class again: the shared answer.
      expect((await at(app, route)).at, route).toBe(first.at);
      await pause(5);
      // Other answers: another query (the floor takes none), a scoped key, a signed-in floor.
      if (route === '/api/stats') {
        expect((await at(app, `${route}?thresholdSec=120`)).at, route).not.toBe(first.at);
        await pause(5);
      }
      const ofViewer = await at(app, route, bearer(viewer));
      await pause(5);
      expect((await at(app, route, bearer(viewer))).at, route).toBe(ofViewer.at);
      await pause(5);
      // Signed in like the viewer, but scoped: never the viewer's answer.
      expect((await at(app, route, bearer(scoped))).at, route).not.toBe(ofViewer.at);
      if (route === '/api/floor') {
        expect(ofViewer.view).toBe('full');
        expect(first.view).toBe('public');
        expect(ofViewer.at).not.toBe(first.at);
      }
    }

    const off = await startHarness({ LIVE_CACHE_MS: '0' }, { driven: true });
    apps.push(off);
    const a = await at(off, '/api/stats');
    await pause(5);
    expect((await at(off, '/api/stats')).at).not.toBe(a.at);
  });
});
