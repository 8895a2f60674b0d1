// Issue 27's three smaller leaks, in-process through Fastify's inject():
// - with READ_AUTH=required, the floor without a key (GET /api/floor and its event stream)
//   shows totals only: no account id, display name or chatter id; a key sees its own accounts;
//   with reads open, the public floor is as it was;
// - /metrics on the API port is an admin's when reads need a key (a viewer key, scoped or not,
//   gets 403), while the ops port of a worker stays open;
// - wrongly signed webhooks are counted in /metrics and per client address, and past
//   REFUSAL_LIMIT_MAX that address gets 429 before its body is read or its signature checked,
//   while correctly signed webhooks from other addresses go on.
// Each app is the test harness's (the real app and store in a temporary folder, no port); the
// event stream is read through it too. One test starts a worker process's composition on a
// real port: what it checks is the ops port that startApp opens when the API role is absent.
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../src/app.js';
import { loadDemoAccounts } from '../../src/demo/fixtures.js';
import { signBody } from '../../src/ingest/signature.js';
import { ReadModelSet } from '../../src/read-models/read-model-set.js';
import { startHarness, type Harness } from '../support/app-harness.js';
import { deploymentEnv, removeDataDirs, startWithEnv } from '../support/deployments.js';
import { messageBody } from '../support/platform.js';
import { parsePrometheus, total } from '../support/prometheus.js';

const ADMIN = 'admin-token-for-smaller-leaks-0001';
const SECRET = 'whsec_smaller_leaks';

const running: (Harness | RunningApp)[] = [];
afterAll(async () => {
  await Promise.all(running.map((a) => a.stop()));
  removeDataDirs();
});

async function start(extra: Record<string, string>): Promise<Harness> {
  const app = await startHarness({ ADMIN_TOKEN: ADMIN, ALERT_SWEEP_SEC: '0', ...extra }, { driven: true });
  running.push(app);
  return app;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function call(app: Harness, opts: InjectOptions): Promise<{ status: number; headers: Record<string, unknown>; body: unknown; text: string }> {
  const res = await app.inject(opts);
  let body: unknown = res.body;
  try { body = JSON.parse(res.body); } catch { /* Prometheus text */ }
  return { status: res.statusCode, headers: res.headers, body, text: res.body };
}

async function newKey(app: Harness, role: string, accounts?: string[]): Promise<string> {
  const r = await call(app, { method: 'POST', url: '/api/admin/keys', headers: bearer(ADMIN), payload: { name: `leaks ${role}`, role, ...(accounts ? { accounts } : {}) } });
  expect(r.status).toBe(201);
  return (r.body as { secret: string }).secret;
}

/** Every string anywhere in a JSON value. */
const strings = (v: unknown, out: string[] = []): string[] => {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) strings(x, out);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) strings(x, out);
  return out;
};

interface FloorBody {
  view: string;
  totals: { open: number; awaiting: number; severity: Record<string, number> };
  accounts: { id: string; displayName: string | null }[];
  chatters: { id: string }[];
  topAlerts: Record<string, unknown>[];
}

/** The first `snapshot` event of the floor's stream, read as it comes (it never ends), then the caller hangs up. */
async function firstStreamSnapshot(app: Harness, headers: Record<string, string> = {}): Promise<FloorBody> {
  const res = await app.stream('/api/floor/stream', { headers });
  try {
    expect(res.status).toBe(200);
    expect(String(res.headers['content-type'])).toMatch(/^text\/event-stream/);
    const m = await res.until(/event: snapshot\ndata: (.*)\n\n/, 30_000);
    return JSON.parse(m[1] ?? '') as FloorBody;
  } finally {
    res.close();
  }
}

