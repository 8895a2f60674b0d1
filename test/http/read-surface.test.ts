// The read surface against the spec, through inject(): the route catalogue, admin auth on every admin route,
// query validation, docs, and the numbers on the demo dataset against an independent oracle.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemoRecords } from '../../src/demo/fixtures.js';
import { startHarness, type Harness } from '../support/app-harness.js';
import { oracle } from '../support/oracle.js';

const ADMIN = 'admin-token-for-read-surface-0000';

// Routes of the spec's sections 4 and 5 that this service serves today.
const SPEC_ROUTES = [
  'GET /', 'GET /api', 'GET /api/health', 'GET /api/overview', 'GET /api/stats', 'GET /api/sla', 'GET /api/fans',
  'GET /api/accounts', 'GET /api/sessions', 'GET /api/messages', 'GET /api/chats', 'GET /api/sessions/:id/analysis',
  'GET /api/chatters/scorecard', 'POST /api/admin/replay', 'POST /api/admin/close-session', 'POST /api/admin/seed-demo',
  'POST /api/admin/purge-demo', 'POST /webhooks/platform', 'POST /api/demo/ingest', 'POST /api/connector/ingest',
  'GET /api/floor', 'GET /api/alerts', 'POST /api/alerts/:id/ack', 'POST /api/admin/intelligence/run',
  'POST /api/admin/accounts', 'POST /api/admin/accounts/seed', 'POST /api/admin/accounts/sync', 'POST /api/admin/accounts/auth/start',
  'POST /api/admin/accounts/auth/poll', 'POST /api/admin/accounts/auth/2fa', 'POST /api/admin/accounts/:id/disconnect',
  'POST /api/admin/backfill', 'POST /api/admin/backfill-transactions',
];

let app: Harness;

async function get<T = Record<string, unknown>>(path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: T }> {
  const res = await app.fetch(path, { headers });
  const text = await res.text();
  return { status: res.status, body: (text.startsWith('{') ? JSON.parse(text) : text) as T };
}

let seededAt = 0;

