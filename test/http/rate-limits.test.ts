// Rate limits: counted per key when a request carries one, else per client address; the
// aggregate reports have their own, smaller budget; forwarded addresses count only with
// TRUST_PROXY; refused credentials are counted per address, and past the limit that address's
// credentials are turned away before they are checked. Correctly signed webhooks are never
// rate-limited; wrongly signed ones are counted per address like credentials, apart from them.
import { afterAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/app-harness.js';
import { messageBody } from '../support/platform.js';

const ADMIN = 'admin-token-for-rate-limits-00001';
const SECRET = 'whsec_rate_limits';

async function get(app: Harness, path: string, headers: Record<string, string> = {}) {
  const res = await app.fetch(path, { headers });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as { code?: string; message?: string } };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('rate limits', () => {
  const apps: Harness[] = [];
  const start = async (extra: Record<string, string>) => {
    const app = await startHarness({
      ADMIN_TOKEN: ADMIN, PLATFORMAPI_WEBHOOK_SECRET: SECRET, RATE_LIMIT_MAX: '5', REPORT_RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_SEC: '600', ...extra,
    });
    apps.push(app);
    return app;
  };
  afterAll(async () => {
    await Promise.all(apps.map((a) => a.stop()));
  });
  const newKey = async (app: Harness, name: string): Promise<string> => {
    const res = await app.fetch('/api/admin/keys', { method: 'POST', headers: { ...bearer(ADMIN), 'content-type': 'application/json' }, body: JSON.stringify({ name, role: 'viewer' }) });
    return ((await res.json()) as { secret: string }).secret;
  };

  it('counts per key, else per address, with a smaller budget for the reports', async () => {
    const app = await start({ REFUSAL_LIMIT_MAX: '1000' });
    const [a, b] = [await newKey(app, 'a'), await newKey(app, 'b')];
    const statuses = async (path: string, headers: Record<string, string>, n: number) => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) out.push((await get(app, path, headers)).status);
      return out;
    };
    expect(await statuses('/api/sessions', {}, 6)).toEqual([200, 200, 200, 200, 200, 429]);
    const limited = await get(app, '/api/sessions');
    expect(limited.body).toMatchObject({ code: 'RATE_LIMITED' });
    expect(limited.body.message).toContain('client address');
    expect(Number(limited.retryAfter)).toBeGreaterThan(0);
    // Key a has a budget of its own, untouched by the address's; b's is untouched by a's.
    expect(await statuses('/api/sessions', bearer(a), 6)).toEqual([200, 200, 200, 200, 200, 429]);
    expect((await get(app, '/api/sessions', bearer(b))).status).toBe(200);
    // The reports: 3 per route.
    expect(await statuses('/api/overview', bearer(b), 4)).toEqual([200, 200, 200, 429]);
    expect((await get(app, '/api/overview', bearer(b))).body.message).toContain('report');
  });

  it('ignores X-Forwarded-For unless TRUST_PROXY says so', async () => {
    const untrusting = await start({ REFUSAL_LIMIT_MAX: '1000' });
    const seen: number[] = [];
    for (let i = 0; i < 6; i++) seen.push((await get(untrusting, '/api/sessions', { 'x-forwarded-for': `203.0.113.${i}` })).status);
    expect(seen).toEqual([200, 200, 200, 200, 200, 429]);
    const trusting = await start({ REFUSAL_LIMIT_MAX: '1000', TRUST_PROXY: '127.0.0.1' });
    const perClient: number[] = [];
    for (let i = 0; i < 6; i++) perClient.push((await get(trusting, '/api/sessions', { 'x-forwarded-for': `203.0.113.${i}` })).status);
    expect(perClient).toEqual([200, 200, 200, 200, 200, 200]);
    for (let i = 0; i < 5; i++) await get(trusting, '/api/sessions', { 'x-forwarded-for': '198.51.100.7' });
    expect((await get(trusting, '/api/sessions', { 'x-forwarded-for': '198.51.100.7' })).status).toBe(429);
  });

  it('turns an address\'s credentials away after repeated wrong ones, but not its signed webhooks or anonymous reads', async () => {
    const app = await start({ REFUSAL_LIMIT_MAX: '3', RATE_LIMIT_MAX: '100000' });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await get(app, '/api/sessions', bearer(`cvk_0123456789abcdef_${'A'.repeat(43)}`))).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    // Turned away before its credential is looked at: even the right one.
    expect((await get(app, '/api/sessions', bearer(ADMIN))).status).toBe(429);
    // No credential is no guess: the same address still reads what is open, and its probes answer.
    expect((await get(app, '/api/sessions')).status).toBe(200);
    expect((await get(app, '/api/health')).status).toBe(200);
    // Nor does it lock out webhooks from that address.
    const fresh = messageBody({ accountId: 'acct_rl', fanId: 7, messageId: 8, direction: 'received', createdAt: new Date().toISOString() });
    expect((await app.webhook(fresh, { secret: SECRET, key: 'evt_after_lockout' })).status).toBe(200);

    const other = await start({ REFUSAL_LIMIT_MAX: '1000000', RATE_LIMIT_MAX: '5' });
    const codes = new Map<number, number>();
    for (let i = 0; i < 40; i++) {
      const raw = messageBody({ accountId: 'acct_rl', fanId: 5000 + i, messageId: 6000 + i, direction: 'received', createdAt: new Date().toISOString(), text: `hello ${i}` });
      const r = await other.webhook(raw, { secret: SECRET, key: `evt_rl_${i}` });
      codes.set(r.status, (codes.get(r.status) ?? 0) + 1);
    }
    expect(Object.fromEntries(codes)).toEqual({ 200: 40 });

    // Wrongly signed webhooks are counted per address too: past the limit the address gets 429
    // before its signature is checked, a right one included (test/http/smaller-leaks.test.ts
    // shows other addresses go on). Their count is the webhook's own: that address's keys still work.
    const signatures = await start({ REFUSAL_LIMIT_MAX: '3' });
    const raw = messageBody({ accountId: 'acct_rl', fanId: 1, messageId: 2, direction: 'received', createdAt: new Date().toISOString() });
    const bad: number[] = [];
    for (let i = 0; i < 5; i++) bad.push((await signatures.webhook(raw, { signature: 'f'.repeat(64), key: `evt_bad_${i}` })).status);
    expect(bad).toEqual([401, 401, 401, 429, 429]);
    expect((await signatures.webhook(raw, { secret: SECRET, key: 'evt_good' })).status).toBe(429);
    expect((await get(signatures, '/api/sessions', bearer(ADMIN))).status).toBe(200);
  });
});