describe('the floor without a key, when reads need one', () => {
  let app: Harness;
  let own = '';
  const names: string[] = [];
  const accountIds: string[] = [];
  let chatterIds: string[] = [];

  beforeAll(async () => {
    app = await start({ READ_AUTH: 'required', FLOOR_RATE_LIMIT_MAX: '100000' });
    const seeded = await call(app, { method: 'POST', url: '/api/admin/seed-demo', headers: bearer(ADMIN), payload: {} });
    expect(seeded.status, seeded.text).toBe(200);
    await app.settled(120_000);
    for (const a of loadDemoAccounts()) {
      accountIds.push(a.id);
      if (a.displayName) names.push(a.displayName);
    }
    own = accountIds[1] ?? '';
    const full = (await call(app, { method: 'GET', url: '/api/floor', headers: bearer(ADMIN) })).body as FloorBody;
    chatterIds = full.chatters.map((c) => c.id);
    // The data the check looks for is there: the checks below can fail.
    expect(full.view).toBe('full');
    expect(full.accounts.map((a) => a.id).sort()).toEqual([...accountIds].sort());
    expect(full.accounts.some((a) => a.displayName !== null && names.includes(a.displayName))).toBe(true);
    expect(chatterIds.length).toBeGreaterThan(0);
    expect(full.totals.open).toBeGreaterThan(0);
  }, 180_000);

  /** Every account id, display name or chatter id found in a body. */
  const named = (body: unknown): string[] => strings(body).filter((s) =>
    accountIds.some((a) => s.includes(a)) || names.some((n) => s.includes(n)) || chatterIds.includes(s));

  it('GET /api/floor shows totals only: no account, display name or chatter', async () => {
    const r = await call(app, { method: 'GET', url: '/api/floor' });
    expect(r.status).toBe(200);
    const body = r.body as FloorBody;
    expect(body.view).toBe('aggregate');
    expect(body.accounts).toEqual([]);
    expect(body.chatters).toEqual([]);
    expect(named(body)).toEqual([]);
    // Still a wallboard: the figures are the whole floor's.
    const full = (await call(app, { method: 'GET', url: '/api/floor', headers: bearer(ADMIN) })).body as FloorBody;
    // Asked a moment apart: the longest wait may have grown by a second (on a busy machine, two).
    const still = (t: FloorBody['totals']) => { const { longestWaitSec: _w, longestWaitGrade: _g, ...rest } = t as FloorBody['totals'] & { longestWaitSec?: number; longestWaitGrade?: string }; return rest; };
    expect(still(body.totals)).toEqual(still(full.totals));
    const waited = (t: FloorBody['totals']) => (t as { longestWaitSec?: number }).longestWaitSec ?? 0;
    expect(Math.abs(waited(body.totals) - waited(full.totals))).toBeLessThanOrEqual(2);
    // Alerts that look the same without their account and chatter are one line, with a count.
    expect(full.topAlerts.length).toBeGreaterThan(0);
    expect(body.topAlerts.length).toBeGreaterThan(0);
    expect(body.topAlerts.length).toBeLessThanOrEqual(full.topAlerts.length);
    expect(body.topAlerts.reduce((n, a) => n + (a as { count: number }).count, 0)).toBeGreaterThanOrEqual(body.topAlerts.length);
    expect({ ruleId: body.topAlerts[0]?.ruleId, severity: body.topAlerts[0]?.severity }).toEqual({ ruleId: full.topAlerts[0]?.ruleId, severity: full.topAlerts[0]?.severity });
    for (const a of body.topAlerts) expect(Object.keys(a).sort()).toEqual(['count', 'openedAt', 'ruleId', 'severity', 'status']);
  });

  it('its event stream shows the same, even to a caller with a key', async () => {
    const viewer = await newKey(app, 'viewer');
    for (const headers of [{}, bearer(viewer)]) {
      const snapshot = await firstStreamSnapshot(app, headers);
      expect(snapshot.view).toBe('aggregate');
      expect(snapshot.accounts).toEqual([]);
      expect(snapshot.chatters).toEqual([]);
      expect(named(snapshot)).toEqual([]);
      expect(snapshot.totals.open).toBeGreaterThan(0);
    }
  });

  it('a key scoped to one account sees that account and no other', async () => {
    const scoped = await newKey(app, 'viewer', [own]);
    const body = (await call(app, { method: 'GET', url: '/api/floor', headers: bearer(scoped) })).body as FloorBody;
    expect(body.view).toBe('full');
    expect(body.accounts.map((a) => a.id)).toEqual([own]);
    const others = accountIds.filter((a) => a !== own);
    expect(strings(body).filter((s) => others.some((a) => s.includes(a)))).toEqual([]);
    // Its chatters are those with open sessions of its account only.
    const rm = await new ReadModelSet(app.store).active();
    const ownChatters = new Set((await rm.sessions.find({ accountId: own, status: 'open' })).map((s) => s.lastHumanChatterId).filter((c): c is string => typeof c === 'string'));
    for (const c of body.chatters) expect(ownChatters.has(c.id), c.id).toBe(true);
  });

  it('declares the floor\'s answer in the OpenAPI document, and the answer fits it', async () => {
    const doc = (await call(app, { method: 'GET', url: '/docs/json' })).body as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    const floor = doc.paths['/api/floor']?.get?.responses ?? {};
    expect(Object.keys(floor)).toEqual(expect.arrayContaining(['200', '400', '401', '429', '503', 'default']));
    expect(JSON.stringify(floor['200'])).toContain('aggregate');
    const stream = doc.paths['/api/floor/stream']?.get?.responses ?? {};
    expect(Object.keys(stream)).toContain('200');
    expect(JSON.stringify(stream['200'])).toContain('text/event-stream');
  });
});

