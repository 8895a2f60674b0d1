// Every route × every kind of caller: no credential, a wrong one, a viewer, a manager and an
// admin key, and a key scoped to another account. The expected level of each route is written
// here, apart from the code; a route the service registers that this table does not know
// fails the test, so a new route cannot slip in open. Then a key scoped to one account walks
// every read and must find no trace of the other accounts in any JSON value. Through inject()
// over the real app and store in a temporary folder (test/support/app-harness.ts): no port.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemoAccounts } from '../../src/demo/fixtures.js';
import { ReadModelSet } from '../../src/read-models/read-model-set.js';
import { startHarness, type Harness } from '../support/app-harness.js';
import { messageBody } from '../support/platform.js';

const ADMIN = 'admin-token-for-access-matrix-0001';
const CONNECTOR = 'connector-token-for-access-matrix-1';
const SECRET = 'whsec_access_matrix';

type Level = 'public' | 'read' | 'manager' | 'admin' | 'webhook' | 'connector';

/** What each route needs, written from the issue, not read from the code. */
const EXPECTED: Record<string, Level> = {
  'GET /': 'public', 'GET /api': 'public', 'GET /api/health': 'public', 'GET /go-live': 'public', 'GET /api/floor': 'public',
  'GET /api/floor/stream': 'public', 'GET /floor': 'public', 'GET /console': 'public', 'GET /assets/:name': 'public', 'GET /favicon.ico': 'public',
  'GET /api/health/live': 'public', 'GET /api/health/ready': 'public', 'GET /metrics': 'admin',
  'GET /docs': 'public', 'GET /docs/': 'public', 'GET /docs/json': 'public', 'GET /docs/yaml': 'public', 'GET /docs/static/*': 'public',
  'GET /docs/static/index.html': 'public', 'GET /docs/static/swagger-initializer.js': 'public', 'GET /docs/*': 'public',
  'GET /api/overview': 'read', 'GET /api/stats': 'read', 'GET /api/sla': 'read', 'GET /api/fans': 'read', 'GET /api/accounts': 'read',
  'GET /api/sessions': 'read', 'GET /api/sessions/:id/analysis': 'read', 'GET /api/sessions/:id/explain': 'read', 'GET /api/messages': 'read', 'GET /api/chats': 'read',
  'GET /api/chatters/scorecard': 'read', 'GET /api/alerts': 'read', 'GET /api/conversion': 'read', 'GET /api/conversion/daily': 'read',
  'GET /api/exports/conversion.csv': 'read', 'GET /api/exports/campaigns.csv': 'read',
  'GET /api/exports/sessions.csv': 'read', 'GET /api/exports/payments.csv': 'read', 'GET /api/exports/scorecard.csv': 'read', 'GET /api/exports/sla.csv': 'read',
  'POST /api/alerts/:id/ack': 'manager', 'POST /api/admin/close-session': 'manager',
  'POST /api/admin/reassignments': 'manager', 'GET /api/admin/reassignments': 'manager',
  'GET /api/chatters': 'read', 'GET /api/chatters/clocked': 'read', 'PUT /api/admin/chatters/:chatterId': 'admin', 'POST /api/admin/chatters/:chatterId/clock': 'manager',
  'PUT /api/admin/chatters/:chatterId/roster': 'manager', 'GET /api/chatters/:chatterId/roster': 'read', 'GET /api/shifts': 'read', 'GET /api/chatters/pay': 'read', 'GET /api/exports/shifts.csv': 'read', 'GET /api/exports/pay.csv': 'read', 'GET /api/exports/coverage.csv': 'read',
  'POST /api/admin/intelligence/run': 'admin', 'POST /api/admin/replay': 'admin', 'GET /api/admin/replay': 'admin', 'GET /api/admin/replay/:id': 'admin',
  'POST /api/admin/seed-demo': 'admin', 'POST /api/admin/purge-demo': 'admin', 'POST /api/demo/ingest': 'admin',
  'POST /api/admin/accounts': 'admin', 'POST /api/admin/accounts/seed': 'admin', 'POST /api/admin/accounts/sync': 'admin',
  'POST /api/admin/accounts/auth/start': 'admin', 'POST /api/admin/accounts/auth/poll': 'admin', 'POST /api/admin/accounts/auth/2fa': 'admin',
  'POST /api/admin/accounts/:id/disconnect': 'admin', 'POST /api/admin/backfill': 'admin', 'POST /api/admin/backfill-transactions': 'admin',
  'GET /api/admin/backfill': 'admin', 'GET /api/admin/backfill/:id': 'admin',
  'PUT /api/admin/accounts/:id/business-hours': 'admin', 'GET /api/admin/accounts/:id/business-hours': 'admin', 'DELETE /api/admin/accounts/:id/business-hours': 'admin',
  'PUT /api/admin/accounts/:id/banned-phrases': 'admin', 'GET /api/admin/accounts/:id/banned-phrases': 'admin',
  'POST /api/admin/keys': 'admin', 'GET /api/admin/keys': 'admin', 'DELETE /api/admin/keys/:id': 'admin', 'GET /api/admin/set-aside': 'admin', 'GET /api/admin/set-aside/:id': 'admin', 'DELETE /api/admin/set-aside/:id': 'admin', 'POST /api/admin/set-aside/:id/retry': 'admin', 'GET /api/admin/verify': 'admin', 'GET /api/admin/definitions': 'admin', 'GET /api/admin/definitions/generations': 'admin', 'POST /api/admin/definitions/generations': 'admin', 'GET /api/admin/definitions/generations/:n': 'admin', 'GET /api/admin/definitions/generations/:n/diff': 'admin', 'POST /api/admin/definitions/generations/:n/apply': 'admin', 'POST /api/admin/definitions/generations/:n/resume': 'admin', 'DELETE /api/admin/definitions/generations/:n': 'admin', 'POST /api/admin/backup': 'admin',
  'POST /api/admin/alert-hooks': 'admin', 'GET /api/admin/alert-hooks': 'admin', 'GET /api/admin/alert-hooks/:id': 'admin', 'DELETE /api/admin/alert-hooks/:id': 'admin',
  'POST /api/admin/alert-hooks/:id/enable': 'admin', 'POST /api/admin/alert-hooks/:id/test': 'admin', 'GET /api/admin/alert-hooks/:id/deliveries': 'admin',
  'POST /webhooks/platform': 'webhook', 'POST /api/connector/ingest': 'connector',
};

