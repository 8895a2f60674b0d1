// Ingest and end-to-end benchmark, on the embedded default and on Kafka + Mongo-wire
// (provisioned like the tests). Each deployment, side by side with its limits:
//   1. the limit: a bare route that only appends the raw body to the same log (max rate);
//   2. the signed webhook route in an API-only process: max rate, its ratio to the limit, and
//      time-to-2xx at a fixed rate;
//   3. end to end at a fixed rate with the pipeline running, in one process (all roles) and
//      split (API process + worker process): time-to-2xx, and webhook received → visible in
//      the read models (the projector's freshness, reported in health). Beside each run, on
//      fresh state, the bare append route at the same rate: the CPU floor. Each layout ends
//      with the ratio line (issue 56): convops CPU per webhook / the bare route's, medians of
//      the runs (--repeat), target ≤ 2.0×;
//   4. "ingest is not starved by dashboards" (issue 14): webhooks at a fixed rate for
//      --seconds while --dashboards clients (20) each poll GET /api/stats and GET /api/floor
//      once a second (both at once, the next poll a second after the previous one started, or
//      right after it answered if that took longer), against the process that takes the
//      webhooks; in the split layout (API process + worker process) and in one process (all
//      roles). Each layout first runs the same load without dashboards, on the same processes
//      and data, so the two lines compare like for like. Reported: webhook time-to-2xx p50/p99
//      and received → visible with and without, the dashboards' own p50/p99 per route, and
//      first what one computation of each route costs on the idle process (so the share of a
//      core 20 dashboards would take if each poll computed shows apart from contention). The
//      service shares /api/stats and /api/floor answers for LIVE_CACHE_MS (1 s by default);
//      --live-cache-ms sets it for the service processes (0: every poll computes).
//      This phase's webhooks carry wall-clock times and come from a fixed pool of chats
//      (--dashboard-chats, 300: 100 per account), fans and chatters taking turns, so "today"
//      has data and the floor shows a busy but realistic number of open and waiting sessions
//      (all 300 open; about two thirds waiting at any moment) that does not grow with the run.
// The load generator is this process; everything shares the machine's cores.
//   node --import tsx bench/ingest.ts [--seconds 10] [--concurrency 64] [--rate 1000] [--only embedded|kafka]
//        [--phase all|base|e2e|dashboards] [--dashboards 20] [--dashboard-chats 300] [--live-cache-ms <ms>]
//        [--layout both|one|split] (the end-to-end phase's layouts: one process, API + worker)
//        [--repeat 1] (the end-to-end phase runs each layout this many times, each on fresh state,
//        then prints the median and range of each figure: runs of the same code differ by ~10 %)
//        [--cpu-prof-dir <dir>] (CPU profiles of the service processes, written as each stops: each
//        opens as a flame graph in Chrome DevTools or speedscope; the end-to-end phase then also
//        prints each process's CPU per webhook by role, from its profile: bench/profile-summary.ts)
// --phase base runs 1-3, e2e only 3, dashboards only 4, all (the default) 1-4; --dashboards 0 leaves 4 out.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { MongoClient } from 'mongodb';
import { signBody } from '../src/ingest/signature.js';
import { freePort } from '../test/infra/servers.js';
import { messageBody } from '../test/support/platform.js';
import { onDeployments } from './deployments.js';
import { cpuSpan } from './cpu-share.js';
import { profileTotals, readProfile } from './profile-summary.js';
import { deadline, withDeadline } from './deadline.js';

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '64' },
    rate: { type: 'string', default: '1000' },
    only: { type: 'string' },
    phase: { type: 'string', default: 'all' },
    dashboards: { type: 'string', default: '20' },
    'dashboard-chats': { type: 'string', default: '300' },
    'live-cache-ms': { type: 'string' },
    'cpu-prof-dir': { type: 'string' },
    repeat: { type: 'string', default: '1' },
    layout: { type: 'string', default: 'both' },
  },
});
const SECONDS = Number(args.seconds);
const CONCURRENCY = Number(args.concurrency);
const RATE = Number(args.rate);
const PHASE = args.phase;
if (!['all', 'base', 'e2e', 'dashboards'].includes(PHASE)) throw new Error(`--phase: all, base, e2e or dashboards, not ${PHASE}`);
const DASHBOARDS = Number(args.dashboards);
const DASHBOARD_CHATS = Number(args['dashboard-chats']);
/** LIVE_CACHE_MS for the service processes (unset: the service's default). */
const LIVE_CACHE_MS = args['live-cache-ms'];
/** Where the service processes write CPU profiles (node --cpu-prof), written when they stop. */
const CPU_PROF_DIR = args['cpu-prof-dir'];
const REPEAT = Number(args.repeat);
if (!['both', 'one', 'split'].includes(args.layout)) throw new Error(`--layout: both, one or split, not ${args.layout}`);
/** The end-to-end layouts to run: one process, API + worker, or both. */
const LAYOUTS = (['one process', 'api + worker'] as const).filter((l) => args.layout === 'both' || (args.layout === 'one') === (l === 'one process'));
/** How long the end-to-end phase measures the service idle, before its load. */
const IDLE_SECONDS = 5;
if (!Number.isInteger(REPEAT) || REPEAT < 1) throw new Error(`--repeat: a whole number from 1, not ${args.repeat}`);
const SECRET = 'whsec_bench';
const root = join(import.meta.dirname, '..');
const TARGET_MAX: Record<string, number> = { embedded: 5000, 'kafka+mongo': 3000 };
/** Received → visible targets at 1,000/s (issue 15 for Kafka + Mongo-wire). */
const VISIBLE_TARGET: Record<string, { p50: number; p99: number }> = { embedded: { p50: 30, p99: 200 }, 'kafka+mongo': { p50: 100, p99: 300 } };
/** Received → visible p50 per deployment and layout, for the ratio of Kafka to embedded. */
const visibleP50 = new Map<string, number>();

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

