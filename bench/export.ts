// Exports (issue 32): GET /api/exports/sessions.csv of 1,000,000 sessions through the real
// route, over a real socket, with the server's memory watched before and during the export.
//
//   node --import tsx bench/export.ts [--sessions 1000000] [--format csv|ndjson] [--pause-ms 0] [--data-dir <dir>]
//
// 1. Seeds the sessions read model of an embedded store directly (documents shaped as the
//    projector writes them, through the store's secondary indexes, 5,000 a write), in this
//    process. With --data-dir, a folder seeded by an earlier run with as many sessions is reused.
// 2. Starts the service (ROLES=api, embedded) on that folder in a child process, which samples
//    its own process.memoryUsage().rss every 50 ms and reads process.resourceUsage().maxRSS:
//    its memory is the server's alone, not the seed's.
// 3. Reads the export with node:http as a client would, counting rows and bytes as they come
//    (--pause-ms: stop reading for that long after a tenth of the file, to show a slow client
//    does not make the server buffer the rest).
// Prints rows/s, MB/s, time to the first byte, and the server's memory before (idle, after
// start) and during the export: the peak of the RSS samples (split into anonymous pages and
// file-backed ones: LMDB reads through a memory map of the store file, whose pages count in RSS
// as they are touched and which the kernel drops under pressure), maxRSS (the kernel's
// high-water mark), heap used, and the live heap after a full GC every 2 s (the server runs
// with --expose-gc for that).
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { EmbeddedStore } from '../src/adapters/store/embedded-store.js';
import type { SessionDoc } from '../src/read-models/sessions/projection.js';
import { ReadModelSet } from '../src/read-models/read-model-set.js';

const { values: args } = parseArgs({
  options: {
    sessions: { type: 'string', default: '1000000' },
    format: { type: 'string', default: 'csv' },
    'pause-ms': { type: 'string', default: '0' },
    'data-dir': { type: 'string' },
    serve: { type: 'string' },
  },
});

const ADMIN = 'bench-export-admin-token-0000000000';
const MB = 1024 * 1024;
const ACCOUNTS = ['acct_bench_a', 'acct_bench_b', 'acct_bench_c'];
const CHATTERS = ['ana', 'ben', 'cleo', 'dev', 'eli'];

interface Memory { rssMb: number; peakRssMb: number; maxRssMb: number; peakAnonMb: number; peakFileMb: number; peakHeapMb: number; peakLiveHeapMb: number }

/** RssAnon and RssFile of this process (Linux): LMDB's memory map counts in RSS as file pages, which the kernel can drop; anonymous pages are the process's own. */
function rssParts(): { anon: number; file: number } {
  try {
    const status = readFileSync('/proc/self/status', 'utf8');
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
    return { anon: kb('RssAnon'), file: kb('RssFile') + kb('RssShmem') };
  } catch {
    return { anon: 0, file: 0 };
  }
}

