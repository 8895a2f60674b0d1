// The fault suite with a ledger (issue 28): the scale-out deployment on Kafka + the Mongo-wire
// test server (mongo-java-server), the API (ROLES=api) and a worker
// (ROLES=processor,projector,intelligence) as separate OS processes, signing and ADMIN_TOKEN on.
// A sender delivers signed webhooks at a fixed rate (--rate, 300/s): --accounts (6) × --fans
// (100) chats, each fan's deliveries 40 `messages.received`, 20 `messages.sent` and 15
// `transactions.new` in 75, 10% of them delivered again soon after (see workload()). It retries
// every non-2xx or connection error with the same body and idempotency key, as the platform
// does, and keeps a ledger of every delivery that got a 2xx. In each scenario (a fresh
// deployment: its own topic prefix and database on a fresh mongo-java-server; a fresh broker
// for broker-kill, the others share one) one fault lands --fault-at (10) s into the sending:
//   worker-kill    the worker is kill -9ed and started again 5 s later;
//   broker-kill    the Kafka broker is kill -9ed and started again 10 s later;
//   api-kill       the API process is kill -9ed and started again 2 s later, on the same port;
//   store-stop     mongo-java-server (H2 file mode, so it keeps its data) is stopped gracefully
//                  and started again 10 s later;
//   store-kill     mongo-java-server (H2 file mode) is kill -9ed and started again 10 s later: it
//                  loses acknowledged writes (a store rolled back), which the processor re-derives
//                  and the projector folds again (read models that heal);
//   zombie         two workers; one is stopped with SIGSTOP until the processor group has evicted
//                  it (KAFKA_SESSION_TIMEOUT_MS) and 5 s more, while the other takes over; then
//                  SIGCONT, and the survivor is restarted 5 s later so it reads chat states from
//                  the store (a stale state the zombie put back would then be taken as the truth,
//                  as in test/faults/zombie-writer.test.ts). The zombie runs with
//                  CONVOPS_FAILPOINT_STALL_BEFORE_WRITE_MS (--zombie-stall-ms, 1000) so that the
//                  SIGSTOP lands between a round's reads and its writes: it must be fenced.
//                  (A stall over half KAFKA_ROUND_MAX_MS can leave it at one record per round
//                  for good: see "Faults with a ledger" in docs/benchmarks.md);
//   clean-restart  the worker is stopped with SIGTERM (it leaves its consumer groups) and started
//                  again 5 s later: how soon after its start-up it holds the partitions again;
//   handover       two workers; one is stopped with SIGTERM: how soon the other holds every
//                  partition (a clean stop must not wait out the session timeout);
//   catch-up       KAFKA_SESSION_TIMEOUT_MS=6000 (the smallest the configuration accepts) for every
//                  process; the worker is kill -9ed and started again --outage-sec (60) s later.
// The sending goes on for --seconds (40), and at least 20 s past the fault's end. Then the
// pipeline drains, a clock tick settles every chat (as test/support/reference-check.ts does), and
// the read models are compared with the ledger: accepted (distinct deliveries with a 2xx),
// counted (messages + payments in the all-time GET /api/accounts), lost and doubled (per account
// and figure, under and over the ledger, or a ledger message or payment without its document),
// every figure against the reference model of the ledger (test/support/reference-model.ts:
// sessions, chats, messages, payments, account totals), GET /api/admin/verify, and every event
// id in `session-events` read back with a throwaway consumer: exactly one content per id.
// Recovery: from the fault's end (the restart, or the SIGCONT), processor + projector lag
// (committed offsets against end offsets, read with kafkajs admin once a second) below 1,000 for
// good, and the backlog drained (everything in `inbound` at the fault's end processed, and the
// events that made projected). The lag by 5 s steps is printed under each row.
// Each process's stdout/stderr goes to a log file in a temp folder printed at the start.
// Nothing here throws on a mismatch: the table says what happened.
//   node --import tsx bench/faults.ts [--rate 300] [--seconds 40] [--only worker-kill|broker-kill|api-kill|store-stop|store-kill|zombie|clean-restart|handover|catch-up]
//        [--fault-at 10] [--outage-sec 60] (catch-up's outage) [--zombie-stall-ms 1000]
//        [--session-timeout-ms <ms>] (every scenario but catch-up; default: the service's, 30 s)
//        [--accounts 6] [--fans 100] (fans per account)
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream, mkdtempSync, readFileSync, type WriteStream } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { AssignerProtocol, Kafka, logLevel, type Admin } from 'kafkajs';
import { createLog, createStore } from '../src/adapters/index.js';
import { loadConfig } from '../src/config.js';
import { signBody } from '../src/ingest/signature.js';
import { tickRecords } from '../src/processor/ticker.js';
import { messageWebhook, transactionWebhook } from '../src/demo/platform-bodies.js';
import { mulberry32 } from '../src/demo/random.js';
import { createLogger } from '../src/support/logger.js';
import { topology, type Topology } from '../src/topology.js';
import { freePort, startKafka, startMongo, type RestartableServer } from '../test/infra/servers.js';
import { compareWithReference } from '../test/support/compare-reference.js';
import type { Delivery } from '../test/support/fault-input.js';
import { settledHash, readModelDocs } from '../test/support/read-models.js';
import { reference, type Reference } from '../test/support/reference-model.js';
import { factsOf } from '../test/support/webhook-facts.js';
import { deadline } from './deadline.js';