const agent = new Agent({ keepAlive: true, maxSockets: 512 });

function post(port: number, path: string, d: Delivery): Promise<{ status: number; ms: number }> {
  const started = process.hrtime.bigint();
  return new Promise((resolve) => {
    const req = request({
      host: '127.0.0.1', port, path, method: 'POST', agent,
      headers: { 'content-type': 'application/json', signature: d.signature, 'x-ofapi-idempotency-key': d.key, 'content-length': Buffer.byteLength(d.body) },
    }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: Number(process.hrtime.bigint() - started) / 1e6 }));
      // Cut off mid-answer (the deadline): a failure; after 'end' this changes nothing.
      res.on('close', () => resolve({ status: 0, ms: Number(process.hrtime.bigint() - started) / 1e6 }));
    });
    req.on('error', () => resolve({ status: 0, ms: Number(process.hrtime.bigint() - started) / 1e6 }));
    withDeadline(req).end(d.body);
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
async function closedLoop(port: number, path: string, seconds: number): Promise<PhaseResult> {
  const results: { status: number; ms: number }[] = [];
  const deadline = Date.now() + seconds * 1000;
  const started = Date.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (Date.now() < deadline) results.push(await post(port, path, nextDelivery()));
  }));
  return summarise(results, (Date.now() - started) / 1000);
}

let liveSeq = 0;
/** For the dashboards phase: now, from a fixed pool of chats, fan and chatter taking turns per chat. */
function liveDelivery(): Delivery {
  const n = liveSeq++;
  const chat = n % DASHBOARD_CHATS;
  const round = Math.floor(n / DASHBOARD_CHATS);
  const body = messageBody({
    accountId: `acct_live${chat % 3}`,
    fanId: 200000 + chat,
    messageId: 8_000_000_000 + n,
    createdAt: new Date().toISOString(),
    direction: (round + chat) % 3 === 2 ? 'sent' : 'received',
  });
  return { body, signature: signBody(SECRET, body), key: `evt_live_${n}` };
}

/** A fixed arrival rate, as the platform would deliver: latency is measured per request. */
async function openLoop(port: number, seconds: number, rate: number, next: () => Delivery = nextDelivery, path = '/webhooks/platform'): Promise<PhaseResult> {
  const total = Math.round(seconds * rate);
  const pending: Promise<{ status: number; ms: number }>[] = [];
  const start = Date.now();
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - Date.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    pending.push(post(port, path, next()));
  }
  const results = await Promise.all(pending);
  return summarise(results, (Date.now() - start) / 1000);
}