describe('the floor without a key, while reads are open', () => {
  it('is the public view it was: every account and chatter, alerts without fan ids', async () => {
    const app = await start({ FLOOR_RATE_LIMIT_MAX: '100000' });
    const at = new Date(Date.now() - 60_000).toISOString();
    for (let i = 0; i < 2; i++) {
      const raw = messageBody({ accountId: `acct_open_floor_${i}`, fanId: 4100 + i, messageId: 5100 + i, direction: 'received', createdAt: at, text: `hi ${i}` });
      const r = await call(app, { method: 'POST', url: '/webhooks/platform', headers: { 'content-type': 'application/json', 'x-ofapi-idempotency-key': `evt_open_floor_${i}` }, payload: raw });
      expect(r.status).toBe(200);
    }
    await app.settled(120_000);
    const body = (await call(app, { method: 'GET', url: '/api/floor' })).body as FloorBody;
    expect(body.view).toBe('public');
    expect(body.accounts.map((a) => a.id)).toEqual(['acct_open_floor_0', 'acct_open_floor_1']);
    expect(body.totals.awaiting).toBe(2);
    expect((await firstStreamSnapshot(app)).accounts.map((a) => a.id)).toEqual(['acct_open_floor_0', 'acct_open_floor_1']);
    // /metrics stays as open as every other read.
    expect((await call(app, { method: 'GET', url: '/metrics' })).status).toBe(200);
  });
});

