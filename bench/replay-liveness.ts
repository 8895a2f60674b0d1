// Liveness during a replay (issue 27): how long /api/health/live takes to answer while
// POST /api/admin/replay rebuilds the read models from a large `session-events` topic, on the
// embedded deployment (the default: LMDB log and store in one process).
//   node --import tsx bench/replay-liveness.ts [--events 1000000] [--poll-ms 20] [--partitions 12]
//        [--chats 5000] [--server-root <checkout>] [--keep]
//
// 1. Seeds about --events session events into a fresh DATA_DIR, made by the real machine from
//    synthetic chats (messages from fans and humans, tips), as bench/read-api.ts does. The live
//    projector's group is then moved to the end of the topic, so the server starts with nothing
//    to fold and the replay is the only long work in it.
// 2. Starts the server (src/main.ts, all roles, from this checkout or --server-root) on that
//    folder, measures /api/health/live while idle for a few seconds, then starts a replay from
//    the beginning and polls /api/health/live every --poll-ms (a request starts --poll-ms after
//    the previous answer, so a blocked event loop shows as one long request, not as many).
// 3. Prints the probe's p50 / p99 / max and how many answers took over 100 ms, idle and during
//    the replay, and the replay's rate (events applied / time from the start to `done`, as the
//    job records them).
// Nothing here asserts: the numbers go to docs/benchmarks.md.
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createLog } from '../src/adapters/index.js';
import type { Log } from '../src/adapters/log/log.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/support/logger.js';
import { topology } from '../src/topology.js';
import { initialChatState, step, type ChatState } from '../machines/step.js';
import type { ChatInput } from '../machines/chat-input.js';
import { freePort } from '../test/infra/servers.js';

const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
    'poll-ms': { type: 'string', default: '20' },
    partitions: { type: 'string', default: '12' },
    chats: { type: 'string', default: '5000' },
    'idle-sec': { type: 'string', default: '3' },
    'server-root': { type: 'string' },
    keep: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (args.help) {
  console.log('node --import tsx bench/replay-liveness.ts [--events 1000000] [--poll-ms 20] [--partitions 12] [--chats 5000] [--idle-sec 3] [--server-root <checkout>] [--keep]');
  process.exit(0);
}
const EVENTS = Number(args.events);
const POLL_MS = Number(args['poll-ms']);
const PARTITIONS = Number(args.partitions);
const CHATS = Number(args.chats);
const IDLE_MS = Number(args['idle-sec']) * 1000;
if (!(EVENTS >= 1 && POLL_MS >= 0 && PARTITIONS >= 1 && CHATS >= 1 && IDLE_MS >= 0)) throw new Error('--events, --partitions and --chats must be positive, --poll-ms and --idle-sec not negative');
const root = join(import.meta.dirname, '..');
const serverRoot = args['server-root'] ? resolve(args['server-root']) : root;
const ADMIN = 'replay-liveness-bench-admin-token-0000';
const admin = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };
const ACCOUNTS = ['acct_bench_a', 'acct_bench_b', 'acct_bench_c'];
const CHATTERS = ['ana', 'ben', 'cleo', 'dev', 'eli'];
const T0 = Date.UTC(2026, 4, 1);