interface Health {
  components: Record<string, { lag?: number | null; enabled?: boolean }>;
  counters: {
    processor: { freshness: { samples: number; p50Ms: number | null; p99Ms: number | null; maxMs: number | null } } | null;
    projector: { eventsApplied: number; batches: number; freshness: { samples: number; p50Ms: number | null; p99Ms: number | null; maxMs: number | null } } | null;
  };
}

const health = (port: number): Promise<Health | undefined> =>
  fetch(`http://127.0.0.1:${port}/api/health`, { signal: deadline() }).then((r) => r.json() as Promise<Health>, () => undefined);

async function waitForZeroLag(port: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const c = (await health(port))?.components;
    if (c && c.processor?.lag === 0 && c.projector?.lag === 0) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

interface Proc { port: number; pid: number | undefined; stop(): Promise<void> }

async function startProcess(script: string, env: Record<string, string>, readyPath: string): Promise<Proc> {
  const port = await freePort();
  const profile = CPU_PROF_DIR === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF_DIR}`];
  const child: ChildProcess = spawn(process.execPath, [...profile, '--import', 'tsx', join(root, script)], {
    cwd: root, stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, ...(LIVE_CACHE_MS === undefined ? {} : { LIVE_CACHE_MS }), ...env, PORT: String(port), OPS_PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', PLATFORMAPI_WEBHOOK_SECRET: SECRET, TICK_INTERVAL_SEC: '0', RATE_LIMIT_MAX: '10000000', REPORT_RATE_LIMIT_MAX: '10000000', FLOOR_RATE_LIMIT_MAX: '1000000' },
  });
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}`);
    if (await fetch(`http://127.0.0.1:${port}${readyPath}`, { signal: deadline() }).then(() => true, () => false)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    port,
    pid: child.pid,
    async stop() {
      child.kill('SIGTERM');
      if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
    },
  };
}

const f1 = (n: number | null): string => (n === null || Number.isNaN(n) ? '-' : n.toFixed(1));
const mark = (ok: boolean): string => (ok ? 'meets' : 'MISSES');

interface DashboardResult { stats: number[]; floor: number[]; failed: number; polls: number; seconds: number }

/** `clients` dashboards, each polling GET /api/stats and GET /api/floor once a second, until stopped. */
function startDashboards(port: number, clients: number): { stop(): Promise<DashboardResult> } {
  const out: DashboardResult = { stats: [], floor: [], failed: 0, polls: 0, seconds: 0 };
  let running = true;
  const started = Date.now();
  const get = (agent: Agent, path: string, into: number[]): Promise<void> => new Promise((resolve) => {
    const t = process.hrtime.bigint();
    // Once per poll, whichever comes first: the answer, an error, or a cut-off (the deadline).
    let settled = false;
    const settle = (ok: boolean): void => {
      if (settled) return;
      settled = true;
      if (ok) into.push(Number(process.hrtime.bigint() - t) / 1e6);
      else out.failed++;
      resolve();
    };
    const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
      res.resume();
      res.on('end', () => settle(res.statusCode === 200));
      res.on('close', () => settle(false));
    });
    req.on('error', () => settle(false));
    withDeadline(req);
    req.end();
  });
  const loops = Array.from({ length: clients }, async (_, k) => {
    // Each its own browser: its own connections, its own phase within the second.
    const own = new Agent({ keepAlive: true, maxSockets: 2 });
    await new Promise((r) => setTimeout(r, (k * 1000) / clients));
    while (running) {
      const pollStarted = Date.now();
      await Promise.all([get(own, '/api/stats', out.stats), get(own, '/api/floor', out.floor)]);
      out.polls++;
      const wait = pollStarted + 1000 - Date.now();
      if (wait > 0 && running) await new Promise((r) => setTimeout(r, wait));
    }
    own.destroy();
  });
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
      out.seconds = (Date.now() - started) / 1000;
      return out;
    },
  };
}

const lat = (xs: number[]): string => {
  const sorted = [...xs].sort((a, b) => a - b);
  return `p50 ${f1(percentile(sorted, 50))} ms, p99 ${f1(percentile(sorted, 99))} ms`;
};

