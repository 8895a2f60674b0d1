// A definitions preview's speed and the service's liveness during it (issue 55), beside today's
// replay, on the embedded default (one process, all roles).
//   node --import tsx bench/preview.ts [--records 1000000] [--chats 20000] [--poll-ms 20] [--partitions 4]
//
// 1. Fills a fresh DATA_DIR's `inbound` with --records webhook records (fans and replies of
//    --chats chats, a minute apart), as the door writes them, and starts the service on it; the
//    live pipeline takes them all (the time it takes is printed: the live rate).
// 2. POST /api/admin/definitions/generations {sessionIdleSec: 600}: the whole log decided again
//    beside the live pipeline. /api/health/live is polled every --poll-ms meanwhile (the next
//    request starts --poll-ms after an answer, so a blocked event loop shows as one long
//    request); printed: records/s and events/s until `ready`, the probe's p50 / p99 / max.
// 3. POST /api/admin/replay of the live generation, the same way: events/s and the probe.
// Nothing here asserts: the numbers go to docs/benchmarks.md.
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createLog } from '../src/adapters/index.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/support/logger.js';
import { topology } from '../src/topology.js';
import { messageBody } from '../test/support/platform.js';
import { deadline } from './deadline.js';
import { startService } from './service-process.js';
import { webhookRecord } from './webhook-records.js';

const { values: args } = parseArgs({
  options: {
    records: { type: 'string', default: '1000000' },
    chats: { type: 'string', default: '20000' },
    'poll-ms': { type: 'string', default: '20' },
    partitions: { type: 'string', default: '4' },
  },
});
const RECORDS = Number(args.records);
const CHATS = Number(args.chats);
const POLL_MS = Number(args['poll-ms']);
const PARTITIONS = Number(args.partitions);
const ADMIN = 'bench-preview-admin-token-000000';
const ACCOUNT = 'acct_be0c0f1e0000000000000000000000055';
const auth = { authorization: `Bearer ${ADMIN}` };

const percentile = (xs: readonly number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};

