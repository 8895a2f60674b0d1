// Ingest benchmark: verified webhooks per second and time-to-2xx percentiles, for the
// embedded default and for Kafka + Mongo-wire (provisioned like the tests do).
// The service runs as its own process with all roles; this process only generates load.
//   node --import tsx bench/ingest.ts [--seconds 10] [--concurrency 32] [--rate 1000] [--only embedded|kafka]
import { spawn } from 'node:child_process';
import { onDeployments } from './deployments.js';
import { Agent, request } from 'node:http';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { signBody } from '../src/ingest/signature.js';
import { freePort } from '../test/infra/servers.js';
import { messageBody } from '../test/support/platform.js';

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '32' },
    rate: { type: 'string', default: '1000' },
    only: { type: 'string' },
  },
});
const SECONDS = Number(args.seconds);
const CONCURRENCY = Number(args.concurrency);
const RATE = Number(args.rate);
const SECRET = 'whsec_bench';
const root = join(import.meta.dirname, '..');

interface Delivery { body: string; signature: string; key: string }

let seq = 0;
function nextDelivery(): Delivery {
  const n = seq++;
  const body = messageBody({
    accountId: `acct_bench${n % 3}`,
    fanId: 100000 + (n % 2000),
    messageId: 7_000_000_000 + n,
    createdAt: new Date(Date.UTC(2026, 5, 10, 0, 0, 0) + n * 250).toISOString(),
    direction: n % 3 === 0 ? 'sent' : 'received',
  });
  return { body, signature: signBody(SECRET, body), key: `evt_bench_${n}` };
}

const agent = new Agent({ keepAlive: true, maxSockets: 256 });

function post(port: number, d: Delivery): Promise<{ status: number; ms: number }> {
  const started = process.hrtime.bigint();
  return new Promise((resolve) => {
    const req = request({
      host: '127.0.0.1', port, path: '/webhooks/platform', method: 'POST', agent,
      headers: { 'content-type': 'application/json', signature: d.signature, 'x-ofapi-idempotency-key': d.key, 'content-length': Buffer.byteLength(d.body) },
    }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: Number(process.hrtime.bigint() - started) / 1e6 }));
    });
    req.on('error', () => resolve({ status: 0, ms: Number(process.hrtime.bigint() - started) / 1e6 }));
    req.end(d.body);
  });
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

interface PhaseResult { sent: number; ok: number; perSec: number; p50: number; p99: number; max: number }

function summarise(results: { status: number; ms: number }[], seconds: number): PhaseResult {
  const ok = results.filter((r) => r.status >= 200 && r.status < 300);
  const lat = ok.map((r) => r.ms).sort((a, b) => a - b);
  return { sent: results.length, ok: ok.length, perSec: Math.round(ok.length / seconds), p50: percentile(lat, 50), p99: percentile(lat, 99), max: lat[lat.length - 1] ?? NaN };
}

/** As fast as the service answers, with a fixed number of requests in flight. */
async function closedLoop(port: number, seconds: number): Promise<PhaseResult> {
  const results: { status: number; ms: number }[] = [];
  const deadline = Date.now() + seconds * 1000;
  const started = Date.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (Date.now() < deadline) results.push(await post(port, nextDelivery()));
  }));
  return summarise(results, (Date.now() - started) / 1000);
}

/** A fixed arrival rate, as the platform would deliver: latency is measured per request. */
async function openLoop(port: number, seconds: number, rate: number): Promise<PhaseResult> {
  const total = Math.round(seconds * rate);
  const pending: Promise<{ status: number; ms: number }>[] = [];
  const start = Date.now();
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - Date.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    pending.push(post(port, nextDelivery()));
  }
  const results = await Promise.all(pending);
  return summarise(results, (Date.now() - start) / 1000);
}

async function waitForZeroLag(port: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const health = await fetch(`http://127.0.0.1:${port}/api/health`).then((r) => r.json() as Promise<{ components: Record<string, { lag?: number | null; enabled?: boolean }> }>, () => undefined);
    const c = health?.components;
    const settled = (role: { lag?: number | null; enabled?: boolean } | undefined): boolean => role?.enabled === false || role?.lag === 0;
    if (c && settled(c.processor) && settled(c.projector)) return true;
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

async function runDeployment(name: string, env: Record<string, string>): Promise<void> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/main.ts')], {
    cwd: root, stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', PLATFORMAPI_WEBHOOK_SECRET: SECRET },
  });
  try {
    for (let i = 0; i < 300; i++) {
      const ok = await fetch(`http://127.0.0.1:${port}/api/health`).then((r) => r.ok, () => false);
      if (ok) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await closedLoop(port, 2); // warm-up
    const max = await closedLoop(port, SECONDS);
    // The pipeline works through the backlog before the fixed-rate phase, so that phase
    // measures ingest next to steady processing, not next to a catch-up.
    const drainStarted = Date.now();
    const drained = await waitForZeroLag(port, 300_000);
    const drainSec = (Date.now() - drainStarted) / 1000;
    const fixed = await openLoop(port, SECONDS, RATE);
    const f = (n: number) => n.toFixed(1);
    console.log(`${name.padEnd(12)} max: ${String(max.perSec).padStart(6)}/s (concurrency ${CONCURRENCY}, ${max.ok}/${max.sent} 2xx, p50 ${f(max.p50)} ms, p99 ${f(max.p99)} ms)`);
    console.log(`${name.padEnd(12)} backlog after the max phase processed end to end in ${drainSec.toFixed(1)} s${drained ? '' : ' (gave up waiting)'}`);
    console.log(`${name.padEnd(12)} at ${RATE}/s: ${fixed.ok}/${fixed.sent} 2xx, time-to-2xx p50 ${f(fixed.p50)} ms, p99 ${f(fixed.p99)} ms, max ${f(fixed.max)} ms`);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

console.log(`ingest benchmark: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}, ${SECONDS}s per phase`);
await onDeployments(args.only, runDeployment);
agent.destroy();