const SCENARIOS = ['worker-kill', 'broker-kill', 'api-kill', 'store-stop', 'store-kill', 'zombie', 'clean-restart', 'handover', 'catch-up'] as const;
type Scenario = typeof SCENARIOS[number];

const { values: args } = parseArgs({
  options: {
    rate: { type: 'string', default: '300' },
    seconds: { type: 'string', default: '40' },
    only: { type: 'string' },
    'outage-sec': { type: 'string', default: '60' },
    'zombie-stall-ms': { type: 'string', default: '1000' },
    'session-timeout-ms': { type: 'string' },
    accounts: { type: 'string', default: '6' },
    'fault-at': { type: 'string', default: '10' },
    fans: { type: 'string', default: '100' },
    help: { type: 'boolean', default: false },
  },
});
if (args.help) {
  console.log(`node --import tsx bench/faults.ts [--rate 300] [--seconds 40] [--only ${SCENARIOS.join('|')}] [--fault-at 10] [--outage-sec 60] [--zombie-stall-ms 1000] [--session-timeout-ms <ms>] [--accounts 6] [--fans 100]`);
  process.exit(0);
}
const RATE = Number(args.rate);
const SECONDS = Number(args.seconds);
const OUTAGE_SEC = Number(args['outage-sec']);
const ZOMBIE_STALL_MS = Number(args['zombie-stall-ms']);
const SESSION_TIMEOUT_MS = args['session-timeout-ms'];
if (args.only !== undefined && !(SCENARIOS as readonly string[]).includes(args.only)) throw new Error(`--only: one of ${SCENARIOS.join(', ')}, not ${args.only}`);
if (!(RATE > 0 && SECONDS > 0 && OUTAGE_SEC > 0 && ZOMBIE_STALL_MS >= 0 && Number(args['fault-at']) >= 0)) throw new Error('--rate, --seconds and --outage-sec must be positive, --fault-at and --zombie-stall-ms not negative');
const ONLY = args.only as Scenario | undefined;
const ACCOUNTS = Number(args.accounts);
const FANS = Number(args.fans);
if (!(ACCOUNTS >= 1 && FANS >= 1)) throw new Error('--accounts and --fans must be positive');

const root = join(import.meta.dirname, '..');
const SECRET = 'whsec_faults_bench';
const ADMIN_TOKEN = 'faults-bench-admin-token-0000';
/** The fault lands this far into the sending; the sending goes on at least this long past its end. */
const FAULT_AT_MS = Number(args['fault-at']) * 1000;
const AFTER_FAULT_MS = 20_000;
const DRAIN_TIMEOUT_MS = 300_000;
const IDLE_MS = 1_800_000;
const logDir = mkdtempSync(join(tmpdir(), 'convops-faults-'));

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const fmt = (n: number): string => n.toLocaleString('en');
const secs = (ms: number | null): string => (ms === null ? 'never' : `${(ms / 1000).toFixed(1)} s`);

// ---- processes ---------------------------------------------------------------------------
// Like test/support/service-process.ts, but every line each process writes goes to its own log
// file (those helpers keep a tail in memory, or drop the API's stdout), and starting does not
// wait: a restarted process comes back while the sender keeps delivering.

interface Proc {
  readonly name: string;
  readonly child: ChildProcess;
  readonly logFile: string;
  /** Resolves once the process logged `convops started`; rejects if it exits first. */
  readonly started: Promise<void>;
  readonly exited: Promise<void>;
  kill9(): Promise<void>;
  stop(): Promise<void>;
}

