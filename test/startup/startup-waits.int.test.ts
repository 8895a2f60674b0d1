// Start-up that waits for its dependencies (issue 28): a process started while the store or the
// broker cannot be reached stays up, serves liveness, says "not ready" naming what it waits for,
// and starts once the dependency comes; a SIGTERM meanwhile stops it at once; a malformed
// MONGO_URL still ends the start with a message.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startApp, type RunningApp } from '../../src/app.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { StartupAbortedError } from '../../src/support/dependency-wait.js';
import { createLogger } from '../../src/support/logger.js';
import { freePort, startMongo, type RunningServer } from '../infra/servers.js';
import { getJson, messageBody, postWebhook } from '../support/platform.js';
import { signBody } from '../../src/ingest/signature.js';
import { eventually, uniqueName } from '../support/wait.js';
import { serviceArgs } from '../support/service-args.js';
import { kafkaBrokers } from '../support/test-servers.js';
import { tempDir } from '../support/temp-dirs.js';

const SECRET = 'whsec_startup_secret';
const root = join(import.meta.dirname, '../..');
const dirs: string[] = [];
const cleanups: (() => Promise<unknown>)[] = [];

afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function dataDir(): string {
  const d = tempDir('convops-startup-');
  dirs.push(d);
  return d;
}

function baseEnv(extra: Record<string, string>): Record<string, string> {
  return {
    HOST: '127.0.0.1', LOG_LEVEL: 'silent', INBOUND_PARTITIONS: '2', TICK_INTERVAL_SEC: '0', DATA_DIR: dataDir(),
    STARTUP_RETRY_INITIAL_MS: '100', STARTUP_RETRY_MAX_MS: '400',
    RATE_LIMIT_MAX: '10000000', REPORT_RATE_LIMIT_MAX: '10000000', REFUSAL_LIMIT_MAX: '10000000', LIVE_CACHE_MS: '0',
    ...extra,
  };
}

interface ReadyBody { status: string; ready: boolean; reasons: string[]; checks: { log: boolean } }

async function probes(base: string): Promise<{ live: number; ready: number; reasons: string[]; logUp: boolean }> {
  const live = (await fetch(`${base}/api/health/live`)).status;
  const r = await getJson<ReadyBody>(base, '/api/health/ready');
  return { live, ready: r.status, reasons: r.body.reasons, logUp: r.body.checks.log };
}

