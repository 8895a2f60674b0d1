// What the operating surface and the live floor cost, on the embedded deployment with the demo
// data: the routes something polls (Prometheus scrapes /metrics, balancers probe ready and
// live, wallboards load /api/floor), and the floor's event stream with many screens open
// (time to the first snapshot, the service's CPU while they watch, and how often they hear).
// Run: node --import tsx bench/operations.ts [screens, default 50] [sequential requests per route, default 300]
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/support/logger.js';
import { settledSessions } from './settle.js';
import { deadline } from './deadline.js';

// At most 50 streams per client address (the service's cap), and the bench is one address.
const SCREENS = Number(process.argv[2] ?? 50);
const N = Number(process.argv[3] ?? 300);
const ADMIN = 'admin-token-for-the-operations-bench';
const dir = mkdtempSync(join(tmpdir(), 'convops-ops-bench-'));
const config = loadConfig({
  DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', ADMIN_TOKEN: ADMIN, TICK_INTERVAL_SEC: '0',
  RATE_LIMIT_MAX: '10000000', REPORT_RATE_LIMIT_MAX: '10000000', FLOOR_RATE_LIMIT_MAX: '1000000', LIVE_CACHE_MS: '1000',
});
const app = await startApp(config, createLogger('silent'));
const url = app.url ?? '';
await fetch(`${url}/api/admin/seed-demo`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: '{}', signal: deadline() });
const last = await settledSessions(url);
const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? 0;
const cpuNow = (): number => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };

console.log(`operations bench: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), node ${process.version}, embedded, demo data (${last} sessions)`);
console.log(`\n${N} sequential requests per route (service and client in one process)`);
console.log('| route | p50 ms | p99 ms | bytes |');
console.log('|---|---|---|---|');
for (const path of ['/metrics', '/api/health/ready', '/api/health/live', '/api/floor']) {
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < N; i++) {
    const t = performance.now();
    const res = await fetch(`${url}${path}`, { signal: deadline() });
    bytes = (await res.arrayBuffer()).byteLength;
    times.push(performance.now() - t);
  }
  console.log(`| ${path} | ${pct(times, 50).toFixed(1)} | ${pct(times, 99).toFixed(1)} | ${bytes} |`);
}

// Screens: each reads its stream and notes when snapshots arrive.
const idleCpu0 = cpuNow();
await new Promise((r) => setTimeout(r, 5000));
const idleCores = (cpuNow() - idleCpu0) / 5;

const controllers: AbortController[] = [];
const firstSnapshot: number[] = [];
let snapshots = 0;
let refused = 0;
const opened = performance.now();
await Promise.all(Array.from({ length: SCREENS }, async () => {
  const c = new AbortController();
  controllers.push(c);
  const t = performance.now();
  const res = await fetch(`${url}/api/floor/stream`, { signal: c.signal });
  if (res.status !== 200) { refused++; return; }
  const reader = res.body?.getReader();
  const decoder = new TextDecoder();
  let first = true;
  void (async () => {
    try {
      for (;;) {
        const { value, done } = await (reader as ReadableStreamDefaultReader<Uint8Array>).read();
        if (done) return;
        const text = decoder.decode(value);
        const n = text.split('event: snapshot').length - 1;
        if (n > 0 && first) { firstSnapshot.push(performance.now() - t); first = false; }
        snapshots += n;
      }
    } catch { /* aborted */ }
  })();
}));
while (firstSnapshot.length < SCREENS - refused && performance.now() - opened < 30_000) await new Promise((r) => setTimeout(r, 50));
const before = snapshots;
const cpu0 = cpuNow();
const WATCH_S = 10;
await new Promise((r) => setTimeout(r, WATCH_S * 1000));
const watchCores = (cpuNow() - cpu0) / WATCH_S;
const pushes = (snapshots - before) / Math.max(1, SCREENS - refused) / WATCH_S;
for (const c of controllers) c.abort();

console.log(`\nfloor stream, ${SCREENS} screens open at once`);
console.log('| measure | value |');
console.log('|---|---|');
console.log(`| streams refused (over the per-address cap) | ${refused} |`);
console.log(`| time to first snapshot p50 / p99 | ${pct(firstSnapshot, 50).toFixed(0)} / ${pct(firstSnapshot, 99).toFixed(0)} ms |`);
console.log(`| snapshots per screen per second (figures change every second while fans wait) | ${pushes.toFixed(2)} |`);
console.log(`| process CPU while watching (service and the ${SCREENS} readers) | ${watchCores.toFixed(3)} cores |`);
console.log(`| process CPU idle, no screen | ${idleCores.toFixed(3)} cores |`);

await app.stop();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