let procSeq = 0;
function spawnService(name: string, env: Record<string, string>, healthUrl?: string): Proc {
  const logFile = join(logDir, `${String(++procSeq).padStart(2, '0')}-${name}.log`);
  const out: WriteStream = createWriteStream(logFile);
  const { KAFKA_BROKERS: _k, MONGO_URL: _m, ...inherited } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/main.ts')], {
    cwd: root, env: { ...inherited, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  let startedResolve: () => void = () => undefined;
  let startedReject: (e: Error) => void = () => undefined;
  const started = new Promise<void>((res, rej) => { startedResolve = res; startedReject = rej; });
  started.catch(() => undefined);
  const collect = (c: Buffer): void => {
    out.write(c);
    tail = (tail + c.toString()).slice(-4000);
    if (tail.includes('convops started')) startedResolve();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<void>((res) => child.once('exit', (code, signal) => {
    out.write(`\n[faults bench] ${name} exited code=${code} signal=${signal}\n`);
    startedReject(new Error(`${name} exited (code ${code}, signal ${signal}) before it started; log ${logFile}`));
    res();
  }));
  const gone = (): boolean => child.exitCode !== null || child.signalCode !== null;
  // An API process logs at warn (fastify logs every request at info): ready once health says 200.
  if (healthUrl) {
    void (async () => {
      while (!gone()) {
        if ((await fetch(`${healthUrl}/api/health`, { signal: deadline() }).then((r) => r.status, () => 0)) === 200) return startedResolve();
        await sleep(200);
      }
    })();
  }
  return {
    name, child, logFile, started, exited,
    async kill9() { if (!gone()) child.kill('SIGKILL'); await exited; },
    async stop() {
      if (gone()) return;
      child.kill('SIGCONT');
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(t);
    },
  };
}

/**
 * When the processor and projector groups were both stable with `members` members holding every
 * partition between them (polled every 100 ms, at most 60 s): the time, or null.
 */
async function groupsHeld(broker: string, topo: Topology, members: number, excluding: ReadonlySet<string> = new Set()): Promise<number | null> {
  const admin = new Kafka({ clientId: 'faults-bench-groups', brokers: [broker], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const { groups } = await admin.describeGroups([topo.processorGroup, topo.projectorGroup]);
      // Stable with that many members, each holding some partition: with one member, all of them.
      const partitionsOf = (m: { memberAssignment: Buffer }): number =>
        Object.values(AssignerProtocol.MemberAssignment.decode(m.memberAssignment)?.assignment ?? {}).reduce((n, ps) => n + ps.length, 0);
      // None of them one that was killed or stopped (a killed member stays listed until its session times out).
      const held = groups.length === 2 && groups.every((g) => g.state === 'Stable' && g.members.length === members && g.members.every((m) => partitionsOf(m) > 0 && !excluding.has(m.memberId)));
      if (held) return Date.now();
      await sleep(100);
    }
    return null;
  } finally {
    await admin.disconnect();
  }
}

/** The member ids of the processor and projector groups now. */
async function groupMembers(broker: string, topo: Topology): Promise<Set<string>> {
  const admin = new Kafka({ clientId: 'faults-bench-groups', brokers: [broker], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const { groups } = await admin.describeGroups([topo.processorGroup, topo.projectorGroup]);
    return new Set(groups.flatMap((g) => g.members.map((m) => m.memberId)));
  } finally {
    await admin.disconnect();
  }
}

/** A server's Java process killed with SIGKILL (its own process group), and gone. */
async function kill9Server(server: RestartableServer): Promise<void> {
  const pid = server.pid;
  if (pid === undefined) return;
  try { process.kill(-pid, 'SIGKILL'); } catch { /* gone */ }
  for (let i = 0; i < 200; i++) {
    try { process.kill(pid, 0); } catch { return; }
    await sleep(50);
  }
}

// ---- workload ------------------------------------------------------------------------------

/** Record time of the first delivery: months back, like the tests' (no tick runs: TICK_INTERVAL_SEC=0). */
const T0 = Date.parse('2026-06-10T08:00:00Z');

/**
 * The issue's workload: --accounts × --fans chats, each fan's deliveries 40 `messages.received`,
 * 20 `messages.sent` and 15 `transactions.new` in 75, in a seeded random order; 10% of the
 * deliveries come again 1–50 deliveries later with the same key and body (a platform
 * redelivery). Record time advances with the schedule (delivery i is stamped i / rate seconds
 * after T0, less up to 2 s of jitter), as a live platform's would: the retries a fault causes
 * come back seconds late, inside ALLOWED_LATENESS_SEC, so every figure can be compared with the
 * reference model. (test/support/fault-input.ts moves record time 25 minutes a chat round, so a
 * delivery retried a second later lands far past the lateness, where the machine counts it
 * outside any session by design: session figures would differ from the reference for no fault.)
 */
function workload(count: number, seed: number): Delivery[] {
  const rand = mulberry32(seed);
  const chats = ACCOUNTS * FANS;
  const out: Delivery[] = [];
  const again: { at: number; d: Delivery }[] = [];
  for (let i = 0; out.length < count; i++) {
    const chat = i % chats;
    const accountId = `acct_${(0xfa28_0000 + (chat % ACCOUNTS)).toString(16).padStart(32, '0')}`;
    const fanId = String(728_000_000 + chat);
    const createdAt = new Date(T0 + Math.floor((i * 1000) / RATE) - Math.floor(rand() * 2000)).toISOString();
    const kind = rand() * 75;
    const body = kind < 40
      ? messageWebhook({ accountId, fanId, messageId: String(2_800_000_000_000 + i), createdAt, text: `fan ${i}`, direction: 'received' })
      : kind < 60
        ? messageWebhook({ accountId, fanId, messageId: String(2_800_000_000_000 + i), createdAt, text: `reply ${i}`, direction: 'sent', fromQueue: kind > 57 })
        : transactionWebhook({ accountId, fanId, transactionId: `e${(i + 1).toString(16).padStart(31, '0')}`, createdAt, type: 'tip', amountDollars: 1 + (i % 40) });
    const d = { key: `evt_faults_${seed}_${i.toString(16).padStart(12, '0')}`, body };
    out.push(d);
    if (rand() < 0.1) again.push({ at: out.length + 1 + Math.floor(rand() * 50), d });
    for (let k = again.findIndex((x) => x.at <= out.length); k >= 0; k = again.findIndex((x) => x.at <= out.length)) {
      out.push((again[k] as { d: Delivery }).d);
      again.splice(k, 1);
    }
  }
  return out.slice(0, count);
}

// ---- sender and ledger -------------------------------------------------------------------

interface Ledger {
  /** Delivery key → body, for every delivery that got a 2xx. */
  readonly accepted: Map<string, string>;
  /** Answers by status; 0: no answer (refused, reset, timed out). */
  readonly statuses: Map<number, number>;
  sent: number;
  retries: number;
  /** Refused with a 4xx other than 408/429: a platform drops those. */
  refused: number;
  /** Gave up: no 2xx within GIVE_UP_MS. */
  gaveUp: number;
}

const GIVE_UP_MS = 300_000;
const agent = new Agent({ keepAlive: true, maxSockets: 256 });

function post(port: number, d: Delivery): Promise<number> {
  return new Promise((resolve) => {
    const req = request({
      host: '127.0.0.1', port, path: '/webhooks/platform', method: 'POST', agent, timeout: 20_000,
      headers: { 'content-type': 'application/json', signature: signBody(SECRET, d.body), 'x-ofapi-idempotency-key': d.key, 'content-length': Buffer.byteLength(d.body) },
    }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve(0));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve(0));
    req.end(d.body);
  });
}

/** Delivers one webhook until it gets a 2xx, backing off 50 ms doubling to 1 s. */
async function deliver(port: number, d: Delivery, ledger: Ledger): Promise<void> {
  const deadline = Date.now() + GIVE_UP_MS;
  let backoff = 50;
  for (;;) {
    const status = await post(port, d);
    ledger.statuses.set(status, (ledger.statuses.get(status) ?? 0) + 1);
    if (status >= 200 && status < 300) {
      ledger.accepted.set(d.key, d.body);
      return;
    }
    if (status >= 400 && status < 500 && status !== 408 && status !== 429) {
      ledger.refused++;
      return;
    }
    if (Date.now() > deadline) {
      ledger.gaveUp++;
      return;
    }
    ledger.retries++;
    await sleep(backoff);
    backoff = Math.min(1000, backoff * 2);
  }
}

/** Starts delivering at `rate` a second until `until()` says stop; resolves when every delivery has its answer. */
function startSender(port: number, deliveries: readonly Delivery[], ledger: Ledger, until: () => boolean): Promise<void> {
  return (async () => {
    const pending: Promise<void>[] = [];
    const start = Date.now();
    for (let i = 0; i < deliveries.length && !until(); i++) {
      const wait = start + (i * 1000) / RATE - Date.now();
      if (wait > 1) await sleep(wait);
      ledger.sent++;
      pending.push(deliver(port, deliveries[i] as Delivery, ledger));
    }
    await Promise.all(pending);
  })();
}

// ---- lag -----------------------------------------------------------------------------------

interface LagSample { t: number; processor: number; projector: number; processorDone: boolean; projectorDone: boolean }

/** Committed offsets against end offsets; null while the broker does not answer. */
class LagReader {
  private admin: Admin | undefined;
  constructor(private readonly brokers: string[], readonly topo: Topology) {}

  private async client(): Promise<Admin> {
    if (this.admin) return this.admin;
    const admin = new Kafka({ clientId: 'faults-bench-lag', brokers: this.brokers, logLevel: logLevel.NOTHING, connectionTimeout: 1000, requestTimeout: 3000, retry: { retries: 0 } }).admin();
    await admin.connect();
    this.admin = admin;
    return admin;
  }

  async ends(topic: string): Promise<Map<number, number>> {
    const offsets = await (await this.client()).fetchTopicOffsets(topic);
    return new Map(offsets.map((o) => [o.partition, Number(o.high)]));
  }

  private async committed(group: string, topic: string): Promise<Map<number, number>> {
    const res = await (await this.client()).fetchOffsets({ groupId: group, topics: [topic] });
    return new Map((res[0]?.partitions ?? []).map((p) => [p.partition, Math.max(0, Number(p.offset))]));
  }

  /** Lag of both groups, and whether each has passed the given positions (a backlog to clear). */
  async sample(inboundMark?: Map<number, number>, eventsMark?: Map<number, number>): Promise<LagSample | null> {
    try {
      const work = Promise.all([
        this.ends(this.topo.inbound), this.committed(this.topo.processorGroup, this.topo.inbound),
        this.ends(this.topo.sessionEvents), this.committed(this.topo.projectorGroup, this.topo.sessionEvents),
      ]);
      const [inEnds, procAt, evEnds, projAt] = await Promise.race([work, sleep(5000).then(() => { throw new Error('lag read timed out'); })]);
      const lagOf = (ends: Map<number, number>, at: Map<number, number>): number => [...ends].reduce((s, [p, end]) => s + Math.max(0, end - (at.get(p) ?? 0)), 0);
      const passed = (mark: Map<number, number> | undefined, at: Map<number, number>): boolean => mark !== undefined && [...mark].every(([p, end]) => (at.get(p) ?? 0) >= end);
      return { t: Date.now(), processor: lagOf(inEnds, procAt), projector: lagOf(evEnds, projAt), processorDone: passed(inboundMark, procAt), projectorDone: passed(eventsMark, projAt) };
    } catch {
      await this.close();
      return null;
    }
  }

  async close(): Promise<void> {
    const a = this.admin;
    this.admin = undefined;
    await a?.disconnect().catch(() => undefined);
  }
}

/**
 * Samples the lag once a second. After `faultEnded(at)`, takes the `inbound` end offsets as the
 * backlog's mark, then, once the processor has passed it, the `session-events` end offsets: the
 * backlog is drained when the projector has passed those too.
 */
class LagMonitor {
  readonly samples: { t: number; lag: number | null; processor?: number; projector?: number }[] = [];
  maxLag = 0;
  private faultEnd: number | undefined;
  private inboundMark: Map<number, number> | undefined;
  private eventsMark: Map<number, number> | undefined;
  drainedAt: number | undefined;
  private running = true;
  private readonly loop: Promise<void>;

  constructor(private readonly reader: LagReader) {
    this.loop = (async () => {
      while (this.running) {
        const started = Date.now();
        await this.tick();
        await sleep(Math.max(0, 1000 - (Date.now() - started)));
      }
    })();
  }

  faultEnded(at = Date.now()): void { this.faultEnd = at; }

  private async tick(): Promise<void> {
    if (this.faultEnd !== undefined && this.drainedAt === undefined && this.inboundMark === undefined) {
      this.inboundMark = await this.reader.ends(this.reader.topo.inbound).catch(() => undefined);
    }
    const s = await this.reader.sample(this.inboundMark, this.eventsMark);
    this.samples.push(s ? { t: s.t, lag: s.processor + s.projector, processor: s.processor, projector: s.projector } : { t: Date.now(), lag: null });
    if (s) this.maxLag = Math.max(this.maxLag, s.processor + s.projector);
    if (!s || this.drainedAt !== undefined || this.inboundMark === undefined) return;
    if (this.eventsMark === undefined && s.processorDone) this.eventsMark = await this.reader.ends(this.reader.topo.sessionEvents).catch(() => undefined);
    else if (this.eventsMark !== undefined && s.projectorDone) this.drainedAt = s.t;
  }

  /** Fault end → the lag below `limit` for good (every later reading known and below). */
  below(limit: number): number | null {
    if (this.faultEnd === undefined) return null;
    const after = this.samples.filter((s) => s.t >= (this.faultEnd as number));
    if (after.length === 0) return null;
    let lastBad = -1;
    after.forEach((s, i) => { if (s.lag === null || s.lag >= limit) lastBad = i; });
    if (lastBad === after.length - 1) return null;
    return lastBad < 0 ? 0 : (after[lastBad + 1] as { t: number }).t - this.faultEnd;
  }

  /** Processor + projector lag every `stepMs`, from `from` (the fault's start) on: "-10s 120+3 · 0s 95+0 · 5s 1,600+2 · ...". */
  timeline(from: number, stepMs = 5000): string {
    const out: string[] = [];
    let next = -Infinity;
    for (const s of this.samples) {
      if (s.t < next) continue;
      out.push(`${Math.round((s.t - from) / 1000)}s ${s.lag === null ? '?' : `${fmt(s.processor ?? 0)}+${fmt(s.projector ?? 0)}`}`);
      next = s.t + stepMs - 500;
    }
    return out.join(' · ');
  }

  drained(): number | null {
    return this.faultEnd === undefined || this.drainedAt === undefined ? null : this.drainedAt - this.faultEnd;
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }
}

// ---- checks ------------------------------------------------------------------------------

interface Health { components: { processor?: { lag?: number | null }; projector?: { lag?: number | null } } }

/** Every id in `session-events` with the sha256 of each content it was appended with. */
async function eventContents(brokers: string[], topic: string, ends: Map<number, number>): Promise<{ records: number; ids: number; twoContents: string[] }> {
  const kafka = new Kafka({ clientId: 'faults-bench-events', brokers, logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: `faults-bench-read-${Date.now()}-${Math.random().toString(36).slice(2)}`, sessionTimeout: 30_000 });
  const contents = new Map<string, Set<string>>();
  const reached = new Map<number, number>();
  let records = 0;
  const want = [...ends].filter(([, end]) => end > 0);
  const done = (): boolean => want.every(([p, end]) => (reached.get(p) ?? 0) >= end);
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    let finish: () => void = () => undefined;
    const finished = new Promise<void>((r) => { finish = r; });
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        records++;
        reached.set(partition, Number(message.offset) + 1);
        const raw = message.value ?? Buffer.alloc(0);
        let id: string | undefined;
        try { id = (JSON.parse(raw.toString('utf8')) as { id?: unknown }).id as string | undefined; } catch { id = undefined; }
        const key = typeof id === 'string' ? id : `(no id) ${partition}:${message.offset}`;
        const set = contents.get(key) ?? new Set<string>();
        set.add(createHash('sha256').update(raw).digest('hex'));
        contents.set(key, set);
        if (done()) finish();
      },
    });
    if (done()) finish();
    await Promise.race([finished, sleep(180_000).then(() => { throw new Error(`reading ${topic} back did not reach its end in 180 s`); })]);
  } finally {
    await consumer.disconnect().catch(() => undefined);
  }
  return { records, ids: contents.size, twoContents: [...contents].filter(([, s]) => s.size > 1).map(([id]) => id) };
}