describe('/metrics when reads need a key', () => {
  it('is an admin\'s on the API port: 401 without a key, 403 for viewer and manager keys, scoped or not', async () => {
    const app = await start({ READ_AUTH: 'required' });
    const viewer = await newKey(app, 'viewer');
    const scoped = await newKey(app, 'viewer', ['acct_metrics_own']);
    const manager = await newKey(app, 'manager');
    const admin = await newKey(app, 'admin');
    const status = async (headers: Record<string, string>) => (await call(app, { method: 'GET', url: '/metrics', headers })).status;
    expect(await status({})).toBe(401);
    expect(await status(bearer(viewer))).toBe(403);
    expect(await status(bearer(scoped))).toBe(403);
    expect(await status(bearer(manager))).toBe(403);
    const refused = await call(app, { method: 'GET', url: '/metrics', headers: bearer(scoped) });
    expect(refused.body).toMatchObject({ statusCode: 403, code: 'FORBIDDEN' });
    expect(refused.text).not.toContain('convops_alerts_open');
    for (const token of [admin, ADMIN]) {
      const ok = await call(app, { method: 'GET', url: '/metrics', headers: bearer(token) });
      expect(ok.status).toBe(200);
      expect(ok.text).toContain('convops_alerts_open');
    }
    // The probes stay public: balancers carry no key.
    expect((await call(app, { method: 'GET', url: '/api/health/ready' })).status).toBe(200);
    const doc = (await call(app, { method: 'GET', url: '/docs/json' })).body as { paths: Record<string, Record<string, { responses: Record<string, unknown>; security?: unknown }>> };
    expect(Object.keys(doc.paths['/metrics']?.get?.responses ?? {})).toEqual(expect.arrayContaining(['200', '401', '403', '429', 'default']));
    expect(doc.paths['/metrics']?.get?.security).toBeDefined();
  });

  // On a real port, on purpose: a process without the API role serves its metrics on the ops
  // port startApp opens for it, and that port is what this checks (the harness has no ops port).
  it('stays open on the ops port of a process without the API', async () => {
    const worker = await startWithEnv(await deploymentEnv('embedded', { ADMIN_TOKEN: ADMIN, ALERT_SWEEP_SEC: '0', READ_AUTH: 'required', ROLES: 'processor,projector' }));
    running.push(worker);
    expect(worker.url).toBeNull();
    const res = await fetch(`${worker.opsUrl ?? ''}/metrics`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('convops_consumer_lag_records');
  });
});

describe('wrongly signed webhooks', () => {
  const at = new Date().toISOString();
  const body = (n: number) => messageBody({ accountId: 'acct_sig', fanId: 600 + n, messageId: 700 + n, direction: 'received', createdAt: at, text: `sig ${n}` });
  const post = (app: Harness, from: string, raw: string, signature: string | null, key: string) => call(app, {
    method: 'POST', url: '/webhooks/platform', remoteAddress: from, payload: raw,
    headers: { 'content-type': 'application/json', 'x-ofapi-idempotency-key': key, ...(signature === null ? {} : { signature }) },
  });

  it('are counted, and past REFUSAL_LIMIT_MAX their address gets 429 before its signature is checked; others are not affected', async () => {
    const app = await start({ PLATFORMAPI_WEBHOOK_SECRET: SECRET, REFUSAL_LIMIT_MAX: '3' });
    const attacker = '203.0.113.66';
    const platform = '198.51.100.20';
    const statuses: number[] = [];
    statuses.push((await post(app, attacker, body(0), null, 'evt_sig_0')).status);
    for (let i = 1; i < 3; i++) statuses.push((await post(app, attacker, body(i), 'f'.repeat(64), `evt_sig_${i}`)).status);
    const blocked = await post(app, attacker, body(3), 'f'.repeat(64), 'evt_sig_3');
    statuses.push(blocked.status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    expect(blocked.body).toMatchObject({ statusCode: 429, code: 'RATE_LIMITED' });
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    // Turned away before the signature is checked: even a right one, even a body too large to read.
    expect((await post(app, attacker, body(4), signBody(SECRET, body(4)), 'evt_sig_4')).status).toBe(429);
    expect((await post(app, attacker, 'x'.repeat(2_000_000), 'f'.repeat(64), 'evt_sig_huge')).status).toBe(429);
    // Another address's signed deliveries go on, and so do its wrong ones' own count.
    for (let i = 10; i < 15; i++) expect((await post(app, platform, body(i), signBody(SECRET, body(i)), `evt_sig_${i}`)).status).toBe(200);
    expect((await post(app, platform, body(20), 'f'.repeat(64), 'evt_sig_20')).status).toBe(401);
    expect((await post(app, platform, body(21), signBody(SECRET, body(21)), 'evt_sig_21')).status).toBe(200);
    // Wrong signatures and wrong access keys are counted apart: the attacker's address may still
    // present an access key, and a reader's wrong keys do not close the webhook.
    expect((await call(app, { method: 'GET', url: '/api/sessions', remoteAddress: attacker, headers: bearer(ADMIN) })).status).toBe(200);

    const metrics = await call(app, { method: 'GET', url: '/metrics', headers: bearer(ADMIN) });
    const samples = parsePrometheus(metrics.text);
    expect(total(samples, 'convops_webhooks_total', { outcome: 'refused', reason: 'signature' })).toBe(4);
    expect(total(samples, 'convops_webhooks_total', { outcome: 'refused', reason: 'rate_limited' })).toBe(3);
    expect(total(samples, 'convops_webhooks_total', { outcome: 'accepted' })).toBe(6);

    const doc = (await call(app, { method: 'GET', url: '/docs/json' })).body as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    expect(Object.keys(doc.paths['/webhooks/platform']?.post?.responses ?? {})).toEqual(expect.arrayContaining(['200', '401', '429']));
  });

  it('an address may deliver again once the window has passed', async () => {
    // A window of 4 s: under the full suite's load three requests once took more than 1 s, and
    // the window had passed before the third.
    const app = await start({ PLATFORMAPI_WEBHOOK_SECRET: SECRET, REFUSAL_LIMIT_MAX: '2', RATE_LIMIT_WINDOW_SEC: '4' });
    const from = '203.0.113.77';
    expect((await post(app, from, body(30), 'f'.repeat(64), 'evt_sig_30')).status).toBe(401);
    expect((await post(app, from, body(31), 'f'.repeat(64), 'evt_sig_31')).status).toBe(401);
    expect((await post(app, from, body(32), signBody(SECRET, body(32)), 'evt_sig_32')).status).toBe(429);
    await new Promise((r) => setTimeout(r, 4_100));
    expect((await post(app, from, body(33), signBody(SECRET, body(33)), 'evt_sig_33')).status).toBe(200);
  });

  it('without a secret nothing is checked, so nothing is counted or limited', async () => {
    const app = await start({ REFUSAL_LIMIT_MAX: '1' });
    for (let i = 40; i < 43; i++) expect((await post(app, '203.0.113.88', body(i), 'f'.repeat(64), `evt_sig_${i}`)).status).toBe(200);
  });
});
