// The operating surface where it needs processes: a worker without the API serves metrics and
// probes on its ops port; a stop that hangs ends at SHUTDOWN_TIMEOUT_MS; readiness by role.
// What the API's /metrics and request ids do is in test/http/ops.test.ts.
import { afterAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../src/app.js';
import { readiness } from '../../src/observability/readiness.js';
import { deploymentEnv, removeDataDirs, startWithEnv } from '../support/deployments.js';
import { messageBody, postWebhook } from '../support/platform.js';
import { scrape, total } from '../support/prometheus.js';
import { startWorkerProcess } from '../support/service-process.js';
import { eventually } from '../support/wait.js';

const running: RunningApp[] = [];
afterAll(async () => {
  await Promise.all(running.map((a) => a.stop()));
  removeDataDirs();
});

const fanMessage = (i: number, fanId = 900 + i): string => messageBody({
  accountId: 'acct_ops', fanId, messageId: 7_000_000 + i, createdAt: new Date(Date.parse('2026-11-20T10:00:00Z') + i * 1000).toISOString(),
  text: `hello ${i}`, direction: 'received',
});

describe('metrics and probes of a worker', () => {
  it('a worker without the API serves metrics and probes on its ops port', async () => {
    const env = await deploymentEnv('embedded');
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

describe('shutdown deadline', () => {
  it('a stop that hangs in a store write ends at SHUTDOWN_TIMEOUT_MS with exit code 1', async () => {
    const env = await deploymentEnv('embedded');
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