interface AccountsView { items: { id: string; messages: number; paymentCount: number; revenueCents: number }[] }
interface VerifyView { ok: boolean; differences: unknown[]; stateRollbacks: { count: number; unrecovered: number }; readModelHeals?: { count: number; unrecovered: number }; eventConflicts: { count: number } }

interface Result {
  scenario: Scenario;
  sent: number;
  accepted: number;
  counted: number | null;
  lost: number | null;
  doubled: number | null;
  mismatches: number | null;
  verify: string;
  events: string;
  below1k: number | null;
  drained: number | null;
  maxLag: number;
  /** False when the pipeline did not drain in DRAIN_TIMEOUT_MS: what is missing then was not lost but not yet processed. */
  drainedOk: boolean;
  statuses: string;
  notes: string[];
}

async function compareWithLedger(res: Result, env: Record<string, string>, apiUrl: string, ledger: Ledger, brokers: string[], topo: Topology, reader: LagReader): Promise<void> {
  const config = loadConfig({ ...env, LOG_LEVEL: 'silent' });
  const store = await createStore(config);
  try {
    // Drained, then a tick past the lateness settles every chat (the reference closes them all).
    try {
      await settledHash(apiUrl, store, DRAIN_TIMEOUT_MS);
      const log = createLog(config, createLogger('silent'));
      try {
        await log.append(topo.inbound, tickRecords(await log.partitionCount(topo.inbound), Date.now() + (config.allowedLatenessSec + 1) * 1000));
      } finally {
        await log.close();
      }
      await sleep(500);
      await settledHash(apiUrl, store, DRAIN_TIMEOUT_MS);
    } catch (err) {
      res.drainedOk = false;
      const h = await fetch(`${apiUrl}/api/health`, { signal: deadline() }).then((r) => r.json() as Promise<Health>, () => undefined);
      res.notes.push(`did not drain in ${DRAIN_TIMEOUT_MS / 1000} s: ${String(err).slice(0, 300)}; health lag processor ${h?.components.processor?.lag} projector ${h?.components.projector?.lag}`);
    }
    const ref: Reference = reference(factsOf([...ledger.accepted.values()]), IDLE_MS, Number.POSITIVE_INFINITY);
    // Counted: what the all-time accounts route shows, against the ledger's reference, per account and figure.
    const accounts = (await (await fetch(`${apiUrl}/api/accounts`, { signal: deadline() })).json()) as AccountsView;
    const shown = new Map(accounts.items.map((a) => [a.id, a]));
    let counted = 0;
    let under = 0;
    let over = 0;
    for (const a of accounts.items) counted += a.messages + a.paymentCount;
    for (const id of new Set([...ref.accounts.keys(), ...shown.keys()])) {
      const want = ref.accounts.get(id);
      const got = shown.get(id);
      for (const [w, g] of [[want?.messages ?? 0, got?.messages ?? 0], [want?.paymentCount ?? 0, got?.paymentCount ?? 0]] as const) {
        if (g < w) under += w - g;
        if (g > w) over += g - w;
      }
    }
    // Documents: every message and payment of the ledger has one.
    const docs = await readModelDocs(store);
    const stored = new Set([...(docs.messages ?? []), ...(docs.payments ?? [])].filter((d) => (d as { tombstone?: boolean }).tombstone !== true).map((d) => (d as { _id: string })._id));
    const missingDocs = [...ref.messages.keys(), ...ref.payments.keys()].filter((id) => !stored.has(id)).length;
    res.counted = counted;
    res.lost = Math.max(under, missingDocs);
    res.doubled = over;
    if (missingDocs > 0) res.notes.push(`${missingDocs} ledger messages/payments without a document`);
    const problems = compareWithReference(ref, docs as never, 1_000_000);
    res.mismatches = problems.length;
    if (problems.length > 0) res.notes.push(`figures against the reference: ${problems.slice(0, 5).join(' | ')}`);
    const verify = await fetch(`${apiUrl}/api/admin/verify`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, signal: deadline() }).then((r) => r.json() as Promise<VerifyView>, () => undefined);
    res.verify = verify ? `${verify.ok ? 'ok' : 'NOT ok'} (${verify.differences.length} diff, ${verify.stateRollbacks.count} rollbacks, ${verify.readModelHeals?.count ?? 0} read-model heals, ${verify.eventConflicts.count} conflicts)` : 'no answer';
  } finally {
    await store.close();
  }
  const ends = await reader.ends(topo.sessionEvents);
  const ev = await eventContents(brokers, topo.sessionEvents, ends);
  res.events = `${fmt(ev.records)} / ${fmt(ev.ids)} ids, ${ev.twoContents.length} with 2+ contents`;
  if (ev.twoContents.length > 0) res.notes.push(`event ids with more than one content: ${ev.twoContents.slice(0, 5).join(', ')}`);
}

