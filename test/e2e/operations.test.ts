// The operating surface: /metrics counts what happened (webhooks by outcome, appends, store
// writes, lag that drains), on the API port and on a worker's ops port; the probes answer by
// role; request ids travel in and out; a stop that hangs ends at SHUTDOWN_TIMEOUT_MS.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../src/app.js';
import { readiness } from '../../src/observability/readiness.js';
import { DEPLOYMENTS, deploymentEnv, removeDataDirs, startWithEnv } from '../support/deployments.js';
import { messageBody, postWebhook } from '../support/platform.js';
import { scrape, total } from '../support/prometheus.js';
import { startWorkerProcess } from '../support/service-process.js';
import { eventually } from '../support/wait.js';

const SECRET = 'ops-test-secret';
const running: RunningApp[] = [];
afterAll(async () => {
  await Promise.all(running.map((a) => a.stop()));
  removeDataDirs();
});

const fanMessage = (i: number, fanId = 900 + i): string => messageBody({
  accountId: 'acct_ops', fanId, messageId: 7_000_000 + i, createdAt: new Date(Date.parse('2026-11-20T10:00:00Z') + i * 1000).toISOString(),
  text: `hello ${i}`, direction: 'received',
});

describe.each(DEPLOYMENTS)('metrics and probes on %s', (kind) => {
  it('/metrics counts webhooks by outcome, appends and store writes, and the lag it shows drains to zero', async () => {
    const app = await startWithEnv(deploymentEnv(kind, { PLATFORMAPI_WEBHOOK_SECRET: SECRET }));
    running.push(app);
    const url = app.url ?? '';
    for (let i = 0; i < 5; i++) expect((await postWebhook(url, fanMessage(i), { secret: SECRET, key: `evt_ops_${i}` })).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await postWebhook(url, fanMessage(10 + i), { signature: 'sha256=00', key: `evt_ops_${10 + i}` })).status).toBe(401);
    expect((await postWebhook(url, '{"not json', { secret: SECRET, key: 'evt_ops_bad' })).status).toBe(400);

    const after = await eventually(async () => {
      const s = await scrape(url);
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
    await fetch(`${url}/api/no-such/${'x'.repeat(40)}`);
    await fetch(`${url}/api/no-such/other`);
    // Scrapes within a second share one collection.
    await new Promise((r) => setTimeout(r, 1100));
    const routes = new Set((await scrape(url)).filter((s) => s.name === 'convops_http_request_duration_seconds_count').map((s) => s.labels.route));
    expect([...routes].filter((r) => r?.includes('no-such'))).toEqual([]);
    expect(routes.has('unmatched')).toBe(true);
  });

  it('a worker without the API serves metrics and probes on its ops port', async () => {
    const env = deploymentEnv(kind);
    const api = await startWithEnv({ ...env, ROLES: 'api' });
    running.push(api);
    const worker = await startWithEnv({ ...env, ROLES: 'processor,projector' });
    running.push(worker);
    expect(worker.url).toBeNull();
    const ops = worker.opsUrl ?? '';
    expect(ops).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const ready = await fetch(`${ops}/api/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', roles: ['processor', 'projector'], checks: { consumers: { processor: true, projector: true } } });
    expect((await fetch(`${ops}/api/health/live`)).status).toBe(200);
    const apiReady = (await (await fetch(`${api.url ?? ''}/api/health/ready`)).json()) as Record<string, unknown>;
    expect(apiReady).toMatchObject({ ready: true, roles: ['api'], checks: { log: true, consumers: {} } });

    for (let i = 0; i < 3; i++) expect((await postWebhook(api.url ?? '', fanMessage(100 + i), { key: `evt_ops_${100 + i}` })).status).toBe(200);
    const s = await eventually(async () => {
      const x = await scrape(ops);
      return total(x, 'convops_store_write_seconds_count') > 0 && total(x, 'convops_consumer_lag_records') === 0 ? x : undefined;
    }, 30_000, 'worker wrote and drained');
    // The worker appended session events; the webhooks were counted where they arrived.
    expect(total(s, 'convops_log_append_seconds_count', { outcome: 'ok' })).toBeGreaterThan(0);
    expect(total(s, 'convops_webhooks_total')).toBe(0);
    expect(total(await scrape(api.url ?? ''), 'convops_webhooks_total', { outcome: 'accepted' })).toBe(3);
    // The API process runs no consumer, so it reports no lag of its own.
    expect(total(await scrape(api.url ?? ''), 'convops_consumer_lag_records')).toBe(0);
  });
});

describe('the Grafana dashboard', () => {
  it('asks only for metrics convops exports', async () => {
    const dashboard = readFileSync(join(import.meta.dirname, '../../docs/grafana-dashboard.json'), 'utf8');
    const wanted = new Set([...dashboard.matchAll(/\b(convops_[a-z_]+|process_[a-z_]+|nodejs_[a-z0-9_]+)/g)].map((m) => (m[1] as string).replace(/_(bucket|count|sum)$/, '')));
    // The model counters exist where a model provider is configured (it is never called here).
    const app = await startWithEnv(deploymentEnv('embedded', { MODEL_BASE_URL: 'http://127.0.0.1:9', MODEL_API_KEY: 'k', MODEL_NAME: 'm' }));
    running.push(app);
    const text = await (await fetch(`${app.url ?? ''}/metrics`)).text();
    const exported = new Set([...text.matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1] as string));
    expect([...wanted].filter((name) => !exported.has(name))).toEqual([]);
    expect(wanted.size).toBeGreaterThanOrEqual(12);
  });
});

describe('readiness by role', () => {
  const stages = [{ role: 'processor', running: true }, { role: 'projector', running: true }];
  it('an API process is ready while the log takes appends, whatever the store does', () => {
    expect(readiness({ roles: new Set(['api']), stopping: false, logUp: true, stages: [] }).ready).toBe(true);
    const down = readiness({ roles: new Set(['api']), stopping: false, logUp: false, stages: [] });
    expect(down.ready).toBe(false);
    expect(down.reasons.join()).toMatch(/^log: /);
  });
  it('a worker is ready when its consumers run, and nobody is ready while stopping', () => {
    expect(readiness({ roles: new Set(['processor', 'projector']), stopping: false, logUp: true, stages }).ready).toBe(true);
    expect(readiness({ roles: new Set(['processor', 'projector']), stopping: false, logUp: false, stages }).reasons).toEqual(['log: unreachable, the consumers cannot read']);
    const stalled = readiness({ roles: new Set(['processor', 'projector']), stopping: false, logUp: true, stages: [stages[0] as never, { role: 'projector', running: false }] });
    expect(stalled).toMatchObject({ ready: false, reasons: ['projector: its consumer is not running'] });
    expect(readiness({ roles: new Set(['api', 'processor', 'projector']), stopping: true, logUp: true, stages }).reasons).toEqual(['shutting down']);
  });
});

describe('request ids', () => {
  it('a sane x-request-id is echoed in the header and the error body; anything else is replaced by a fresh id', async () => {
    const app = await startWithEnv(deploymentEnv('embedded', { ROLES: 'api' }));
    running.push(app);
    const url = app.url ?? '';
    const given = await fetch(`${url}/api/sessions/nope`, { headers: { 'x-request-id': 'lb-7f3a.42' } });
    expect(given.headers.get('x-request-id')).toBe('lb-7f3a.42');
    expect(await given.json()).toMatchObject({ code: 'NOT_FOUND', requestId: 'lb-7f3a.42' });

    for (const bad of ['has space', 'x'.repeat(129), '"quoted"', '<script>']) {
      const res = await fetch(`${url}/api/sessions/nope`, { headers: { 'x-request-id': bad } });
      const id = res.headers.get('x-request-id') ?? '';
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(((await res.json()) as { requestId: string }).requestId).toBe(id);
    }
    const a = (await fetch(`${url}/api/health/live`)).headers.get('x-request-id');
    const b = (await fetch(`${url}/api/health/live`)).headers.get('x-request-id');
    expect(a).not.toBe(b);
    // Success bodies stay as they were: the id is in the header only.
    const ok = await fetch(`${url}/api/health/live`, { headers: { 'x-request-id': 'abc' } });
    expect(await ok.json()).not.toHaveProperty('requestId');
  });

  it('/metrics on the API port needs an admin credential when reads need a key', async () => {
    const admin = 'ops-test-admin-token-0123456789';
    const app = await startWithEnv(deploymentEnv('embedded', { ROLES: 'api', READ_AUTH: 'required', ADMIN_TOKEN: admin }));
    running.push(app);
    const url = app.url ?? '';
    expect((await fetch(`${url}/metrics`)).status).toBe(401);
    // A viewer key reads every account, yet the metrics are the operator's: alerts, webhooks, lag.
    const made = await fetch(`${url}/api/admin/keys`, { method: 'POST', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'viewer', role: 'viewer' }) });
    const viewer = ((await made.json()) as { secret: string }).secret;
    expect((await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${viewer}` } })).status).toBe(403);
    expect(total(await scrape(url, { authorization: `Bearer ${admin}` }), 'convops_alerts_open')).toBe(0);
    // The probes stay public: balancers carry no key.
    expect((await fetch(`${url}/api/health/ready`)).status).toBe(200);
  });
});

describe('shutdown deadline', () => {
  it('a stop that hangs in a store write ends at SHUTDOWN_TIMEOUT_MS with exit code 1', async () => {
    const env = deploymentEnv('embedded');
    const api = await startWithEnv({ ...env, ROLES: 'api' });
    running.push(api);
    const worker = await startWorkerProcess({ ...env, ROLES: 'processor', SHUTDOWN_TIMEOUT_MS: '1500', CONVOPS_FAILPOINT_STALL_BEFORE_WRITE_MS: '60000' });
    expect((await postWebhook(api.url ?? '', fanMessage(200), { key: 'evt_ops_200' })).status).toBe(200);
    // Give the worker time to take the record into a round, which then stalls before its write.
    await new Promise((r) => setTimeout(r, 2500));
    const exited = new Promise<{ code: number | null; at: number }>((res) => worker.child.once('exit', (code) => res({ code, at: Date.now() })));
    const sent = Date.now();
    worker.child.kill('SIGTERM');
    const { code, at } = await exited;
    expect(code).toBe(1);
    expect(at - sent).toBeGreaterThanOrEqual(1400);
    expect(at - sent).toBeLessThan(10_000);
  });
});