/**
 * What one computation of each dashboard route costs with nothing else running: one request
 * of each every 1.1 s (past the live routes' shared-answer window, LIVE_CACHE_MS, 1 s by
 * default), p50 after two warm-up rounds.
 */
async function idlePollCost(port: number): Promise<{ stats: number; floor: number }> {
  const own = new Agent({ keepAlive: true, maxSockets: 1 });
  const once = (path: string): Promise<number> => new Promise((resolve) => {
    const t = process.hrtime.bigint();
    withDeadline(request({ host: '127.0.0.1', port, path, agent: own }, (res) => {
      res.resume();
      res.on('end', () => resolve(Number(process.hrtime.bigint() - t) / 1e6));
      res.on('close', () => resolve(NaN));
    }).on('error', () => resolve(NaN))).end();
  });
  const stats: number[] = [];
  const floor: number[] = [];
  for (let round = 0; round < 12; round++) {
    const started = Date.now();
    const s = await once('/api/stats');
    const f = await once('/api/floor');
    if (round >= 2) { stats.push(s); floor.push(f); }
    await new Promise((r) => setTimeout(r, Math.max(0, started + 1100 - Date.now())));
  }
  own.destroy();
  return { stats: percentile(stats.sort((a, b) => a - b), 50), floor: percentile(floor.sort((a, b) => a - b), 50) };
}

/** Phase 4: webhooks at RATE with and without DASHBOARDS clients polling, in both layouts. */
async function dashboardsPhase(label: string, fresh: () => Record<string, string>): Promise<void> {
  for (const layout of ['api + worker', 'one process'] as const) {
    const env = fresh();
    const procs: Proc[] = [];
    let ingestPort: number;
    let projectorPort: number;
    if (layout === 'one process') {
      const all = await startProcess('src/main.ts', env, '/api/health');
      procs.push(all);
      ingestPort = projectorPort = all.port;
    } else {
      const apiOnly = await startProcess('src/main.ts', { ...env, ROLES: 'api' }, '/api/health');
      const worker = await startProcess('src/main.ts', { ...env, ROLES: 'api,processor,projector' }, '/api/health');
      procs.push(apiOnly, worker);
      ingestPort = apiOnly.port;
      projectorPort = worker.port;
    }
    try {
      // Every chat of the pool exists before either measured run, so both see the same sessions.
      await openLoop(ingestPort, Math.max(2, (DASHBOARD_CHATS * 2) / RATE), RATE, liveDelivery);
      await waitForZeroLag(projectorPort, 120_000);
      // What one poll costs the API when nothing else runs: without shared answers, 20 dashboards ask for 20 a second.
      const idle = await idlePollCost(ingestPort);
      const share = (DASHBOARDS * (idle.stats + idle.floor)) / 1000;
      console.log(`${label} dashboards phase, ${layout}: one computation, idle: GET /api/stats p50 ${f1(idle.stats)} ms, GET /api/floor p50 ${f1(idle.floor)} ms; ${DASHBOARDS} dashboards would take about ${(share * 100).toFixed(0)}% of a core if every poll computed (LIVE_CACHE_MS=${LIVE_CACHE_MS ?? 'default'})`);
      const runs: { dashboards: number; webhooks: PhaseResult; visible: Health['counters']['projector']; polled?: DashboardResult; drainSec: number }[] = [];
      for (const clients of [0, DASHBOARDS]) {
        const polling = clients > 0 ? startDashboards(ingestPort, clients) : undefined;
        if (polling) await new Promise((r) => setTimeout(r, 1000));
        const webhooks = await openLoop(ingestPort, SECONDS, RATE, liveDelivery);
        const polled = await polling?.stop();
        const drainStarted = Date.now();
        await waitForZeroLag(projectorPort, 300_000);
        const drainSec = (Date.now() - drainStarted) / 1000;
        const visible = (await health(projectorPort))?.counters.projector ?? null;
        runs.push({ dashboards: clients, webhooks, visible, polled, drainSec });
        // Let the freshness window (10 s) forget this run before the next one starts.
        if (clients === 0) await new Promise((r) => setTimeout(r, 11_000));
      }
      for (const r of runs) {
        const w = r.webhooks;
        const f = r.visible?.freshness;
        const who = r.dashboards === 0 ? 'no dashboards' : `${r.dashboards} dashboards`;
        console.log(`${label} dashboards phase, ${layout}, ${who.padEnd(13)}: webhooks at ${RATE}/s time-to-2xx p50 ${f1(w.p50)} ms, p99 ${f1(w.p99)} ms (${w.ok}/${w.sent} 2xx; target p99 ≤ 50 ms: ${mark(w.p99 <= 50)}); received → visible p50 ${f1(f?.p50Ms ?? null)} ms, p99 ${f1(f?.p99Ms ?? null)} ms; caught up ${r.drainSec.toFixed(1)} s after the last send`);
        if (r.polled) {
          const p = r.polled;
          console.log(`${label}   dashboard requests (${(p.polls / p.seconds).toFixed(1)} polls/s of ${r.dashboards} wanted, ${p.failed} failed): GET /api/stats ${lat(p.stats)}; GET /api/floor ${lat(p.floor)}`);
        }
      }
    } finally {
      for (const p of procs.reverse()) await p.stop();
    }
  }
}