describe('start-up waits for its dependencies', () => {
  // The embedded log, and Kafka as in the issue (a worker that could not start while the store was busy).
  it.each(['embedded', 'kafka'] as const)('a store not listening yet (%s log): live, not ready naming the store, then ready and processing a webhook once it comes', async (logKind) => {
    const mongoPort = await freePort();
    const port = await freePort();
    const env = baseEnv({
      ...(logKind === 'kafka' ? { KAFKA_BROKERS: await kafkaBrokers(), TOPIC_PREFIX: `${uniqueName('startup')}.` } : {}),
      // A try gives up after 300 ms, so the test sees several; the default is 5 s.
      MONGO_URL: `mongodb://127.0.0.1:${mongoPort}/?serverSelectionTimeoutMS=300`,
      MONGO_DB: uniqueName('convops_startup').replace(/-/g, '_'),
      PORT: String(port),
      PLATFORMAPI_WEBHOOK_SECRET: SECRET,
    });
    const config = loadConfig(env);
    const starting = startApp(config, createLogger(config.logLevel));
    cleanups.push(() => starting.then((a) => a.stop()));
    const base = `http://127.0.0.1:${port}`;
    const waiting = await eventually(async () => {
      const p = await probes(base).catch(() => undefined);
      return p && /attempt [3-9]/.test(p.reasons.join()) ? p : undefined;
    }, 20_000, 'several tries at the store');
    expect(waiting.live).toBe(200);
    expect(waiting.ready).toBe(503);
    expect(waiting.reasons).toEqual([expect.stringMatching(new RegExp(`^store: waiting for MongoDB at 127\\.0\\.0\\.1:${mongoPort} \\(attempt \\d+ `))]);
    // The log answered meanwhile: only the store is awaited.
    expect(waiting.logUp).toBe(true);
    // A delivery meanwhile is told to come back (503 with Retry-After), not that the route does
    // not exist: a platform drops a delivery on 404, and on 413 for a body over the probes' limit.
    const early = messageBody({ accountId: 'acct_startup', fanId: 880002, messageId: 9880002, createdAt: '2026-06-10T18:59:00+00:00', direction: 'received', text: 'x'.repeat(4_000) });
    const refused = await fetch(`${base}/webhooks/platform`, { method: 'POST', headers: { 'content-type': 'application/json', signature: signBody(SECRET, early), 'x-ofapi-idempotency-key': 'evt_startup_0' }, body: early });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toMatchObject({ code: 'NOT_READY', message: expect.stringContaining('starting') });

    const mongo: RunningServer = await startMongo(256, false, mongoPort);
    const app: RunningApp = await starting;
    // Stopped before the store goes (cleanups run last to first).
    cleanups.splice(cleanups.length - 1, 0, () => mongo.stop());
    expect(app.url).toBe(base);
    await eventually(async () => ((await probes(base)).ready === 200 ? true : undefined), 10_000, 'ready');

    const raw = messageBody({ accountId: 'acct_startup', fanId: 880001, messageId: 9880001, createdAt: '2026-06-10T19:00:00+00:00', direction: 'received', text: 'hello after the wait' });
    expect((await postWebhook(base, raw, { secret: SECRET, key: 'evt_startup_1' })).status).toBe(200);
    const items = await eventually(async () => {
      const m = (await getJson<{ items: { id: string }[] }>(base, '/api/messages?chatId=880001')).body.items;
      return m.length > 0 ? m : undefined;
    }, 20_000, 'message in the read model');
    expect(items.map((m) => m.id)).toEqual(['9880001']);
    await app.stop();
    await mongo.stop();
  });

  it('a broker not started yet: the worker serves its probes, names the log, and a called-off start closes its port', async () => {
    const brokerPort = await freePort();
    const opsPort = await freePort();
    const config = loadConfig(baseEnv({ KAFKA_BROKERS: `127.0.0.1:${brokerPort}`, ROLES: 'processor,projector', OPS_PORT: String(opsPort) }));
    const abort = new AbortController();
    const starting = startApp(config, createLogger(config.logLevel), { signal: abort.signal });
    starting.catch(() => undefined);
    const base = `http://127.0.0.1:${opsPort}`;
    const waiting = await eventually(async () => {
      const p = await probes(base).catch(() => undefined);
      return p?.reasons.some((r) => r.startsWith('log:')) ? p : undefined;
    }, 10_000, 'waiting for the broker');
    expect(waiting.live).toBe(200);
    expect(waiting.ready).toBe(503);
    expect(waiting.logUp).toBe(false);
    expect(waiting.reasons).toContainEqual(expect.stringMatching(new RegExp(`^log: waiting for Kafka at 127\\.0\\.0\\.1:${brokerPort} \\(attempt 1`)));
    const t0 = Date.now();
    abort.abort();
    await expect(starting).rejects.toBeInstanceOf(StartupAbortedError);
    expect(Date.now() - t0).toBeLessThan(5000);
    await expect(fetch(`${base}/api/health/live`)).rejects.toThrow();
  });

  it('a malformed MONGO_URL ends the start at once with a message naming it, leaving nothing open', async () => {
    const port = await freePort();
    const config = loadConfig(baseEnv({ MONGO_URL: 'mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=soon', PORT: String(port) }));
    const t0 = Date.now();
    const failed = startApp(config, createLogger(config.logLevel));
    await expect(failed).rejects.toBeInstanceOf(ConfigError);
    await expect(failed).rejects.toThrow(/MONGO_URL/);
    expect(Date.now() - t0).toBeLessThan(3000);
    await expect(fetch(`http://127.0.0.1:${port}/api/health/live`)).rejects.toThrow();
  });

  it('a worker process waiting for its store stops at once on SIGTERM', async () => {
    const opsPort = await freePort();
    const mongoPort = await freePort();
    const { KAFKA_BROKERS: _k, MONGO_URL: _m, ...inherited } = process.env;
    const child = spawn(process.execPath, await serviceArgs(), {
      cwd: root,
      env: { ...inherited, ...baseEnv({ ROLES: 'processor,projector,intelligence', OPS_PORT: String(opsPort), MONGO_URL: `mongodb://127.0.0.1:${mongoPort}/?serverSelectionTimeoutMS=300`, LOG_LEVEL: 'info' }) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => { output += c.toString(); });
    child.stderr.on('data', (c: Buffer) => { output += c.toString(); });
    const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
    cleanups.push(async () => { child.kill('SIGKILL'); await exited; });
    const base = `http://127.0.0.1:${opsPort}`;
    const waiting = await eventually(async () => {
      if (child.exitCode !== null) throw new Error(`worker exited: ${output}`);
      return probes(base).catch(() => undefined);
    }, 30_000, 'worker probes');
    expect(waiting.live).toBe(200);
    expect(waiting.ready).toBe(503);
    expect(waiting.reasons).toContainEqual(expect.stringMatching(/^store: waiting for MongoDB at 127\.0\.0\.1:\d+ \(attempt \d+/));
    await eventually(() => (/waiting for the store: attempt 2 failed/.test(output) ? true : undefined), 15_000, 'logged retries');
    expect(child.exitCode).toBeNull();
    const t0 = Date.now();
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(Date.now() - t0).toBeLessThan(3000);
  });
});