type Caller = 'none' | 'wrong' | 'viewer' | 'manager' | 'admin' | 'scoped-other';
const CALLERS: readonly Caller[] = ['none', 'wrong', 'viewer', 'manager', 'admin', 'scoped-other'];

/** The status a caller gets at the gate (null: let through, the handler answers). */
function gate(level: Level, caller: Caller): 401 | 403 | null {
  if (level === 'public') return caller === 'wrong' ? 401 : null;
  if (level === 'webhook' || level === 'connector') return 401; // none of these callers carries their credential
  if (caller === 'none' || caller === 'wrong') return 401;
  const rank = { viewer: 0, manager: 1, 'scoped-other': 1, admin: 2 }[caller];
  const needed = { read: 0, manager: 1, admin: 2 }[level];
  return rank >= needed ? null : 403;
}

interface Answer { status: number; body: unknown }

describe('access: every route × every caller', () => {
  let app: Harness;
  const tokens = {} as Record<Caller, string | null>;
  let own = ''; // the account the scoped key may see
  let foreign = { accountId: '', sessionId: '', chatId: '', alertId: '' };
  const forbiddenExact = new Set<string>();
  const forbiddenTexts = new Set<string>();

  const call = async (method: string, path: string, token: string | null, body?: unknown): Promise<Answer> => {
    // Read as it comes: an event stream never ends, so inject() alone would wait for ever.
    const res = await app.stream(path, { method, ...(token ? { token } : {}), ...(body === undefined ? {} : { body }) });
    // An event stream that was let through never ends: its status is the answer.
    if (res.status >= 200 && res.status < 300 && String(res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
      res.close();
      return { status: res.status, body: null };
    }
    const text = await res.text();
    let parsed: unknown = text;
    try { parsed = JSON.parse(text); } catch { /* not JSON: the docs UI, the guide */ }
    return { status: res.status, body: parsed };
  };

  beforeAll(async () => {
    app = await startHarness({
      ADMIN_TOKEN: ADMIN, CONNECTOR_TOKEN: CONNECTOR, PLATFORMAPI_WEBHOOK_SECRET: SECRET, READ_AUTH: 'required',
      RATE_LIMIT_MAX: '100000', REPORT_RATE_LIMIT_MAX: '100000', FLOOR_RATE_LIMIT_MAX: '100000', REFUSAL_LIMIT_MAX: '100000', ALERT_SWEEP_SEC: '0',
    }, { driven: true });
    expect((await call('POST', '/api/admin/seed-demo', ADMIN, {})).status).toBe(200);
    const accounts = loadDemoAccounts().map((a) => a.id);
    expect(accounts.length).toBeGreaterThanOrEqual(2);
    const [foreignAccount = '', ownAccount = ''] = accounts;
    // Fans only the foreign account has, waiting long enough to raise alerts, with words found nowhere else.
    for (let i = 0; i < 5; i++) {
      const raw = messageBody({
        accountId: foreignAccount, fanId: 990_001 + i, messageId: 880_001 + i, direction: 'received',
        createdAt: new Date(Date.now() - 20 * 60_000).toISOString(), text: `foreign secret number ${i} of the matrix`,
      });
      expect((await app.webhook(raw, { secret: SECRET, key: `evt_matrix_${i}` })).status).toBe(200);
    }
    await app.settled(120_000);

    own = ownAccount;
    const key = async (role: string, scope?: string[]) => {
      const r = await call('POST', '/api/admin/keys', ADMIN, { name: `matrix ${role}`, role, ...(scope ? { accounts: scope } : {}) });
      expect(r.status).toBe(201);
      return (r.body as { secret: string }).secret;
    };
    tokens.none = null;
    tokens.wrong = 'cvk_0123456789abcdef_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    tokens.viewer = await key('viewer');
    tokens.manager = await key('manager');
    tokens.admin = await key('admin');
    tokens['scoped-other'] = await key('manager', [own]);

    // What belongs to the other accounts only: ids and texts the scoped key must never see.
    const rm = await new ReadModelSet(app.store).active();
    const sessions = await rm.sessions.find({});
    const messages = await rm.messages.find({});
    const chatsOf = (acct: string) => new Set(sessions.filter((s) => s.accountId === acct).map((s) => s.chatId));
    const ownChats = chatsOf(own);
    const ownTexts = new Set(messages.filter((m) => m.accountId === own).map((m) => m.text));
    for (const s of sessions.filter((x) => x.accountId !== own)) {
      forbiddenExact.add(s._id);
      if (!ownChats.has(s.chatId)) forbiddenExact.add(s.chatId);
    }
    for (const m of messages.filter((x) => x.accountId !== own)) {
      forbiddenExact.add(m._id);
      if (m.text && m.text.length > 12 && !ownTexts.has(m.text)) forbiddenTexts.add(m.text);
      if (m.text) for (const word of m.text.match(/foreign secret number \d/g) ?? []) forbiddenTexts.add(word);
    }
    const foreignSession = sessions.find((s) => s.accountId === foreignAccount && s.chatId === '990001');
    expect(foreignSession).toBeDefined();
    const alerts = (await call('GET', `/api/alerts?accountId=${foreignAccount}&limit=500`, ADMIN)).body as { items: { id: string }[] };
    expect(alerts.items.length).toBeGreaterThan(0);
    foreign = { accountId: foreignAccount, sessionId: foreignSession?._id ?? '', chatId: foreignSession?.chatId ?? '', alertId: alerts.items[0]?.id ?? '' };
    expect(forbiddenTexts.size).toBeGreaterThanOrEqual(5);
  }, 180_000);

  afterAll(async () => {
    await app?.stop();
  });

  it('knows every route the service registers', async () => {
    const catalogue = (await call('GET', '/api', null)).body as { routes: Record<string, string> };
    const unknown = Object.keys(catalogue.routes).filter((r) => !(r in EXPECTED));
    expect(unknown).toEqual([]);
  });

  it('answers each caller at the gate as the route level says, and lets the right ones through', async () => {
    const catalogue = (await call('GET', '/api', null)).body as { routes: Record<string, string> };
    const mismatches: string[] = [];
    for (const route of Object.keys(catalogue.routes)) {
      const level = EXPECTED[route] ?? 'public';
      const [method = 'GET', template = '/'] = route.split(' ');
      // Writes get a body no route accepts: past the gate it is refused by validation (400),
      // so nothing is written whatever the caller. Reads use ids of the caller-visible data.
      const path = template.replace(':id', method === 'GET' ? 'no-such-id' : 'x').replace('*', 'index.css');
      const body = method === 'GET' ? undefined : { probe: 'not a field of any route' };
      for (const caller of CALLERS) {
        const r = await call(method, path, tokens[caller], body);
        const want = gate(level, caller);
        const ok = want === null ? r.status !== 401 && r.status !== 403 && r.status < 500 : r.status === want;
        if (!ok) mismatches.push(`${route} as ${caller}: ${r.status} (wanted ${want ?? 'through'}) ${JSON.stringify(r.body).slice(0, 160)}`);
        if (want !== null && r.status === want) expect(r.body, route).toMatchObject({ statusCode: want, code: want === 401 ? 'UNAUTHORIZED' : 'FORBIDDEN' });
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('the webhook and the connector take only their own credential', async () => {
    for (const token of [ADMIN, tokens.admin]) {
      expect((await call('POST', '/api/connector/ingest', token, { probe: 1 })).status).toBe(401);
    }
    expect((await call('POST', '/api/connector/ingest', CONNECTOR, { probe: 1 })).status).toBe(400);
    expect((await call('POST', '/webhooks/platform', ADMIN, { probe: 1 })).status).toBe(401);
  });

  it('a scoped key gets 404 for another account\'s ids, and changes nothing there', async () => {
    const scoped = tokens['scoped-other'];
    const f = foreign;
    const notFound = [
      ['GET', `/api/sessions/${encodeURIComponent(f.sessionId)}/analysis`],
      ['GET', `/api/sessions/${encodeURIComponent(f.sessionId)}/explain`],
      ['GET', `/api/chats?chatId=${f.chatId}`],
      ['GET', `/api/sessions?accountId=${f.accountId}`],
      ['GET', `/api/messages?accountId=${f.accountId}`],
      ['GET', `/api/chats?accountId=${f.accountId}`],
      ['GET', `/api/fans?accountId=${f.accountId}`],
      ['GET', `/api/sla?accountId=${f.accountId}`],
      ['GET', `/api/sla?accountId=${f.accountId}&from=2020-01-01`],
      ['GET', `/api/overview?accountId=${f.accountId}`],
      ['GET', `/api/overview?accountId=${f.accountId}&from=2020-01-01T00:00:00Z`],
      ['GET', `/api/accounts?accountId=${f.accountId}`],
      ['GET', `/api/chatters/scorecard?accountId=${f.accountId}`],
      ['GET', `/api/conversion?accountId=${f.accountId}`],
      ['GET', `/api/conversion/daily?accountId=${f.accountId}`],
      ['GET', `/api/exports/conversion.csv?accountId=${f.accountId}`],
      ['GET', `/api/alerts?accountId=${f.accountId}`],
      ['POST', `/api/alerts/${encodeURIComponent(f.alertId)}/ack`],
    ] as const;
    for (const [method, path] of notFound) {
      const r = await call(method, path, scoped, method === 'POST' ? {} : undefined);
      expect(r.status, path).toBe(404);
      expect(JSON.stringify(r.body), path).not.toContain(f.chatId === '' ? '\u0000' : `"${f.chatId}"`);
    }
    const close = await call('POST', '/api/admin/close-session', scoped, { sessionId: f.sessionId });
    expect(close.status).toBe(404);
    // The same message for an id that exists elsewhere and one that exists nowhere.
    const ghost = await call('GET', '/api/sessions/acct_nowhere%3A1%3A1/analysis', scoped);
    const real = await call('GET', `/api/sessions/${encodeURIComponent(f.sessionId)}/analysis`, scoped);
    expect((real.body as { message: string }).message.replace(f.sessionId, 'ID')).toBe((ghost.body as { message: string }).message.replace('acct_nowhere:1:1', 'ID'));
    // Nothing was acked or closed.
    const alert = (await call('GET', `/api/alerts?status=all&accountId=${f.accountId}&limit=500`, ADMIN)).body as { items: { id: string; status: string }[] };
    expect(alert.items.find((a) => a.id === f.alertId)?.status).toBe('open');
    const session = (await call('GET', `/api/sessions/${encodeURIComponent(f.sessionId)}/analysis`, ADMIN)).body as { session: { status: string } };
    expect(session.session.status).toBe('open');
  });

  /** Every string anywhere in a JSON value. */
  const strings = (v: unknown, out: string[] = []): string[] => {
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v)) for (const x of v) strings(x, out);
    else if (v && typeof v === 'object') for (const x of Object.values(v)) strings(x, out);
    return out;
  };

  it('a scoped key finds no trace of another account in any response', async () => {
    const scoped = tokens['scoped-other'];
    const reads = [
      '/api/overview', '/api/stats', '/api/sla', `/api/sla?accountId=${own}`, '/api/fans?limit=500', '/api/fans?sort=recent&limit=500',
      '/api/accounts', '/api/sessions?limit=500', '/api/sessions?sort=opened&limit=500', '/api/sessions?awaiting=1&limit=500',
      '/api/messages?limit=500', `/api/messages?accountId=${own}&limit=500`, '/api/chats?limit=500', '/api/chatters/scorecard',
      '/api/alerts?status=all&limit=500', '/api/alerts?limit=500', '/api/floor',
      // Windows: whole buckets and partial hours at both ends.
      '/api/sla?from=2020-01-01&to=2030-01-01T00:17:00.123Z', '/api/chatters/scorecard?from=2020-01-01T00:00:00.001Z',
      '/api/overview?from=2020-01-01&to=2030-01-01T00:00:00.001Z', '/api/accounts?from=2020-01-01T13:13:13Z',
      '/api/conversion', '/api/conversion?from=2020-01-01T00:00:00.001Z&to=2030-01-01T00:17:00Z', '/api/conversion/daily?from=2026-05-01&to=2026-07-01',
    ];
    const sessions = ((await call('GET', '/api/sessions?limit=5', scoped)).body as { items: { id: string; chatId: string }[] }).items;
    expect(sessions.length).toBeGreaterThan(0);
    for (const s of sessions) reads.push(`/api/sessions/${encodeURIComponent(s.id)}/analysis`, `/api/sessions/${encodeURIComponent(s.id)}/explain`, `/api/chats?chatId=${s.chatId}&accountId=${own}`);
    const leaks: string[] = [];
    let seenOwn = 0;
    for (const path of reads) {
      const r = await call('GET', path, scoped);
      expect(r.status, path).toBe(200);
      for (const s of strings(r.body)) {
        if (s === own) seenOwn++;
        for (const a of loadDemoAccounts().map((x) => x.id).filter((x) => x !== own)) if (s.includes(a)) leaks.push(`${path}: account ${a} in "${s.slice(0, 80)}"`);
        if (forbiddenExact.has(s)) leaks.push(`${path}: foreign id ${s}`);
        if (forbiddenTexts.has(s) || s.includes('foreign secret')) leaks.push(`${path}: foreign text "${s.slice(0, 40)}"`);
      }
    }
    expect(leaks.slice(0, 20)).toEqual([]);
    // The walk saw real data of its own account, so an empty answer everywhere cannot pass.
    expect(seenOwn).toBeGreaterThan(20);
    // The unscoped view of the same routes does show the other accounts: the check can fail.
    const all = strings((await call('GET', '/api/sessions?limit=500', tokens.viewer)).body);
    expect(all.some((s) => forbiddenExact.has(s))).toBe(true);
  });

  it('the floor without a key carries no fan id, no message text, and (reads need a key) no account or chatter; a key sees full alerts', async () => {
    const rm = await new ReadModelSet(app.store).active();
    const chatIds = new Set((await rm.sessions.find({})).map((s) => s.chatId));
    const texts = new Set((await rm.messages.find({})).map((m) => m.text).filter((t): t is string => typeof t === 'string' && t.length > 3));
    const pub = await call('GET', '/api/floor', null);
    expect(pub.status).toBe(200);
    const found = strings(pub.body).filter((s) => chatIds.has(s) || texts.has(s) || [...chatIds].some((c) => s.includes(`fan ${c}`) || s.includes(`:${c}`)));
    expect(found).toEqual([]);
    expect((pub.body as { topAlerts: unknown[] }).topAlerts.length).toBeGreaterThan(0);
    const full = await call('GET', '/api/floor', tokens.viewer);
    expect(strings(full.body).some((s) => chatIds.has(s))).toBe(true);
    // READ_AUTH=required: totals only, so nobody learns which accounts exist or who works them.
    const accounts = loadDemoAccounts();
    const chatters = (full.body as { chatters: { id: string }[] }).chatters.map((c) => c.id);
    expect(chatters.length).toBeGreaterThan(0);
    const named = strings(pub.body).filter((s) => accounts.some((a) => s.includes(a.id) || s.includes(a.displayName)) || chatters.includes(s));
    expect(named).toEqual([]);
    expect(pub.body).toMatchObject({ view: 'aggregate', accounts: [], chatters: [] });
  });

  it('a revoked key stops working at once, and the secret is never listed', async () => {
    const made = await call('POST', '/api/admin/keys', ADMIN, { name: 'to revoke', role: 'viewer' });
    const { id, secret } = made.body as { id: string; secret: string };
    expect((await call('GET', '/api/overview', secret)).status).toBe(200);
    const listed = await call('GET', '/api/admin/keys', ADMIN);
    expect(JSON.stringify(listed.body)).not.toContain(secret.slice(-20));
    expect((listed.body as { items: { id: string }[] }).items.some((k) => k.id === id)).toBe(true);
    expect((await call('DELETE', `/api/admin/keys/${id}`, ADMIN)).status).toBe(200);
    expect((await call('GET', '/api/overview', secret)).status).toBe(401);
    // Stored hashed: the secret is nowhere in the store.
    const stored = JSON.stringify(await app.store.collection('api_keys').find({}));
    expect(stored).not.toContain(secret.slice(-20));
    expect(stored).toContain(id);
  });

  it('refuses an admin key with a scope, and bad key requests name the field', async () => {
    const scopedAdmin = await call('POST', '/api/admin/keys', ADMIN, { name: 'x', role: 'admin', accounts: [own] });
    expect(scopedAdmin.status).toBe(400);
    expect((scopedAdmin.body as { message: string }).message).toContain('accounts');
    const badRole = await call('POST', '/api/admin/keys', ADMIN, { name: 'x', role: 'root' });
    expect(badRole.status).toBe(400);
    expect((badRole.body as { message: string }).message).toContain('role');
    const past = await call('POST', '/api/admin/keys', ADMIN, { name: 'x', role: 'viewer', expiresAt: '2020-01-01T00:00:00Z' });
    expect(past.status).toBe(400);
    expect((past.body as { message: string }).message).toContain('expiresAt');
  });
});