describe('read surface', () => {
  beforeAll(async () => {
    app = await startHarness({ ADMIN_TOKEN: ADMIN }, { driven: true });
    seededAt = Date.now();
    expect((await app.call('POST', '/api/admin/seed-demo', { token: ADMIN, body: { timeline: 'original' } })).status).toBe(200);
    await app.settled();
  }, 120_000);
  afterAll(async () => { await app?.stop(); });

  it('lists every route in the catalogue at / and /api, with metadata and no secret', async () => {
    for (const path of ['/', '/api']) {
      const { status, body } = await get<{ service: string; pipelineReady: boolean; platformApi: { configured: boolean; ready: boolean }; docs: string; goLive: string; routes: Record<string, string> }>(path);
      expect(status).toBe(200);
      expect(body).toMatchObject({ service: 'convops', pipelineReady: true, platformApi: { configured: false, ready: false }, docs: '/docs', goLive: '/go-live' });
      for (const r of SPEC_ROUTES) expect(body.routes, r).toHaveProperty([r]);
      expect(JSON.stringify(body)).not.toContain(ADMIN);
    }
    const health = await get('/api/health');
    expect(health.status).toBe(200);
    expect(JSON.stringify(health.body)).not.toContain(ADMIN);
  });

  it('answers 401 on every admin route of the catalogue without a token and with a wrong one', async () => {
    const { body } = await get<{ routes: Record<string, string> }>('/api');
    const admin = Object.keys(body.routes).filter((r) => r.includes(' /api/admin/') || /^POST \/api\/alerts\/:id\/ack$/.test(r));
    expect(admin.length).toBeGreaterThanOrEqual(5);
    for (const route of admin) {
      const [method, path] = route.split(' ') as [string, string];
      const target = path.replace(/:[a-zA-Z]+/g, 'x');
      for (const headers of [{}, { authorization: 'Bearer not-the-admin-token-at-all' }] as Record<string, string>[]) {
        const res = await app.fetch(target, { method, headers: { 'content-type': 'application/json', ...headers }, body: method === 'GET' ? undefined : '{}' });
        expect(res.status, `${route} ${JSON.stringify(headers)}`).toBe(401);
        expect(await res.json()).toMatchObject({ statusCode: 401, code: 'UNAUTHORIZED' });
      }
    }
  });

  it('refuses bad query values with a 400 naming the field', async () => {
    for (const [path, field] of [
      ['/api/sessions?limit=0', 'limit'], ['/api/sessions?limit=501', 'limit'], ['/api/sessions?sort=newest', 'sort'],
      ['/api/messages?limit=abc', 'limit'], ['/api/sla?thresholdSec=-5', 'thresholdSec'], ['/api/fans?colour=red', 'colour'],
      ['/api/chats?limit=1.5', 'limit'], ['/api/stats?thresholdSec=0', 'thresholdSec'],
    ] as const) {
      const res = await get<{ code: string; message: string }>(path);
      expect(res.status, path).toBe(400);
      expect(res.body.code).toBe('INVALID_INPUT');
      expect(res.body.message, path).toContain(field);
    }
  });

  it('names every allowed value when a value is outside a closed set', async () => {
    for (const [path, message] of [
      ['/api/sessions?sort=newest', 'querystring.sort: must be one of: priority, opened'],
      ['/api/alerts?status=gone', 'querystring.status: must be one of: '],
    ] as const) {
      const res = await get<{ code: string; message: string }>(path);
      expect(res.status, path).toBe(400);
      expect(res.body.message, path).toContain(message);
      expect(res.body.message, path).not.toContain('constant');
    }
  });

  it('refuses an unknown query parameter on every GET route of the API with a 400 naming it (a typo like acountId must not widen the answer)', async () => {
    type Op = { parameters?: { name: string; in: string; schema?: { pattern?: string } }[] };
    const spec = await get<{ paths: Record<string, Record<string, Op>> }>('/docs/json');
    // The probes excepted: balancers decorate their URLs, and the ops server answers them the same way.
    const probes = ['/api/health/live', '/api/health/ready'];
    // A path parameter with a pattern gets a value of its shape, so the query is what is refused.
    const shaped: Record<string, string> = { '^hook_[0-9a-f]{16}$': 'hook_0123456789abcdef' };
    const paths = Object.entries(spec.body.paths).filter(([p, ops]) => p.startsWith('/api/') && 'get' in ops && !probes.includes(p))
      .map(([p, ops]) => p.replace(/\{([^}]+)\}/g, (_, name: string) => {
        const pattern = ops.get?.parameters?.find((q) => q.in === 'path' && q.name === name)?.schema?.pattern;
        return (pattern && shaped[pattern]) ?? 'x';
      }));
    expect(paths.length).toBeGreaterThan(20);
    const admin = { authorization: `Bearer ${ADMIN}` };
    for (const path of paths) {
      const res = await get<{ code: string; message: string }>(`${path}?acountId=acct_1`, admin);
      expect(res.status, path).toBe(400);
      expect(res.body.code, path).toBe('INVALID_INPUT');
      expect(res.body.message, path).toContain('acountId');
    }
    // Writes too: an unknown parameter is refused before anything runs.
    const post = await app.call<{ code: string; message: string }>('POST', '/api/admin/intelligence/run?bogus=1', { token: ADMIN });
    expect(post.status).toBe(400);
    expect(post.body.message).toContain('bogus');
  });

  it('serves OpenAPI with a UI at the docs URL and the go-live guide', async () => {
    const ui = await app.fetch('/docs');
    expect(ui.status).toBe(200);
    expect(await ui.text()).toMatch(/swagger/i);
    const spec = await get<{ openapi: string; paths: Record<string, unknown> }>('/docs/json');
    expect(spec.body.openapi).toMatch(/^3\./);
    expect(Object.keys(spec.body.paths)).toEqual(expect.arrayContaining(['/api/sessions', '/api/sla', '/api/admin/replay']));
    const guide = await get<string>('/go-live');
    expect(guide.status).toBe(200);
    expect(guide.body).toContain('PLATFORMAPI_WEBHOOK_SECRET');
  });

  it('numbers on the demo dataset equal an independent reading of the fixtures', async () => {
    const now = Date.now();
    // Seeded as history, months old: every session is closed by the time it is read.
    const o = oracle(loadDemoRecords(), 300, now, seededAt);
    const sla = (await get<{ sessions: number; withinThreshold: number; breaches: number; withinThresholdPct: number; medianFirstResponseSec: number; p90FirstResponseSec: number; byAccount: Record<string, unknown>[]; byChatter: Record<string, unknown>[] }>('/api/sla')).body;
    const pick = (f: { sessions: number; withinThreshold: number; breaches: number; withinThresholdPct: number | null; medianFirstResponseSec: number | null; p90FirstResponseSec: number | null }) =>
      ({ sessions: f.sessions, within: f.withinThreshold, breaches: f.breaches, pct: f.withinThresholdPct, median: f.medianFirstResponseSec, p90: f.p90FirstResponseSec });
    expect(o.sessionCount).toBeGreaterThan(100);
    expect(pick(sla)).toEqual(o.sla);
    expect(Object.fromEntries(sla.byAccount.map((a) => [a.accountId, pick(a as never)]))).toEqual(o.slaByAccount);
    expect(Object.fromEntries(sla.byChatter.filter((c) => c.chatterId !== null).map((c) => [c.chatterId, pick(c as never)]))).toEqual(o.slaByChatter);
    // Replies credited to nobody: one row without an id, last.
    const nobodyRow = sla.byChatter.at(-1);
    expect(nobodyRow?.chatterId === null ? pick(nobodyRow as never) : null).toEqual(o.slaUnattributed);

    const stats = (await get<{ openSessions: number; awaitingReply: number; breachedNow: number }>('/api/stats')).body;
    expect(stats).toMatchObject({ openSessions: o.openSessions, awaitingReply: o.awaiting, breachedNow: o.awaiting });
    const overview = (await get<{ sessions: { total: number } }>('/api/overview')).body;
    expect(overview.sessions.total).toBe(o.sessionCount);

    const fans = (await get<{ items: { accountId: string; fanId: string; lifetimeSpendCents: number | null }[] }>('/api/fans?limit=500')).body.items;
    expect(Object.fromEntries(fans.map((f) => [`${f.accountId}:${f.fanId}`, f.lifetimeSpendCents]))).toEqual(o.lifetimeSpend);

    const scorecard = (await get<{ items: { chatterId: string; sessions: number; revenueCents: number; sla: Parameters<typeof pick>[0] }[]; unattributed: Record<string, number | null> }>('/api/chatters/scorecard')).body;
    const cards = scorecard.items;
    // What nobody is named for: replies without a chatter, and revenue credited to none.
    const nobodySessions = o.slaUnattributed?.sessions ?? 0;
    const answered = Object.values(o.slaByChatter).reduce((n, f) => n + f.sessions, 0) + nobodySessions;
    const nobodyRevenue = o.revenueCents - Object.values(o.revenueByChatter).reduce((n, c) => n + c, 0);
    expect(nobodyRevenue).toBeGreaterThan(0);
    expect(scorecard.unattributed).toEqual({
      sessions: nobodySessions, sessionsPct: Math.round((nobodySessions / answered) * 1000) / 10,
      revenueCents: nobodyRevenue, revenuePct: Math.round((nobodyRevenue / o.revenueCents) * 1000) / 10,
    });
    expect(Object.fromEntries(cards.map((c) => [c.chatterId, c.revenueCents]))).toEqual(o.revenueByChatter);
    expect(Object.fromEntries(cards.map((c) => [c.chatterId, c.sessions]))).toEqual(o.sessionsByChatter);
    for (const c of cards) expect(pick(c.sla), c.chatterId).toEqual(o.slaByChatter[c.chatterId]);
  });

  it('answers the analysis of a known session and 404 for an unknown one; a chat in detail', async () => {
    const sessions = (await get<{ items: { id: string; chatId: string; accountId: string }[] }>('/api/sessions?limit=1')).body.items;
    const first = sessions[0];
    expect(first).toBeDefined();
    const analysis = await get<{ session: { id: string }; metrics: Record<string, unknown>; alerts: unknown[]; labels: unknown[]; recommendations: unknown[] }>(`/api/sessions/${encodeURIComponent(first?.id ?? '')}/analysis`);
    expect(analysis.status).toBe(200);
    expect(analysis.body).toMatchObject({ session: { id: first?.id }, alerts: expect.any(Array), labels: expect.any(Array), recommendations: expect.any(Array) });
    expect(analysis.body.metrics).toHaveProperty('firstResponseSec');
    expect(await get('/api/sessions/acct_nope%3A1%3A1/analysis')).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    const chat = await get<{ chats: unknown[]; sessions: { id: string }[]; messages: unknown[] }>(`/api/chats?chatId=${first?.chatId}&accountId=${first?.accountId}`);
    expect(chat.status).toBe(200);
    expect(chat.body.sessions.map((s) => s.id)).toContain(first?.id);
    expect(chat.body.messages.length).toBeGreaterThan(0);
    expect(await get('/api/chats?chatId=999999999999')).toMatchObject({ status: 404 });
  });

  it('verify finds the seeded figures consistent, and names a totals row, a month bucket and an all-time bucket that were tampered with', async () => {
    const admin = { authorization: `Bearer ${ADMIN}` };
    expect((await get('/api/admin/verify')).status).toBe(401);
    const clean = await get<{ ok: boolean; accounts: number; differences: unknown[] }>('/api/admin/verify', admin);
    expect(clean.status).toBe(200);
    expect(clean.body).toMatchObject({ ok: true, accounts: 3, differences: [] });
    const collections = await app.store.listCollections();
    const stats = app.store.collection(collections.find((c) => c.startsWith('account_stats_v')) ?? '');
    const row = (await stats.find({}, { limit: 1 }))[0];
    expect(row).toBeDefined();
    await stats.updateOne({ _id: row?._id }, { $inc: { sessionsClosed: 1 } });
    const buckets = app.store.collection(collections.find((c) => c.startsWith('report_buckets_v')) ?? '');
    const bucket = (await buckets.find({ _id: { $gte: 'm|', $lt: 'm}' }, accountId: row?.accountId }, { limit: 1 }))[0];
    await buckets.updateOne({ _id: bucket?._id }, { $inc: { revenueCents: -100 } });
    // The all-time bucket is a third place the figure lives: checked on its own.
    const allTime = (await buckets.find({ _id: { $gte: 'all|', $lt: 'all}' }, accountId: row?.accountId }))[0];
    expect(allTime).toBeDefined();
    await buckets.updateOne({ _id: allTime?._id }, { $inc: { messages: 2 } });
    const damaged = await get<{ ok: boolean; differences: { accountId: string; figure: string; source: string; documents: number; found: number }[] }>(`/api/admin/verify?accountId=${String(row?.accountId)}`, admin);
    expect(damaged.body.ok).toBe(false);
    expect(damaged.body.differences).toEqual([
      { accountId: row?.accountId, figure: 'sessionsClosed', source: 'totals', documents: expect.any(Number), found: expect.any(Number) },
      { accountId: row?.accountId, figure: 'revenueCents', source: 'buckets', documents: expect.any(Number), found: expect.any(Number) },
      { accountId: row?.accountId, figure: 'messages', source: 'all-time', documents: expect.any(Number), found: expect.any(Number) },
    ]);
    const [closed, revenue] = damaged.body.differences;
    expect((closed?.found ?? 0) - (closed?.documents ?? 0)).toBe(1);
    expect((revenue?.documents ?? 0) - (revenue?.found ?? 0)).toBe(100);
    await stats.updateOne({ _id: row?._id }, { $inc: { sessionsClosed: -1 } });
    await buckets.updateOne({ _id: bucket?._id }, { $inc: { revenueCents: 100 } });
    await buckets.updateOne({ _id: allTime?._id }, { $inc: { messages: -2 } });
    expect((await get<{ ok: boolean }>('/api/admin/verify', admin)).body.ok).toBe(true);
  });

  // Last in the file: it damages stored documents. A time no Date can hold, stored before the
  // door bounded times, once made every list answer 500 for good (issue 27).
  it('shows a stored time that no date can hold as null instead of answering 500', async () => {
    const collections = await app.store.listCollections();
    for (const prefix of ['sessions_v', 'messages_v', 'chats_v', 'account_stats_v', 'payments_v']) {
      for (const name of collections.filter((c) => c.startsWith(prefix))) {
        const docs = await app.store.collection(name).find({}, { limit: 5 });
        for (const d of docs) {
          const times = Object.fromEntries(Object.entries(d).filter(([k, v]) => k.endsWith('At') && typeof v === 'number').map(([k], i) => [k, i % 2 === 0 ? 1e300 : -8.7e15]));
          if (Object.keys(times).length > 0) await app.store.collection(name).updateOne({ _id: d._id }, { $set: times });
        }
      }
    }
    for (const path of ['/api/sessions', '/api/messages', '/api/chats?limit=5', '/api/fans', '/api/accounts', '/api/stats', '/api/floor', '/api/overview', '/api/alerts']) {
      const res = await get(path);
      expect(res.status, `${path}: ${JSON.stringify(res.body).slice(0, 300)}`).toBe(200);
    }
  });
});