async function runDeployment(name: string, base: Record<string, string>, servers: Readonly<Record<string, number | undefined>>): Promise<void> {
  // Each phase gets fresh state, so no phase inherits another's backlog.
  let phase = 0;
  const fresh = (): Record<string, string> => {
    phase++;
    return base.DATA_DIR
      ? { ...base, DATA_DIR: mkdtempSync(join(base.DATA_DIR, `phase${phase}-`)) }
      : { ...base, TOPIC_PREFIX: `bench${phase}.`, MONGO_DB: `bench${phase}` };
  };
  const label = name.padEnd(12);
  if (PHASE !== 'dashboards') await basePhases(label, name, fresh, servers);
  if ((PHASE === 'all' || PHASE === 'dashboards') && DASHBOARDS > 0) await dashboardsPhase(label, fresh);
}

/** Phases 1-3. */
async function basePhases(label: string, name: string, fresh: () => Record<string, string>, servers: Readonly<Record<string, number | undefined>>): Promise<void> {
  if (PHASE !== 'e2e') await routePhases(label, name, fresh);
  await endToEnd(label, fresh, servers);
}

/**
 * The floor under the CPU per webhook, on fresh state: the bare append route (HTTP, Fastify and
 * one durable append to the same log, none of our work) at the end-to-end phase's rate.
 */
async function bareFloor(label: string, fresh: () => Record<string, string>): Promise<number> {
  const env = fresh();
  const bare = await startProcess('bench/bare-append-server.ts', env, '/');
  try {
    await openLoop(bare.port, 2, RATE, nextDelivery, '/append');
    const span = cpuSpan({ bare: bare.pid }, cpus().length);
    const fixed = await openLoop(bare.port, SECONDS, RATE, nextDelivery, '/append');
    const use = span.measure({ events: fixed.ok, ours: ['bare'] });
    console.log(`${label} bare append route at ${RATE}/s (the floor): ${fixed.ok}/${fixed.sent} 2xx, time-to-2xx p99 ${f1(fixed.p99)} ms; ${use.text}`);
    return use.oursUs;
  } finally {
    await bare.stop();
    await dropRunData(env);
  }
}