// ---------------------------------------------------------------------------------------------
// The server (child process): the service on the seeded folder, watching its own memory.
if (args.serve) {
  const { startApp } = await import('../src/app.js');
  const { loadConfig } = await import('../src/config.js');
  const { createLogger } = await import('../src/support/logger.js');
  let peak = 0;
  let peakAnon = 0;
  let peakFile = 0;
  let peakHeap = 0;
  const sample = (): void => {
    const m = process.memoryUsage();
    const parts = rssParts();
    peak = Math.max(peak, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
    peakAnon = Math.max(peakAnon, parts.anon);
    peakFile = Math.max(peakFile, parts.file);
  };
  setInterval(sample, 50).unref();
  // What the heap holds that is alive (after a full collection), every 2 s: heap used also
  // counts garbage V8 has not collected yet, which grows with the work done, not with what is kept.
  let peakLive = 0;
  const gc = (globalThis as { gc?: () => void }).gc;
  const live = (): void => { if (gc) { gc(); peakLive = Math.max(peakLive, process.memoryUsage().heapUsed); } };
  setInterval(live, 2000).unref();
  const config = loadConfig({
    DATA_DIR: args.serve, ROLES: 'api', PORT: '0', HOST: '127.0.0.1', ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'warn', TICK_INTERVAL_SEC: '0',
    RATE_LIMIT_MAX: '10000000', REPORT_RATE_LIMIT_MAX: '10000000',
  });
  const app = await startApp(config, createLogger('warn'));
  const memory = (): Memory => {
    sample();
    return {
      rssMb: process.memoryUsage().rss / MB, peakRssMb: peak / MB, maxRssMb: process.resourceUsage().maxRSS / 1024,
      peakAnonMb: peakAnon / MB, peakFileMb: peakFile / MB, peakHeapMb: peakHeap / MB, peakLiveHeapMb: peakLive / MB,
    };
  };
  process.on('message', (m: { kind: string }) => {
    if (m.kind === 'memory') { live(); process.send?.({ kind: 'memory', memory: memory() }); }
    // From here the peak is the export's.
    if (m.kind === 'reset') { peak = peakAnon = peakFile = peakHeap = peakLive = 0; sample(); live(); process.send?.({ kind: 'reset' }); }
    if (m.kind === 'stop') void app.stop().then(() => process.exit(0));
  });
  // Settled after start: what the idle server holds.
  await new Promise((r) => setTimeout(r, 1000));
  process.send?.({ kind: 'ready', url: app.url });
} else {
  await main();
}

async function main(): Promise<void> {
  const SESSIONS = Number(args.sessions);
  const format = args.format === 'ndjson' ? 'ndjson' : 'csv';
  const pauseMs = Number(args['pause-ms']);
  if (!(SESSIONS >= 1)) throw new Error('--sessions must be positive');
  const own = args['data-dir'] === undefined;
  const dir = args['data-dir'] ?? mkdtempSync(join(tmpdir(), 'convops-bench-export-'));
  console.log(`machine: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ${Math.round(totalmem() / 1024 ** 3)} GiB, Node ${process.version}`);
  console.log(`store: embedded in ${dir}`);

  // 1. Seed.
  const store = new EmbeddedStore(dir);
  const models = new ReadModelSet(store);
  await models.ensureIndexes(1);
  const rm = models.at(1);
  const have = await rm.sessions.countDocuments();
  if (have !== SESSIONS) {
    if (have > 0) throw new Error(`${dir} holds ${have} sessions, not ${SESSIONS}: use another --data-dir`);
    const started = performance.now();
    const now = Date.now();
    const spacing = (365 * 86_400_000) / SESSIONS;
    let batch: SessionDoc[] = [];
    let writing: Promise<void> = Promise.resolve();
    for (let i = 0; i < SESSIONS; i++) {
      const accountId = ACCOUNTS[i % 3] as string;
      const chat = i % Math.ceil(SESSIONS / 5);
      const chatId = String(900_000_000 + chat);
      const chatKey = `${accountId}:${chatId}`;
      const id = `${chatKey}:${Math.floor(i / Math.ceil(SESSIONS / 5)) + 1}`;
      const openedAt = Math.round(now - 365 * 86_400_000 + i * spacing);
      const answered = i % 12 !== 0;
      const frt = answered ? 5 + ((i * 7919) % 3600) : null;
      const chatter = CHATTERS[(i * 31) % 5] as string;
      const closedAt = openedAt + 1_800_000 + 600_000;
      batch.push({
        _id: id, sessionId: id, accountId, chatId, chatKey, status: 'closed', openedAt, closedAt, closeReason: answered ? 'idle' : 'unanswered',
        lastMessageAt: openedAt + 600_000, lastActivityAt: openedAt + 600_000, messageCount: 10, fanMessageCount: 5, replyCount: answered ? 5 : 0,
        awaiting: false, waitingSince: null, firstFanMessageAt: openedAt, firstResponseAt: frt === null ? null : openedAt + frt * 1000, firstResponseSec: frt,
        firstResponderId: answered ? chatter : null, lastHumanChatterId: answered ? chatter : null, revenueCents: i % 3 === 0 ? (i % 50) * 100 : 0,
        paymentCount: i % 3 === 0 ? 1 : 0, fanSpendCents: (chat * 37) % 50_000, priorityAt: null, closesAt: null, closesAs: null, lastSeq: 20,
        firstResponseBusinessSec: null, waitBusinessSec: null,
      });
      if (batch.length === 5_000 || i === SESSIONS - 1) {
        const docs = batch;
        batch = [];
        await writing;
        writing = rm.sessions.bulkWrite(docs.map((document) => ({ insertOne: { document } })));
      }
      if ((i + 1) % 100_000 === 0) console.log(`  seeded ${i + 1} sessions (${Math.round((performance.now() - started) / 1000)} s)`);
    }
    await writing;
    console.log(`seed: ${SESSIONS} sessions in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } else {
    console.log(`seed: reusing ${have} sessions`);
  }
  await store.close();

  // 2. The server.
  const child: ChildProcess = fork(import.meta.filename, ['--serve', dir], { execArgv: ['--import', 'tsx', '--expose-gc'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const next = <T>(kind: string): Promise<T> => new Promise((resolve) => {
    const on = (m: { kind: string }) => { if (m.kind === kind) { child.off('message', on); resolve(m as T); } };
    child.on('message', on);
  });
  const { url } = await next<{ url: string }>('ready');
  const ask = async (kind: string): Promise<Memory> => { const answer = next<{ memory: Memory }>('memory'); child.send({ kind }); return (await answer).memory; };
  const idle = await ask('memory');
  const reset = next('reset');
  child.send({ kind: 'reset' });
  await reset;

  // 3. The export, read as it comes.
  const started = performance.now();
  const result = await new Promise<{ status: number; bytes: number; lines: number; firstByteMs: number; disposition: string; complete: boolean }>((resolve, reject) => {
    const req = get(`${url}/api/exports/sessions.csv`, { headers: { authorization: `Bearer ${ADMIN}`, accept: format === 'csv' ? 'text/csv' : 'application/x-ndjson' } }, (res) => {
      let bytes = 0;
      let lines = 0;
      let firstByteMs = -1;
      let paused = pauseMs <= 0;
      res.on('data', (chunk: Buffer) => {
        if (firstByteMs < 0) firstByteMs = performance.now() - started;
        bytes += chunk.length;
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
        if (!paused && lines > SESSIONS / 10) {
          paused = true;
          res.pause();
          setTimeout(() => res.resume(), pauseMs);
        }
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, lines, firstByteMs, disposition: String(res.headers['content-disposition']), complete: res.complete }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
  const seconds = (performance.now() - started) / 1000;
  const during = await ask('memory');
  const rows = result.lines - (format === 'csv' ? 1 : 0);
  const activeSeconds = seconds - Math.max(0, pauseMs) / 1000;

  console.log(`export: GET /api/exports/sessions.csv (${format}) -> ${result.status} ${result.disposition}, complete: ${result.complete}`);
  console.log(`  rows ${rows} (expected ${SESSIONS}), ${(result.bytes / MB).toFixed(1)} MB in ${seconds.toFixed(2)} s${pauseMs > 0 ? ` (the client paused ${pauseMs} ms)` : ''}; first byte after ${result.firstByteMs.toFixed(0)} ms`);
  console.log(`  ${Math.round(rows / activeSeconds).toLocaleString('en')} rows/s, ${(result.bytes / MB / activeSeconds).toFixed(1)} MB/s`);
  const line = (m: Memory) => `peak rss ${m.peakRssMb.toFixed(0)} MB (of it anonymous ${m.peakAnonMb.toFixed(0)} MB, file-backed ${m.peakFileMb.toFixed(0)} MB: LMDB's map), peak heap used ${m.peakHeapMb.toFixed(0)} MB (live after GC, every 2 s: ${m.peakLiveHeapMb.toFixed(0)} MB), maxRSS ${m.maxRssMb.toFixed(0)} MB`;
  console.log(`server before the export (start to idle): ${line(idle)}`);
  console.log(`server during the export (sampled every 50 ms): ${line(during)}; rss after ${during.rssMb.toFixed(0)} MB`);
  if (rows !== SESSIONS || result.status !== 200 || !result.complete) process.exitCode = 1;

  child.send({ kind: 'stop' });
  await new Promise((r) => child.once('exit', r));
  if (own) rmSync(dir, { recursive: true, force: true });
}