// ---- scenarios -----------------------------------------------------------------------------

async function runScenario(scenario: Scenario, sharedKafka: RestartableServer | undefined): Promise<Result> {
  const res: Result = { scenario, sent: 0, accepted: 0, counted: null, lost: null, doubled: null, mismatches: null, verify: '-', events: '-', below1k: null, drained: null, maxLag: 0, drainedOk: true, statuses: '', notes: [] };
  const cleanup: (() => Promise<void>)[] = [];
  try {
    // Fresh servers: a fresh broker when it is the one killed, a file-backed store when it is the one stopped.
    const kafka = scenario === 'broker-kill' || !sharedKafka ? await startKafka() : sharedKafka;
    if (kafka !== sharedKafka) cleanup.push(() => kafka.stop());
    const mongo = await startMongo(768, scenario === 'store-stop' || scenario === 'store-kill');
    cleanup.push(() => mongo.stop());
    const prefix = `faults-${scenario}-${Date.now().toString(36)}.`;
    const sessionTimeout = scenario === 'catch-up' ? '6000' : SESSION_TIMEOUT_MS;
    // test/support/deployments.ts's settings (it reads the servers from vitest's inject, so it is not imported).
    const env: Record<string, string> = {
      KAFKA_BROKERS: kafka.url, MONGO_URL: mongo.url, MONGO_DB: `faults_${scenario.replace(/-/g, '_')}`, TOPIC_PREFIX: prefix,
      OPS_PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', INBOUND_PARTITIONS: '4', TICK_INTERVAL_SEC: '0',
      RATE_LIMIT_MAX: '10000000', REPORT_RATE_LIMIT_MAX: '10000000', REFUSAL_LIMIT_MAX: '10000000', LIVE_CACHE_MS: '0',
      PLATFORMAPI_WEBHOOK_SECRET: SECRET, ADMIN_TOKEN,
      ...(sessionTimeout ? { KAFKA_SESSION_TIMEOUT_MS: sessionTimeout } : {}),
    };
    const topo = topology(prefix);
    const port = await freePort();
    const apiUrl = `http://127.0.0.1:${port}`;
    const workerEnv = { ...env, ROLES: 'processor,projector,intelligence' };
    const apiEnv = { ...env, ROLES: 'api', PORT: String(port), LOG_LEVEL: 'warn' };
    const procs: Proc[] = [];
    cleanup.push(async () => { for (const p of procs) await p.stop(); });
    const start = async (name: string, e: Record<string, string>): Promise<Proc> => {
      // Each process a name of its own that its restart keeps, as a deployment gives its workers
      // (KAFKA_MEMBER_NAME): a restarted worker removes the member its killed run left.
      const p = spawnService(name, { ...e, KAFKA_MEMBER_NAME: `${prefix}${name}` }, e.ROLES === 'api' ? apiUrl : undefined);
      procs.push(p);
      return p;
    };
    let api = await start('api', apiEnv);
    await api.started;
    const workers: Proc[] = [await start('worker', scenario === 'zombie' ? { ...workerEnv, CONVOPS_FAILPOINT_STALL_BEFORE_WRITE_MS: String(ZOMBIE_STALL_MS) } : workerEnv)];
    if (scenario === 'zombie' || scenario === 'handover') workers.push(await start('survivor', workerEnv));
    await Promise.all(workers.map((w) => w.started));

    const reader = new LagReader([kafka.url], topo);
    cleanup.push(() => reader.close());
    const monitor = new LagMonitor(reader);
    cleanup.push(() => monitor.stop());
    const planned = scenario === 'catch-up' ? FAULT_AT_MS + OUTAGE_SEC * 1000 + AFTER_FAULT_MS : SECONDS * 1000;
    const deliveries = workload(Math.ceil((RATE * Math.max(planned, SECONDS * 1000 + 120_000)) / 1000), 28 + SCENARIOS.indexOf(scenario));
    const ledger: Ledger = { accepted: new Map(), statuses: new Map(), sent: 0, retries: 0, refused: 0, gaveUp: 0 };
    const t0 = Date.now();
    let faultEnd: number | undefined;
    const sending = startSender(port, deliveries, ledger, () => Date.now() - t0 >= SECONDS * 1000 && faultEnd !== undefined && Date.now() - faultEnd >= AFTER_FAULT_MS);
    await sleep(FAULT_AT_MS);
    const faultStart = Date.now();
    /** Notes when a restarted process is up again (logged `convops started`, or health 200 for the API). */
    const noteUp = (p: Proc): void => {
      const since = Date.now();
      p.started.then(() => res.notes.push(`${p.name} up again ${secs(Date.now() - since)} after its restart began`), () => undefined);
    };
    const ended = (what: string): void => {
      faultEnd = Date.now();
      monitor.faultEnded(faultEnd);
      res.notes.push(`${what} ${secs(faultEnd - faultStart)} after the fault began`);
    };
    /** A server kill -9ed, and started again 10 s later on the same address and data. */
    const killAndResume = async (server: RestartableServer, what: string): Promise<void> => {
      await kill9Server(server);
      await sleep(10_000);
      ended(`${what} restarted`);
      await server.resume();
      res.notes.push(`${what} up again ${secs(Date.now() - (faultEnd as number))} after its restart began`);
    };
    switch (scenario) {
      case 'worker-kill':
      case 'catch-up': {
        const gone = await groupMembers(kafka.url, topo);
        await (workers[0] as Proc).kill9();
        await sleep(scenario === 'catch-up' ? OUTAGE_SEC * 1000 : 5_000);
        ended('worker restarted');
        const since = Date.now();
        workers[0] = await start('worker', workerEnv);
        noteUp(workers[0]);
        if (scenario === 'worker-kill') {
          // The killed member never left: the group waits for it until its session times out.
          const took = await groupsHeld(kafka.url, topo, 1, gone);
          res.notes.push(`hand-over: the restarted worker held every partition of its groups ${took === null ? 'never (60 s)' : secs(took - since)} after it was started`);
        }
        break;
      }
      case 'broker-kill':
        await killAndResume(kafka, 'broker');
        break;
      case 'api-kill': {
        await api.kill9();
        await sleep(2_000);
        ended('API restarted');
        api = await start('api', apiEnv);
        noteUp(api);
        break;
      }
      case 'store-stop': {
        await mongo.halt();
        await sleep(10_000);
        ended('store restarted');
        await mongo.resume();
        res.notes.push(`store up again ${secs(Date.now() - (faultEnd as number))} after its restart began`);
        break;
      }
      case 'clean-restart': {
        const gone = await groupMembers(kafka.url, topo);
        await (workers[0] as Proc).stop();
        await sleep(5_000);
        ended('worker restarted after a clean stop');
        const since = Date.now();
        workers[0] = await start('worker', workerEnv);
        const took = await groupsHeld(kafka.url, topo, 1, gone);
        res.notes.push(`hand-over: the restarted worker held every partition of its groups ${took === null ? 'never (60 s)' : secs(took - since)} after it was started`);
        break;
      }
      case 'handover': {
        const both = await groupsHeld(kafka.url, topo, 2);
        if (both === null) res.notes.push('the two workers never shared the groups (60 s)');
        const since = Date.now();
        await (workers[0] as Proc).stop();
        ended('one of two workers stopped cleanly');
        const took = await groupsHeld(kafka.url, topo, 1);
        res.notes.push(`hand-over: the other worker held every partition ${took === null ? 'never (60 s)' : secs(took - since)} after the SIGTERM (the stop itself took ${secs((faultEnd as number) - since)})`);
        break;
      }
      case 'store-kill':
        await killAndResume(mongo, 'store');
        break;
      case 'zombie': {
        const [zombie, survivor] = workers as [Proc, Proc];
        const members = async (): Promise<number> => {
          const admin = new Kafka({ clientId: 'faults-bench-members', brokers: [kafka.url], logLevel: logLevel.NOTHING }).admin();
          await admin.connect();
          try { return (await admin.describeGroups([topo.processorGroup])).groups[0]?.members.length ?? 0; } finally { await admin.disconnect(); }
        };
        const deadline = Date.now() + 60_000;
        while ((await members()) !== 2 && Date.now() < deadline) await sleep(500);
        const before = await members();
        zombie.child.kill('SIGSTOP');
        const stoppedAt = Date.now();
        while ((await members()) !== 1 && Date.now() - stoppedAt < 300_000) await sleep(500);
        const evictedAfter = Date.now() - stoppedAt;
        await sleep(5_000);
        zombie.child.kill('SIGCONT');
        ended(`zombie resumed (processor group: ${before} members before, the zombie evicted ${secs(evictedAfter)} after its SIGSTOP); SIGCONT`);
        await sleep(5_000);
        await survivor.stop();
        workers[1] = await start('survivor', workerEnv);
        await workers[1].started;
        break;
      }
    }
    await sending;
    res.sent = ledger.sent;
    res.accepted = ledger.accepted.size;
    res.statuses = [...ledger.statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s === 0 ? 'no answer' : s}×${fmt(n)}`).join(', ');
    if (ledger.refused + ledger.gaveUp > 0) res.notes.push(`${ledger.refused} deliveries refused with a 4xx, ${ledger.gaveUp} given up after ${GIVE_UP_MS / 1000} s`);
    res.notes.push(`sent ${fmt(ledger.sent)} deliveries over ${secs(Date.now() - t0)} (retries ${fmt(ledger.retries)})`);
    await api.started.catch((err: unknown) => { res.notes.push(String(err)); });
    for (const w of workers) await w.started.catch((err: unknown) => { res.notes.push(String(err)); });
    await compareWithLedger(res, env, apiUrl, ledger, [kafka.url], topo, reader);
    await monitor.stop();
    res.below1k = monitor.below(1000);
    res.drained = monitor.drained();
    res.maxLag = monitor.maxLag;
    res.notes.push(`lag (processor+projector) by seconds since the fault began: ${monitor.timeline(faultStart)}`);
    if (scenario === 'zombie') {
      const zombieLog = readFileSync(procs.find((p) => p.name === 'worker')?.logFile ?? '', 'utf8');
      const fenced = zombieLog.split('\n').filter((l) => l.includes('fenced'));
      res.notes.push(fenced.length > 0 ? `zombie fenced: ${fenced.length} log line(s), first: ${fenced[0]?.slice(0, 400)}` : 'the zombie logged no fence (its SIGSTOP did not land inside a round)');
    }
    const restarts = procs.map((p) => `${p.name}: ${p.logFile}`);
    res.notes.push(`logs: ${restarts.join(', ')}`);
  } catch (err) {
    res.notes.push(`scenario failed to run: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
  } finally {
    for (const c of cleanup.reverse()) await c().catch(() => undefined);
  }
  return res;
}