/** Phases 1-2. */
async function routePhases(label: string, name: string, fresh: () => Record<string, string>): Promise<void> {
  const bare = await startProcess('bench/bare-append-server.ts', fresh(), '/');
  let limit: PhaseResult;
  try {
    await closedLoop(bare.port, '/append', 2);
    limit = await closedLoop(bare.port, '/append', SECONDS);
  } finally {
    await bare.stop();
  }
  console.log(`${label} limit (bare append route): ${limit.perSec}/s (p50 ${f1(limit.p50)} ms, p99 ${f1(limit.p99)} ms)`);

  const api = await startProcess('src/main.ts', { ...fresh(), ROLES: 'api' }, '/api/health');
  await closedLoop(api.port, '/webhooks/platform', 2);
  const max = await closedLoop(api.port, '/webhooks/platform', SECONDS);
  const apiCpu = cpuSpan({ api: api.pid }, cpus().length);
  const fixedApi = await openLoop(api.port, SECONDS, RATE);
  const apiUse = apiCpu.stop({ events: fixedApi.ok, ours: ['api'] });
  await api.stop();
  const ratio = max.perSec / limit.perSec;
  console.log(`${label} webhook route, API-only process: ${max.perSec}/s (${max.ok}/${max.sent} 2xx, concurrency ${CONCURRENCY}, p99 ${f1(max.p99)} ms); target ≥ ${TARGET_MAX[name]}/s: ${mark(max.perSec >= (TARGET_MAX[name] ?? 0))}`);
  console.log(`${label}   ratio to the bare append route: ${ratio.toFixed(2)}; target ≥ 0.60: ${mark(ratio >= 0.6)}`);
  console.log(`${label}   at ${RATE}/s: ${fixedApi.ok}/${fixedApi.sent} 2xx, time-to-2xx p50 ${f1(fixedApi.p50)} ms, p99 ${f1(fixedApi.p99)} ms; target p99 ≤ 50 ms: ${mark(fixedApi.p99 <= 50)}; ${apiUse}`);

}

/** The profiler's clock (CLOCK_MONOTONIC, µs): a span measured here selects samples in the service's profiles. */
const monotonicUs = (): number => Number(process.hrtime.bigint() / 1000n);

/**
 * CPU µs per webhook of each role in a service process over a span, from the main thread's
 * profile (written when the process stopped): what the sampled thread spent, not the process's
 * other threads (LMDB's writer, libuv's pool, the collector's helpers) or the kernel, which the
 * /proc figure above includes.
 */
function rolesPerEvent(pid: number | undefined, fromUs: number, toUs: number, events: number): string {
  const file = pid === undefined || CPU_PROF_DIR === undefined ? undefined : readdirSync(CPU_PROF_DIR).find((f) => f.includes(`.${pid}.0.`) && f.endsWith('.cpuprofile'));
  if (file === undefined || events === 0) return 'no profile found';
  const t = profileTotals(readProfile(join(CPU_PROF_DIR as string, file)), fromUs, toUs);
  const per = (us: number): number => Math.round(us / events);
  const roles = [...t.roles].sort((a, b) => b[1] - a[1]).map(([r, us]) => `${r} ${per(us)}`).join(', ');
  return `${roles}; main thread busy ${per(t.busyUs)} µs per webhook (flame graph: ${file})`;
}

/** Phase 3. */
async function endToEnd(label: string, fresh: () => Record<string, string>, servers: Readonly<Record<string, number | undefined>>): Promise<void> {
  for (const layout of LAYOUTS) {
    const runs: RunFigures[] = [];
    const floors: number[] = [];
    for (let run = 0; run < REPEAT; run++) {
      if (REPEAT > 1) console.log(`${label} ${layout}, run ${run + 1} of ${REPEAT}:`);
      // The floor beside each run, so the machine's noise moves both alike.
      floors.push(await bareFloor(label, fresh));
      const env = fresh();
      try {
        runs.push(await endToEndRun(label, layout, env, servers));
      } finally {
        await dropRunData(env);
      }
    }
    if (REPEAT > 1) printSpread(label, layout, runs);
    printRatio(label, layout, runs.map((r) => r.oursUs), floors);
  }
}

/** Issue 56's figure: convops CPU per webhook against the bare append route's, medians of the same sitting's runs. */
const RATIO_TARGET = 2;

function printRatio(label: string, layout: string, ours: readonly number[], floors: readonly number[]): void {
  const o = median(ours);
  const b = median(floors);
  const ratio = o / b;
  const of = ours.length > 1 ? `medians of ${ours.length} runs each` : 'one run each';
  console.log(`${label} ratio, ${layout}: convops ${Math.round(o)} µs / bare append ${Math.round(b)} µs CPU per webhook at ${RATE}/s (${of}) = ${Number.isFinite(ratio) ? ratio.toFixed(2) : '-'}×; target ≤ ${RATIO_TARGET.toFixed(1)}×: ${mark(ratio <= RATIO_TARGET)}`);
}