/** Appends about `count` session events made by the real machine from synthetic chats. */
async function seedSessionEvents(log: Log, topic: string, count: number): Promise<number> {
  const states = new Map<number, ChatState>();
  let appended = 0;
  let batch: { key: string; value: string }[] = [];
  let writing: Promise<unknown> = Promise.resolve();
  for (let i = 0; appended + batch.length < count; i++) {
    const chat = i % CHATS;
    const acct = ACCOUNTS[chat % ACCOUNTS.length] as string;
    const state = states.get(chat) ?? initialChatState({ accountId: acct, chatId: String(900_000_000 + chat), idleMs: 1_800_000, lateMs: 300_000, unansweredMs: 86_400_000 });
    const at = T0 + i * 2000;
    const input: ChatInput = i % 4 === 3
      ? { type: 'chat.payment', dedupeKey: `p${i}`, at, paymentId: `t${i}`, kind: 'tip', grossCents: 500, netCents: 400 }
      : { type: 'chat.message', dedupeKey: `k${i}`, at, messageId: String(i), sender: i % 4 === 0 ? 'fan' : 'human', text: 'hello', priceCents: 0, chatterId: CHATTERS[i % 5] ?? null };
    const r = step(state, input);
    states.set(chat, r.state);
    for (const e of r.events) batch.push({ key: e.chatKey, value: JSON.stringify(e) });
    if (batch.length >= 5000) {
      // One append in flight while the next batch is made.
      await writing;
      appended += batch.length;
      writing = log.append(topic, batch);
      batch = [];
    }
  }
  await writing;
  if (batch.length) await log.append(topic, batch);
  return appended + batch.length;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

function summary(times: readonly number[]): string {
  const s = [...times].sort((a, b) => a - b);
  const over = s.filter((t) => t > 100).length;
  return `${s.length} probes: p50 ${percentile(s, 50).toFixed(1)} ms, p99 ${percentile(s, 99).toFixed(1)} ms, max ${(s[s.length - 1] ?? NaN).toFixed(1)} ms, ${over} over 100 ms`;
}

/** Every request's deadline: a bench that waits for ever measures nothing. */
const DEADLINE_MS = 30_000;

/**
 * One request on its own connection (node:http, no pool), failing after DEADLINE_MS. Not
 * fetch: in this process (Node 20's undici, after the start loop's refused connections) a
 * fetch to the server hung before it opened a socket, with nothing pending, which is where
 * this bench stopped (issue 56).
 */
function call(port: number, path: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolvePromise, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: { ...options.headers, ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}) }, agent: false, timeout: DEADLINE_MS }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolvePromise({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${options.method ?? 'GET'} ${path}: no answer within ${DEADLINE_MS} ms`)));
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Polls the liveness probe until `until()` says stop; each request starts POLL_MS after the previous answer. */
async function probe(port: number, until: () => boolean): Promise<number[]> {
  const times: number[] = [];
  while (!until()) {
    const t = performance.now();
    const res = await call(port, '/api/health/live');
    times.push(performance.now() - t);
    if (res.status !== 200) throw new Error(`/api/health/live answered ${res.status}`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  return times;
}

async function startServer(dataDir: string): Promise<{ port: number; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [...(process.env.SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean), '--import', 'tsx', join(serverRoot, 'src/main.ts')], {
    cwd: serverRoot, stdio: ['ignore', process.env.SERVER_STDOUT ? 'inherit' : 'ignore', 'inherit'],
    env: {
      ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ADMIN_TOKEN: ADMIN,
      INBOUND_PARTITIONS: String(PARTITIONS), TICK_INTERVAL_SEC: '0', RATE_LIMIT_MAX: '10000000',
    },
  });
  const started = Date.now();
  while (Date.now() - started < 300_000) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    // The API itself, not the probes' stand-in that holds the port while the process starts: its
    // hand-over resets the connections open at that moment, which a probe taken for the API's
    // met (ECONNRESET; before the bench named its errors, it then waited for ever).
    if (await call(port, '/api').then((r) => r.status === 200, () => false)) return { port, child };
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the server did not answer /api/health/live within 5 minutes');
}

interface Job { id: string; state: string; eventsApplied: number; lag: number | null; startedAt: string; finishedAt: string | null; error: string | null }

const dataDir = mkdtempSync(join(tmpdir(), 'convops-replay-liveness-'));
console.log(`replay liveness: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}; server from ${serverRoot}; data in ${dataDir}`);
let server: { port: number; child: ChildProcess } | null = null;
try {
  const env = { DATA_DIR: dataDir, INBOUND_PARTITIONS: String(PARTITIONS) };
  const config = loadConfig(env);
  const topo = topology(config.topicPrefix);
  const log = createLog(config, createLogger('warn'));
  let total: number;
  try {
    await log.createTopics([{ name: topo.inbound, partitions: PARTITIONS }, { name: topo.sessionEvents, partitions: PARTITIONS }]);
    const seedStarted = performance.now();
    total = await seedSessionEvents(log, topo.sessionEvents, EVENTS);
    console.log(`seeded ${total} session events (${CHATS} chats, ${PARTITIONS} partitions) in ${((performance.now() - seedStarted) / 1000).toFixed(0)} s`);
    // The live projector starts at the end: the replay alone folds the topic.
    const ends = await log.endOffsets(topo.sessionEvents);
    await log.setGroupPosition(topo.projectorGroup, topo.sessionEvents, { kind: 'offsets', offsets: ends });
  } finally {
    await log.close();
  }

  server = await startServer(dataDir);
  const { port } = server;
  const idleUntil = performance.now() + IDLE_MS;
  const idle = await probe(port, () => performance.now() >= idleUntil);
  console.log(`idle:          ${summary(idle)}`);

  let job: Job | null = null;
  let finished = false;
  const probing = probe(port, () => finished);
  const res = await call(port, '/api/admin/replay', { method: 'POST', headers: admin, body: '{}' });
  const started = JSON.parse(res.body) as Job & { statusUrl: string };
  if (res.status !== 202) throw new Error(`POST /api/admin/replay answered ${res.status}: ${JSON.stringify(started)}`);
  const startedAt = performance.now();
  let lastPrint = startedAt;
  while (!finished) {
    await new Promise((r) => setTimeout(r, 1000));
    job = JSON.parse((await call(port, started.statusUrl, { headers: admin })).body) as Job;
    if (job.state === 'done' || job.state === 'failed') finished = true;
    else if (performance.now() - lastPrint >= 10_000) {
      lastPrint = performance.now();
      console.log(`  ${((lastPrint - startedAt) / 1000).toFixed(0)} s: ${job.state}, ${job.eventsApplied} applied, lag ${job.lag}`);
    }
  }
  const during = await probing;
  const wallSec = (performance.now() - startedAt) / 1000;
  if (!job) throw new Error('no job');
  const sec = job.finishedAt ? (Date.parse(job.finishedAt) - Date.parse(job.startedAt)) / 1000 : wallSec;
  console.log(`during replay: ${summary(during)}`);
  console.log(`replay:        ${job.state}${job.error ? ` (${job.error})` : ''}, ${job.eventsApplied} events in ${sec.toFixed(1)} s = ${Math.round(job.eventsApplied / sec)} events/s (of ${total} seeded)`);
} catch (err) {
  // Said before the server is stopped: a stop that takes long must not hide why the bench ended.
  console.error('replay liveness failed:', err);
  process.exitCode = 1;
} finally {
  if (server) {
    const { child } = server;
    child.kill('SIGTERM');
    // Bounded like every other wait here: a server that does not stop in 20 s is killed.
    if (child.exitCode === null) {
      const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await new Promise((r) => child.once('exit', r));
      clearTimeout(killer);
    }
  }
  if (args.keep) console.log(`kept ${dataDir}`);
  else rmSync(dataDir, { recursive: true, force: true });
}
