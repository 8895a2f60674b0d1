// The ops routes through inject(): /metrics counts what happened (webhooks by outcome, appends,
// store writes, lag that drains), needs an admin when reads need a key, and exports every
// metric the Grafana dashboard asks for; request ids travel in and out. What needs processes
// (a worker's own ops port, the shutdown deadline) is in test/e2e/operations.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/app-harness.js';
import { messageBody } from '../support/platform.js';
import { parsePrometheus, total, type Sample } from '../support/prometheus.js';
import { eventually } from '../support/wait.js';

const SECRET = 'ops-test-secret';
const started: Harness[] = [];
afterAll(async () => { await Promise.all(started.map((h) => h.stop())); });
async function start(env: Record<string, string> = {}): Promise<Harness> {
  const h = await startHarness(env);
  started.push(h);
  return h;
}
async function scrape(h: Harness, token?: string): Promise<Sample[]> {
  const res = await h.call<string>('GET', '/metrics', { token });
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}: ${res.text}`);
  return parsePrometheus(res.text);
}

const fanMessage = (i: number, fanId = 900 + i): string => messageBody({
  accountId: 'acct_ops', fanId, messageId: 7_000_000 + i, createdAt: new Date(Date.parse('2026-11-20T10:00:00Z') + i * 1000).toISOString(),
  text: `hello ${i}`, direction: 'received',
});

describe('/metrics', () => {
  it('counts webhooks by outcome, appends and store writes, and the lag it shows drains to zero', async () => {
    const h = await start({ PLATFORMAPI_WEBHOOK_SECRET: SECRET });
    for (let i = 0; i < 5; i++) expect((await h.webhook(fanMessage(i), { secret: SECRET, key: `evt_ops_${i}` })).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await h.webhook(fanMessage(10 + i), { signature: 'sha256=00', key: `evt_ops_${10 + i}` })).status).toBe(401);
    expect((await h.webhook('{"not json', { secret: SECRET, key: 'evt_ops_bad' })).status).toBe(400);

    const after = await eventually(async () => {
      const s = await scrape(h);
      return total(s, 'convops_consumer_lag_records') === 0 && total(s, 'convops_store_write_seconds_count') > 0 ? s : undefined;
    }, 30_000, 'lag drained');
    expect(total(after, 'convops_webhooks_total', { outcome: 'accepted' })).toBe(5);
    expect(total(after, 'convops_webhooks_total', { outcome: 'refused', reason: 'signature' })).toBe(2);
    expect(total(after, 'convops_webhooks_total', { outcome: 'refused', reason: 'invalid_input' })).toBe(1);
    expect(total(after, 'convops_http_request_duration_seconds_count', { route: '/webhooks/platform', status: '200' })).toBe(5);
    expect(total(after, 'convops_log_append_seconds_count', { outcome: 'ok' })).toBeGreaterThanOrEqual(5);
    // Lag per partition, for every consuming role this process runs.
    const lagRoles = new Set(after.filter((s) => s.name === 'convops_consumer_lag_records').map((s) => s.labels.role));
    expect([...lagRoles].sort()).toEqual(['intelligence', 'processor', 'projector']);
    expect(after.filter((s) => s.name === 'convops_consumer_lag_records' && s.labels.role === 'processor')).toHaveLength(4);
    expect(after.some((s) => s.name === 'convops_freshness_seconds' && s.labels.role === 'projector')).toBe(true);
    expect(after.filter((s) => s.name === 'convops_alerts_open').map((s) => s.labels.severity).sort()).toEqual(['critical', 'info', 'warning']);
    // prom-client's process metrics come along.
    expect(after.some((s) => s.name === 'process_cpu_user_seconds_total')).toBe(true);
    // A raw URL never becomes a label: unknown paths share one series.
    await h.call('GET', `/api/no-such/${'x'.repeat(40)}`);
    await h.call('GET', '/api/no-such/other');
    // Scrapes within a second share one collection.
    await new Promise((r) => setTimeout(r, 1100));
    const routes = new Set((await scrape(h)).filter((s) => s.name === 'convops_http_request_duration_seconds_count').map((s) => s.labels.route));
    expect([...routes].filter((r) => r?.includes('no-such'))).toEqual([]);
    expect(routes.has('unmatched')).toBe(true);
  });

  it('reports the size of each bookkeeping collection from the store\'s counts', async () => {
    const h = await start({ PLATFORMAPI_WEBHOOK_SECRET: SECRET, EVENT_DIGESTS: 'on' });
    for (let i = 0; i < 3; i++) expect((await h.webhook(fanMessage(20 + i, 950), { secret: SECRET, key: `evt_ops_book_${i}` })).status).toBe(200);
    const after = await eventually(async () => {
      const s = await scrape(h);
      return total(s, 'convops_consumer_lag_records') === 0 && total(s, 'convops_bookkeeping_documents', { collection: 'event_digests' }) > 0 ? s : undefined;
    }, 30_000, 'lag drained');
    const sizes = Object.fromEntries(after.filter((s) => s.name === 'convops_bookkeeping_documents').map((s) => [s.labels.collection, s.value]));
    // One ledger entry per message taken in; a digest per session event the projector took.
    expect(sizes).toMatchObject({ chat_ledger: 3, chat_state_rollbacks: 0, alert_hook_deliveries: 0 });
    expect(sizes.event_digests).toBeGreaterThanOrEqual(3);
  });

  it('reports the documents the embedded store examined, per collection, rising as reads read', async () => {
    const h = await start({});
    const sessionsRead = (samples: readonly Sample[]): Sample | undefined =>
      samples.find((x) => x.name === 'convops_store_documents_examined_total' && /^sessions(_v\d+)?$/.test(x.labels.collection ?? ''));
    expect((await h.webhook(fanMessage(30, 950), { key: 'evt_ops_examined_0' })).status).toBe(200);
    await h.settled();
    const before = sessionsRead(await scrape(h));
    expect(before, 'the sessions collection has been read (the projector loads what it folds)').toBeDefined();
    expect((await h.call('GET', '/api/sessions?sort=opened')).status).toBe(200);
    // Scrapes are kept for a moment (SCRAPE_CACHE_MS): the count shows on a later one.
    await eventually(async () => ((sessionsRead(await scrape(h))?.value ?? 0) > (before?.value ?? Infinity) ? true : undefined), 10_000, 'the read counted');
  });

  it('exports every metric the Grafana dashboard asks for', async () => {
    const dashboard = readFileSync(join(import.meta.dirname, '../../docs/grafana-dashboard.json'), 'utf8');
    const wanted = new Set([...dashboard.matchAll(/\b(convops_[a-z_]+|process_[a-z_]+|nodejs_[a-z0-9_]+)/g)].map((m) => (m[1] as string).replace(/_(bucket|count|sum)$/, '')));
    // The model counters exist where a model provider is configured (it is never called here).
    const h = await start({ MODEL_BASE_URL: 'http://127.0.0.1:9', MODEL_API_KEY: 'k', MODEL_NAME: 'm' });
    const text = (await h.call<string>('GET', '/metrics')).text;
    const exported = new Set([...text.matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1] as string));
    expect([...wanted].filter((name) => !exported.has(name))).toEqual([]);
    expect(wanted.size).toBeGreaterThanOrEqual(12);
  });

  it('needs an admin credential when reads need a key; the probes stay public', async () => {
    const admin = 'ops-test-admin-token-0123456789';
    const h = await start({ ROLES: 'api', READ_AUTH: 'required', ADMIN_TOKEN: admin });
    expect((await h.call('GET', '/metrics')).status).toBe(401);
    // A viewer key reads every account, yet the metrics are the operator's: alerts, webhooks, lag.
    const viewer = (await h.call<{ secret: string }>('POST', '/api/admin/keys', { token: admin, body: { name: 'viewer', role: 'viewer' } })).body.secret;
    expect((await h.call('GET', '/metrics', { token: viewer })).status).toBe(403);
    expect(total(await scrape(h, admin), 'convops_alerts_open')).toBe(0);
    // Balancers carry no key.
    expect((await h.call('GET', '/api/health/ready')).status).toBe(200);
  });
});

describe('request ids', () => {
  it('a sane x-request-id is echoed in the header and the error body; anything else is replaced by a fresh id', async () => {
    const h = await start({ ROLES: 'api' });
    const given = await h.call('GET', '/api/sessions/nope', { headers: { 'x-request-id': 'lb-7f3a.42' } });
    expect(given.headers['x-request-id']).toBe('lb-7f3a.42');
    expect(given.body).toMatchObject({ code: 'NOT_FOUND', requestId: 'lb-7f3a.42' });

    for (const bad of ['has space', 'x'.repeat(129), '"quoted"', '<script>']) {
      const res = await h.call<{ requestId: string }>('GET', '/api/sessions/nope', { headers: { 'x-request-id': bad } });
      const id = String(res.headers['x-request-id'] ?? '');
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.body.requestId).toBe(id);
    }
    const a = (await h.call('GET', '/api/health/live')).headers['x-request-id'];
    const b = (await h.call('GET', '/api/health/live')).headers['x-request-id'];
    expect(a).not.toBe(b);
    // Success bodies stay as they were: the id is in the header only.
    expect((await h.call('GET', '/api/health/live', { headers: { 'x-request-id': 'abc' } })).body).not.toHaveProperty('requestId');
  });
});