/** The figures of one end-to-end run, for the summary over repeated runs. */
interface RunFigures {
  readonly oursUs: number;
  readonly perProcessUs: Readonly<Record<string, number>>;
  readonly visibleP50: number;
  readonly visibleP99: number;
  readonly toTwoXxP99: number;
  /** Cores the service processes used idle, before the load. */
  readonly idleCores: number;
}

/**
 * A run's data, once its figures are in: mongo-java-server keeps every database on its fixed
 * heap, and repeated runs' databases filled it until it did little but collect.
 */
async function dropRunData(env: Record<string, string>): Promise<void> {
  if (env.MONGO_URL !== undefined && env.MONGO_DB !== undefined) {
    const client = new MongoClient(env.MONGO_URL, { directConnection: true });
    try {
      await client.connect();
      await client.db(env.MONGO_DB).dropDatabase();
    } finally {
      await client.close();
    }
  }
  if (env.DATA_DIR !== undefined) rmSync(env.DATA_DIR, { recursive: true, force: true });
}

/** The median of the figures the runs produced (a run that measured nothing gives NaN, left out). */
const median = (xs: readonly number[]): number => percentile(xs.filter(Number.isFinite).sort((a, b) => a - b), 50);

function printSpread(label: string, layout: string, runs: readonly RunFigures[]): void {
  // Milliseconds to a tenth, as the runs' own lines print them; microseconds whole.
  const spread = (xs: readonly number[], unit: ' ms' | ' µs' | ''): string => {
    const got = xs.filter(Number.isFinite);
    if (got.length === 0) return `n/a (0 of ${xs.length} runs)`;
    const show = (n: number): string => (unit === ' ms' ? f1(n) : String(Math.round(n)));
    const missing = got.length < xs.length ? `, ${got.length} of ${xs.length} runs` : '';
    return `${show(median(got))}${unit} (${show(Math.min(...got))}–${show(Math.max(...got))}${missing})`;
  };
  const names = Object.keys(runs[0]?.perProcessUs ?? {});
  const perProcess = names.map((n) => `${n} ${spread(runs.map((r) => r.perProcessUs[n] ?? NaN), '')}`).join(', ');
  console.log(`${label} ${layout}, median (range) of ${runs.length} runs: ours ${spread(runs.map((r) => r.oursUs), ' µs')} per webhook; received → visible p50 ${spread(runs.map((r) => r.visibleP50), ' ms')}, p99 ${spread(runs.map((r) => r.visibleP99), ' ms')}; time-to-2xx p99 ${spread(runs.map((r) => r.toTwoXxP99), ' ms')}; per process (µs): ${perProcess}; idle ${median(runs.map((r) => r.idleCores)).toFixed(3)} cores`);
}