const HEADER = '| scenario | sent | accepted (2xx) | counted | lost | doubled | figures ≠ reference | /api/admin/verify | session-events: records / ids | lag < 1,000 after | backlog drained after | max lag |';
const row = (r: Result): string => `| ${r.scenario} | ${fmt(r.sent)} | ${fmt(r.accepted)} | ${r.counted === null ? '-' : fmt(r.counted)} | ${r.lost === null ? '-' : r.drainedOk ? fmt(r.lost) : `${fmt(r.lost)} not yet processed (did not drain)`} | ${r.doubled ?? '-'} | ${r.mismatches ?? '-'} | ${r.verify} | ${r.events} | ${secs(r.below1k)} | ${secs(r.drained)} | ${fmt(r.maxLag)} |`;

console.log(`faults benchmark: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}, ${new Date().toISOString()}`);
console.log(`rate ${RATE}/s, --seconds ${SECONDS}, fault at ${FAULT_AT_MS / 1000} s, sending until ${AFTER_FAULT_MS / 1000} s past the fault's end; KAFKA_SESSION_TIMEOUT_MS ${SESSION_TIMEOUT_MS ?? 'the default'} (catch-up: 6000, outage ${OUTAGE_SEC} s); logs in ${logDir}`);
const sharedKafka = ONLY === 'broker-kill' ? undefined : await startKafka();
const results: Result[] = [];
try {
  for (const scenario of SCENARIOS.filter((s) => ONLY === undefined || s === ONLY)) {
    console.log(`\n== ${scenario} (${new Date().toISOString()})`);
    const r = await runScenario(scenario, sharedKafka);
    results.push(r);
    console.log(HEADER);
    console.log(row(r));
    console.log(`answers: ${r.statuses}`);
    for (const n of r.notes) console.log(`  - ${n}`);
  }
} finally {
  await sharedKafka?.stop();
  agent.destroy();
}
console.log(`\n${HEADER}\n|${'---|'.repeat(12)}`);
for (const r of results) console.log(row(r));
console.log(`\nlogs: ${logDir}`);