async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url, { headers: auth, signal: deadline() });
  const body = await res.json() as T;
  if (!res.ok) throw new Error(`${url}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

async function postJson<T>(url: string, body: unknown): Promise<T> {
  const res = await fetch(url, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body), signal: deadline() });
  const out = await res.json() as T;
  if (res.status >= 300) throw new Error(`${url}: ${res.status} ${JSON.stringify(out)}`);
  return out;
}

/** Probes /api/health/live until `done` resolves; answers the probe's times. */
async function probeWhile(base: string, done: Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  let over = false;
  void done.finally(() => { over = true; });
  while (!over) {
    const t = performance.now();
    await fetch(`${base}/api/health/live`, { signal: deadline() }).then((r) => r.arrayBuffer());
    times.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  return times;
}

const probeLine = (xs: readonly number[]): string => `live probe p50 ${percentile(xs, 50).toFixed(1)} / p99 ${percentile(xs, 99).toFixed(1)} / max ${Math.max(...xs).toFixed(1)} ms over ${xs.length} answers (${xs.filter((x) => x > 100).length} over 100 ms)`;

async function seed(dir: string): Promise<void> {
  const config = loadConfig({ DATA_DIR: dir, INBOUND_PARTITIONS: String(PARTITIONS) });
  const log = createLog(config, createLogger('error'));
  const t = topology();
  await log.createTopics([{ name: t.inbound, partitions: PARTITIONS }, { name: t.sessionEvents, partitions: PARTITIONS }]);
  const start = Date.now() - 30 * 86_400_000;
  const perChat = Math.ceil(RECORDS / CHATS);
  for (let from = 0; from < RECORDS; from += 5000) {
    const batch = [];
    for (let i = from; i < Math.min(RECORDS, from + 5000); i++) {
      // Round-robin over chats: chat c's k-th record is a minute after its (k-1)-th, fan and reply in turn.
      const chat = i % CHATS;
      const k = Math.floor(i / CHATS);
      const at = start + chat * perChat * 60_000 + k * 60_000 * (k % 4 === 3 ? 15 : 1);
      const body = messageBody({ accountId: ACCOUNT, fanId: 7_000_000 + chat, messageId: 9_000_000_000 + i, createdAt: new Date(at).toISOString(), direction: k % 2 === 0 ? 'received' : 'sent' });
      batch.push(webhookRecord(body, `evt_preview_${i}`, at));
    }
    await log.append(t.inbound, batch);
  }
  await log.close();
}

async function lagZero(base: string): Promise<void> {
  for (let i = 0; ; i++) {
    const text = await fetch(`${base}/metrics`, { signal: deadline(), headers: auth }).then((r) => r.text());
    const lag = [...text.matchAll(/^convops_consumer_lag_records\{[^}]*\} (\d+)/gm)].reduce((a, m) => a + Number(m[1]), 0);
    if (lag === 0 && i > 0) return;
    if (i > 7200) throw new Error('the pipeline did not catch up in an hour');
    await new Promise((r) => setTimeout(r, 500));
  }
}

const dir = mkdtempSync(join(tmpdir(), 'convops-bench-preview-'));
try {
  console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? '?'}; node ${process.version}; ${RECORDS} inbound records of ${CHATS} chats over ${PARTITIONS} partitions`);
  let t = performance.now();
  await seed(dir);
  console.log(`seeded in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  const service = await startService({ DATA_DIR: dir, ADMIN_TOKEN: ADMIN, INBOUND_PARTITIONS: String(PARTITIONS), TICK_INTERVAL_SEC: '3600', SESSION_IDLE_SEC: '1800' });
  const { base } = service;
  try {
    // The service's CPU over each phase, in cores: what the phase's rate cost, and how much of the
    // machine a paced phase leaves idle.
    const cores = (cpu0: number, t0: number): string => `${((service.cpuSeconds() - cpu0) / ((performance.now() - t0) / 1000)).toFixed(2)} cores`;
    t = performance.now();
    let cpu = service.cpuSeconds();
    await lagZero(base);
    const live = (performance.now() - t) / 1000;
    console.log(`live pipeline: ${RECORDS} records taken in ${live.toFixed(1)} s (${Math.round(RECORDS / live)} records/s), service ${cores(cpu, t)}`);
    const idle = await probeWhile(base, new Promise((r) => setTimeout(r, 3000)));
    console.log(`idle:    ${probeLine(idle)}`);

    // The preview.
    t = performance.now();
    cpu = service.cpuSeconds();
    await postJson(`${base}/api/admin/definitions/generations`, { sessionIdleSec: 600 });
    interface Gen { status: string; progress: { recordsDone: number; eventsDone: number } | null }
    const ready = (async () => {
      for (;;) {
        const g = await getJson<Gen>(`${base}/api/admin/definitions/generations/1`);
        if (g.status === 'ready') return g;
        await new Promise((r) => setTimeout(r, 500));
      }
    })();
    const duringPreview = await probeWhile(base, ready);
    const g = await ready;
    const secs = (performance.now() - t) / 1000;
    const done = g.progress ?? { recordsDone: 0, eventsDone: 0 };
    console.log(`preview: ${done.recordsDone} records, ${done.eventsDone} events in ${secs.toFixed(1)} s to ready: ${Math.round(done.recordsDone / secs)} records/s, ${Math.round(done.eventsDone / secs)} events/s, service ${cores(cpu, t)}`);
    console.log(`preview: ${probeLine(duringPreview)}`);
    await fetch(`${base}/api/admin/definitions/generations/1`, { method: 'DELETE', headers: auth, signal: deadline() });

    // Today's replay of the live generation, beside it.
    t = performance.now();
    cpu = service.cpuSeconds();
    const job = await postJson<{ id: string }>(`${base}/api/admin/replay`, {});
    interface Job { state: string; eventsApplied: number }
    const finished = (async () => {
      for (;;) {
        const j = await getJson<Job>(`${base}/api/admin/replay/${job.id}`);
        if (j.state === 'done' || j.state === 'failed') return j;
        await new Promise((r) => setTimeout(r, 500));
      }
    })();
    const duringReplay = await probeWhile(base, finished);
    const j = await finished;
    const rs = (performance.now() - t) / 1000;
    console.log(`replay:  ${j.state}, ${j.eventsApplied} events in ${rs.toFixed(1)} s: ${Math.round(j.eventsApplied / rs)} events/s, service ${cores(cpu, t)}`);
    console.log(`replay:  ${probeLine(duringReplay)}`);
  } finally {
    console.log(`stopped ${(await service.stop()).toFixed(1)} s after SIGTERM`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