async function endToEndRun(label: string, layout: 'one process' | 'api + worker', env: Record<string, string>, servers: Readonly<Record<string, number | undefined>>): Promise<RunFigures> {
  const procs: Proc[] = [];
  let ingestPort: number;
  let projectorPort: number;
  let roles: Record<string, number | undefined>;
  if (layout === 'one process') {
    const all = await startProcess('src/main.ts', env, '/api/health');
    procs.push(all);
    roles = { service: all.pid };
    ingestPort = projectorPort = all.port;
  } else {
    const apiOnly = await startProcess('src/main.ts', { ...env, ROLES: 'api' }, '/api/health');
    // The worker serves health too (idle API), so its projector's freshness can be read.
    const worker = await startProcess('src/main.ts', { ...env, ROLES: 'api,processor,projector' }, '/api/health');
    procs.push(apiOnly, worker);
    roles = { api: apiOnly.pid, worker: worker.pid };
    ingestPort = apiOnly.port;
    projectorPort = worker.port;
  }
  await openLoop(ingestPort, 2, RATE);
  await waitForZeroLag(projectorPort, 120_000);
  // What the service spends doing nothing (timers, polls, the collector), which the figures
  // per webhook below include: at 1,000/s, 0.05 of a core is 50 µs per webhook.
  const idle = cpuSpan(roles, cpus().length);
  await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
  const idleUse = idle.measure();
  // Where the cores go while the webhooks arrive and drain: ours, the servers', the load's.
  const cpu = cpuSpan({ ...roles, ...servers, 'load generator': process.pid }, cpus().length);
  const before = (await health(projectorPort))?.counters.projector;
  const spanFromUs = monotonicUs();
  const fixed = await openLoop(ingestPort, SECONDS, RATE);
  const drainStarted = Date.now();
  const drained = await waitForZeroLag(projectorPort, 300_000);
  const drainSec = (Date.now() - drainStarted) / 1000;
  // Per webhook the service took: the span covers their arrival and their draining.
  const cpuUse = cpu.measure({ events: fixed.ok, ours: Object.keys(roles) });
  const spanToUs = monotonicUs();
  const counters = (await health(projectorPort))?.counters;
  const fresh10s = counters?.projector?.freshness;
  const processed = counters?.processor?.freshness;
  for (const p of procs.reverse()) await p.stop();
  const target = VISIBLE_TARGET[label.trim()] ?? { p50: 30, p99: 200 };
  const e2eOk = (fresh10s?.p50Ms ?? Infinity) <= target.p50 && (fresh10s?.p99Ms ?? Infinity) <= target.p99;
  visibleP50.set(`${label.trim()} ${layout}`, fresh10s?.p50Ms ?? NaN);
  console.log(`${label} end to end at ${RATE}/s, ${layout}: time-to-2xx p50 ${f1(fixed.p50)} ms, p99 ${f1(fixed.p99)} ms (${fixed.ok}/${fixed.sent} 2xx; target p99 ≤ 50 ms: ${mark(fixed.p99 <= 50)})`);
  console.log(`${label}   received → visible (last ${fresh10s?.samples ?? 0} records): p50 ${f1(fresh10s?.p50Ms ?? null)} ms, p99 ${f1(fresh10s?.p99Ms ?? null)} ms, max ${f1(fresh10s?.maxMs ?? null)} ms; target p50 ≤ ${target.p50}, p99 ≤ ${target.p99}: ${mark(e2eOk)}; caught up ${drainSec.toFixed(1)} s after the last send${drained ? '' : ' (gave up waiting)'}`);
  console.log(`${label}     of which received → processed (events appended, chat state stored): p50 ${f1(processed?.p50Ms ?? null)} ms, p99 ${f1(processed?.p99Ms ?? null)} ms`);
  const after = counters?.projector;
  // How much each partition batch carried: the report buckets are read and written once a round, whatever its size.
  const perBatch = before && after && after.batches > before.batches ? ((after.eventsApplied - before.eventsApplied) / (after.batches - before.batches)).toFixed(1) : '-';
  console.log(`${label}     projector: ${after && before ? after.eventsApplied - before.eventsApplied : '-'} events in ${after && before ? after.batches - before.batches : '-'} partition batches (${perBatch} events a batch)`);
  console.log(`${label}     CPU (cores): ${cpuUse.text}`);
  console.log(`${label}     idle for ${IDLE_SECONDS} s before the load (cores): ${idleUse.text}`);
  if (CPU_PROF_DIR !== undefined) {
    for (const [name, pid] of Object.entries(roles)) console.log(`${label}     ${name}, by role: ${rolesPerEvent(pid, spanFromUs, spanToUs, fixed.ok)}`);
  }
  const embedded = visibleP50.get(`embedded ${layout}`);
  if (label.trim() !== 'embedded' && embedded !== undefined) console.log(`${label}     received → visible p50, ratio to embedded in this run: ${((fresh10s?.p50Ms ?? NaN) / embedded).toFixed(1)}×`);
  return { oursUs: cpuUse.oursUs, perProcessUs: cpuUse.perEventUs, visibleP50: fresh10s?.p50Ms ?? NaN, visibleP99: fresh10s?.p99Ms ?? NaN, toTwoXxP99: fixed.p99, idleCores: idleUse.cores };
}

console.log(`ingest benchmark: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}, ${SECONDS}s per phase; phases: ${PHASE}${PHASE !== 'base' ? `, ${DASHBOARDS} dashboards over ${DASHBOARD_CHATS} chats` : ''}`);
await onDeployments(args.only, runDeployment);
agent.destroy();
