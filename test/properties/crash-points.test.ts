// Property (issue 27, "Prove it"): for generated chats, a processor or projector stopped at any
// point of a round, and restarted, leaves read models equal to the reference model. The chats'
// records go in as the doors write them (platform webhook bodies through the webhook route's
// routing, connector records, admin close commands, clock records) on a real embedded log and
// store; the real SessionProcessor and Projector handle them round by round, with this file as
// their consumer. Per round fast-check picks where the stage stops:
// - nowhere;
// - after the append: the round's store write throws (nothing of it lands), then the round is
//   delivered again, to a restarted stage (a new instance, fresh caches) or to the same one
//   (the consumer's retry);
// - in the middle of the store write: a prefix of its ops lands, then it throws (MongoDB runs a
//   multi-collection write one collection after another and keeps what landed);
// - after the store write, before the commit: the round succeeded but its offsets were not
//   committed, so the round is delivered again.
// A redelivery may be the same round or a fetch of another size from the same offsets. What
// the processor appends (twice, after a crash past its append) is what the projector reads, at
// the offsets the log gave. After the last round and a settling tick, every figure of every
// read model must equal the reference model's (test/support/reference-model.ts, which shares no
// code with the system), and verify (src/read-side/verify.ts) must find the totals and report
// buckets equal to the documents. A failure prints fast-check's seed and path: rerun with
// PROPERTY_SEED / PROPERTY_PATH (PROPERTY_RUNS for more runs).
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createLog, createStore } from '../../src/adapters/index.js';
import type { AppendRecord, Log, LogRecord, RecordBatch } from '../../src/adapters/log/log.js';
import { StoreUnavailableError, type CollectionWrite, type DocumentStore } from '../../src/adapters/store/store.js';
import { loadConfig } from '../../src/config.js';
import { CHAT_STATE_COLLECTION, SessionProcessor, type ChatStateDoc } from '../../src/processor/session-processor.js';
import { SET_ASIDE_COLLECTION } from '../../src/pipeline/set-aside.js';
import { tickRecords } from '../../src/processor/ticker.js';
import { Projector } from '../../src/projector/projector.js';
import { ReadModelSet } from '../../src/read-models/read-model-set.js';
import { verifyFigures } from '../../src/read-side/verify.js';
import { createLogger } from '../../src/support/logger.js';
import { topology, type Topology } from '../../src/topology.js';
import { compareWithReference, type StoredModels } from '../support/compare-reference.js';
import { conversationArb, type Conversation } from '../support/conversations.js';
import { deploymentEnv, removeDataDirs } from '../support/deployments.js';
import { factRecord } from '../support/inbound-records.js';
import { readModelDocs } from '../support/read-models.js';
import { reference, type Fact } from '../support/reference-model.js';

const IDLE_MS = 1_800_000;
const LATE_MS = 300_000;
const logger = createLogger('silent');

// ---------------------------------------------------------------------------------------------
// The plan fast-check generates.

type Point = 'store-throws' | 'store-partial' | 'after-write';

interface Crash {
  readonly point: Point;
  /** A new stage instance takes the redelivery (a restart), or the same one does (the consumer's retry). */
  readonly restart: boolean;
  /** For 'store-partial': the share of the write's ops (percent) that lands before it throws. */
  readonly keepPct: number;
}

interface Round {
  /** Records fetched for the round. */
  readonly size: number;
  /** Where the stage stops, attempt after attempt; after the last, the round goes through and commits. */
  readonly crashes: readonly Crash[];
  /** The fetch after a crash takes this many records from the same offsets (null: the same round). */
  readonly refetch: number | null;
}

interface Plan {
  readonly conversation: Conversation;
  readonly partitions: number;
  /** How long after its time each record was received (ms), cycled. */
  readonly delays: readonly number[];
  /** The settling tick closes every session (past every deadline) or only the idle ones. */
  readonly settleAll: boolean;
  readonly processor: readonly Round[];
  readonly projector: readonly Round[];
  /** Projector rounds after each processor round, cycled (0: the projector lags). */
  readonly pace: readonly number[];
}

const crashArb: fc.Arbitrary<Crash> = fc.record({
  point: fc.constantFrom<Point>('store-throws', 'store-partial', 'after-write'),
  restart: fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
  keepPct: fc.integer({ min: 0, max: 99 }),
});

const roundArb: fc.Arbitrary<Round> = fc.record({
  size: fc.integer({ min: 1, max: 5 }),
  crashes: fc.oneof({ weight: 2, arbitrary: fc.constant([]) }, { weight: 3, arbitrary: fc.array(crashArb, { minLength: 1, maxLength: 2 }) }),
  refetch: fc.option(fc.integer({ min: 1, max: 6 }), { freq: 3 }),
});

const planArb: fc.Arbitrary<Plan> = fc.record({
  conversation: conversationArb({ idleMs: IDLE_MS, lateMs: LATE_MS, minSteps: 1, maxSteps: 14 }),
  partitions: fc.integer({ min: 1, max: 3 }),
  delays: fc.array(fc.integer({ min: 0, max: 2_000 }), { minLength: 1, maxLength: 8 }),
  settleAll: fc.boolean(),
  processor: fc.array(roundArb, { maxLength: 16 }),
  projector: fc.array(roundArb, { maxLength: 16 }),
  pace: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 1, maxLength: 4 }),
});

const DEFAULT_ROUND: Round = { size: 4, crashes: [], refetch: null };

// ---------------------------------------------------------------------------------------------
// Arrivals as the records the doors write.

/** What the admin saw open when it closed the chat (null: no session to name, so no close request). */
function closeTargets(facts: readonly Fact[]): Map<Fact, string | null> {
  const ref = reference(facts, IDLE_MS);
  const out = new Map<Fact, string | null>();
  for (const f of facts) {
    if (f.kind !== 'close') continue;
    const before = [...ref.sessions.values()].filter((s) => s.chatKey === `${f.account}:${f.chat}` && s.openedAt <= f.at);
    const closed = before.find((s) => s.closeReason === 'forced' && s.closedAt === f.at);
    // Nothing open at the time: the admin names the last session it saw (already closed), if any.
    out.set(f, closed?.sessionId ?? before.at(-1)?.sessionId ?? null);
  }
  return out;
}

/** The inbound records of a plan, in arrival order, ending with the settling tick; and the reference's closing time. */
function inboundOf(p: Plan): { records: AppendRecord[]; closedBy: number } {
  const c = p.conversation;
  const targets = closeTargets(c.facts);
  const records: AppendRecord[] = [];
  let latest = Number.NEGATIVE_INFINITY;
  c.arrivals.forEach((a, i) => {
    if (a.kind === 'tick') {
      records.push(...tickRecords(p.partitions, a.at));
      return;
    }
    const receivedAt = a.fact.kind === 'close' ? a.fact.at : a.fact.at + (p.delays[i % p.delays.length] ?? 0);
    // A close with no session to name is no request at all.
    const target = a.fact.kind === 'close' ? targets.get(a.fact) ?? null : null;
    if (a.fact.kind === 'close' && target === null) return;
    const r = factRecord(a.fact, a.key, receivedAt, target);
    latest = Math.max(latest, receivedAt);
    records.push(r);
  });
  // A tick the lateness past the last record places everything still waiting; past every
  // deadline too when `settleAll`. Its clock less the lateness is the watermark: the reference
  // closes the sessions idle before it.
  const settleAt = Math.max(latest, c.maxAt) + LATE_MS + 1 + (p.settleAll ? IDLE_MS : 0);
  records.push(...tickRecords(p.partitions, settleAt));
  return { records, closedBy: settleAt - LATE_MS };
}

// ---------------------------------------------------------------------------------------------
// Fault injection: the store the stages write through, and the log that tells what was appended.

/** The store gone in the middle of a round, as a crash or an outage shows to the stage: never the records' fault. */
class Crashed extends StoreUnavailableError {
  constructor(what: string) {
    super(`crash point: ${what}`);
  }
}

/** Delegates to the real store; when armed, its next bulkWriteMany lands `keepPct` of its ops (none: 0) and throws. */
function faultyStore(inner: DocumentStore): { store: DocumentStore; arm: (keepPct: number) => void; disarm: () => boolean } {
  let armed: number | null = null;
  let fired = false;
  const bulkWriteMany = async (writes: readonly CollectionWrite[]): Promise<void> => {
    if (armed === null) return inner.bulkWriteMany(writes);
    const keepPct = armed;
    armed = null;
    fired = true;
    const total = writes.reduce((n, w) => n + w.ops.length, 0);
    let left = Math.floor((total * keepPct) / 100);
    if (left > 0) {
      const prefix: CollectionWrite[] = [];
      for (const w of writes) {
        if (left <= 0) break;
        prefix.push({ collection: w.collection, ops: w.ops.slice(0, left) });
        left -= Math.min(left, w.ops.length);
      }
      await inner.bulkWriteMany(prefix);
      throw new Crashed(`store write stopped after ${Math.floor((total * keepPct) / 100)} of ${total} ops`);
    }
    throw new Crashed('store write failed before writing');
  };
  const store = new Proxy(inner, {
    get(target, prop) {
      if (prop === 'bulkWriteMany') return bulkWriteMany;
      const v: unknown = Reflect.get(target, prop, target);
      return typeof v === 'function' ? (v as (...args: unknown[]) => unknown).bind(target) : v;
    },
  });
  return {
    store,
    arm: (keepPct) => {
      armed = keepPct;
      fired = false;
    },
    disarm: () => {
      armed = null;
      return fired;
    },
  };
}

/** The log, with every record appended to `topic` also handed to `sink` at the offset the log gave it. */
function capturingLog(inner: Log, topic: string, sink: (r: LogRecord) => void): Log {
  const append = async (t: string, records: readonly AppendRecord[]) => {
    const results = await inner.append(t, records);
    if (t === topic) {
      records.forEach((r, i) => {
        const at = results[i];
        if (!at) throw new Error('append answered fewer positions than records');
        sink({ topic: t, partition: at.partition, offset: at.offset, key: r.key, value: Buffer.from(r.value), headers: r.headers ?? {}, timestamp: r.timestamp ?? 0 });
      });
    }
    return results;
  };
  return new Proxy(inner, {
    get(target, prop) {
      if (prop === 'append') return append;
      const v: unknown = Reflect.get(target, prop, target);
      return typeof v === 'function' ? (v as (...args: unknown[]) => unknown).bind(target) : v;
    },
  });
}

// ---------------------------------------------------------------------------------------------
// This file as the consumer of both stages.

interface Handler {
  handleBatch(round: readonly RecordBatch[]): Promise<void>;
}

interface StageRun {
  current: Handler;
  readonly restart: () => Promise<Handler>;
  /** The records of its topic, in the order they were appended (the processor's output grows as it runs). */
  readonly records: readonly LogRecord[];
  cursor: number;
}

interface Stats {
  runs: number;
  rounds: number;
  fired: Record<`${'processor' | 'projector'}:${Point}`, number>;
  restarts: number;
  /** Session events appended again after a crash past the append (the projector reads every copy). */
  eventsAppendedTwice: number;
  inbound: number;
}

/** At most one batch per partition, each in offset order, as a fetch of the log returns them. */
function fetchRound(records: readonly LogRecord[], from: number, size: number): RecordBatch[] {
  const batches = new Map<number, LogRecord[]>();
  for (const r of records.slice(from, from + size)) batches.set(r.partition, [...(batches.get(r.partition) ?? []), r]);
  return [...batches].map(([partition, rs]) => ({ topic: (rs[0] as LogRecord).topic, partition, records: rs }));
}

const countOf = (round: readonly RecordBatch[]): number => round.reduce((n, b) => n + b.records.length, 0);

/** One round: the planned stops, each followed by a redelivery from the same offsets; then it goes through and is committed. */
async function deliver(stage: StageRun, name: 'processor' | 'projector', plan: Round, faults: ReturnType<typeof faultyStore>, stats: Stats): Promise<void> {
  let size = plan.size;
  for (const crash of plan.crashes) {
    const round = fetchRound(stage.records, stage.cursor, size);
    if (round.length === 0) return;
    if (crash.point === 'after-write') {
      await stage.current.handleBatch(round);
      stats.fired[`${name}:after-write`]++;
    } else {
      faults.arm(crash.point === 'store-throws' ? 0 : crash.keepPct);
      const outcome = await stage.current.handleBatch(round).then(() => null, (err: unknown) => err);
      const fired = faults.disarm();
      // A stop that happened must be the one reported; one whose round never wrote is no stop.
      if (fired) {
        if (!(outcome instanceof Crashed)) throw new Error(`${name}: the round stopped by the store answered ${String(outcome)}`);
        stats.fired[`${name}:${crash.point}`]++;
      } else if (outcome !== null) {
        throw outcome;
      }
    }
    if (crash.restart) {
      stage.current = await stage.restart();
      stats.restarts++;
    }
    size = plan.refetch ?? size;
  }
  const round = fetchRound(stage.records, stage.cursor, size);
  if (round.length === 0) return;
  await stage.current.handleBatch(round);
  stage.cursor += countOf(round);
  stats.rounds++;
}

async function runPlan(p: Plan, topo: Topology, log: Log, realStore: DocumentStore, stats: Stats): Promise<string[]> {
  await log.createTopics([{ name: topo.inbound, partitions: p.partitions }, { name: topo.sessionEvents, partitions: p.partitions }]);
  const { records: appends, closedBy } = inboundOf(p);
  const settledAt = closedBy + LATE_MS;
  const positions = await log.append(topo.inbound, appends);
  const inbound: LogRecord[] = appends.map((r, i) => {
    const at = positions[i];
    if (!at) throw new Error('append answered fewer positions than records');
    return { topic: topo.inbound, partition: at.partition, offset: at.offset, key: r.key, value: Buffer.from(r.value), headers: r.headers ?? {}, timestamp: r.timestamp ?? 0 };
  });
  stats.inbound += inbound.length;

  const faults = faultyStore(realStore);
  const events: LogRecord[] = [];
  const appendedIds = new Set<string>();
  const processorLog = capturingLog(log, topo.sessionEvents, (r) => {
    const id = r.headers['convops-event-id'] ?? '';
    if (appendedIds.has(id)) stats.eventsAppendedTwice++;
    appendedIds.add(id);
    events.push(r);
  });
  const processors: SessionProcessor[] = [];
  const projectors: Projector[] = [];
  const newProcessor = async (): Promise<Handler> => {
    const proc = new SessionProcessor({ log: processorLog, store: faults.store, topology: topo, idleMs: IDLE_MS, lateMs: LATE_MS, logger });
    await proc.prepare();
    processors.push(proc);
    return proc;
  };
  const newProjector = async (): Promise<Handler> => {
    const proj = new Projector(faults.store, topo, logger);
    await proj.prepare();
    projectors.push(proj);
    return proj;
  };
  const processor: StageRun = { current: await newProcessor(), restart: newProcessor, records: inbound, cursor: 0 };
  const projector: StageRun = { current: await newProjector(), restart: newProjector, records: events, cursor: 0 };

  let nextProjectorRound = 0;
  const projectorRound = (): Promise<void> => deliver(projector, 'projector', p.projector[nextProjectorRound++] ?? DEFAULT_ROUND, faults, stats);
  for (let i = 0; processor.cursor < inbound.length; i++) {
    await deliver(processor, 'processor', p.processor[i] ?? DEFAULT_ROUND, faults, stats);
    for (let k = 0; k < (p.pace[i % p.pace.length] ?? 1); k++) await projectorRound();
  }
  while (projector.cursor < events.length) await projectorRound();

  // Every figure against the reference model.
  const ref = reference(p.conversation.facts, IDLE_MS, closedBy);
  const problems = compareWithReference(ref, (await readModelDocs(realStore)) as unknown as StoredModels, 12, settledAt);
  const verified = await verifyFigures(await new ReadModelSet(realStore).active());
  for (const d of verified.differences) problems.push(`verify: ${d.accountId} ${d.figure} in ${d.source}: documents ${d.documents}, found ${d.found}`);
  for (const doc of await realStore.collection<ChatStateDoc>(CHAT_STATE_COLLECTION).find({})) {
    const ctx = doc.state.context;
    if (ctx.lateCount !== 0) problems.push(`chat ${doc._id}: ${ctx.lateCount} records taken as late`);
    if (ctx.pending.length !== 0) problems.push(`chat ${doc._id}: ${ctx.pending.length} records still waiting`);
    if (ctx.skippedCount !== 0) problems.push(`chat ${doc._id}: ${ctx.skippedCount} records skipped as unusable`);
  }
  for (const a of await realStore.collection(SET_ASIDE_COLLECTION).find({})) problems.push(`set aside: ${JSON.stringify(a).slice(0, 300)}`);
  const unrouted = processors.reduce((n, x) => n + x.counters.recordsWithoutRouting, 0);
  if (unrouted !== 0) problems.push(`${unrouted} inbound records without routing`);
  const unreadable = projectors.reduce((n, x) => n + x.counters.eventsUnreadable, 0);
  if (unreadable !== 0) problems.push(`${unreadable} unreadable session events`);
  return problems;
}

const RUNS = Number(process.env.PROPERTY_RUNS ?? 25);
const TEST_TIMEOUT_MS = Math.max(180_000, RUNS * 5_000);

const params = (): fc.Parameters<[Plan]> => ({
  numRuns: RUNS,
  // Shrinking a failure runs whole pipelines: stop it before the test's timeout so the seed,
  // the path and the smallest case found so far are still printed.
  interruptAfterTimeLimit: TEST_TIMEOUT_MS - 30_000,
  ...(process.env.PROPERTY_SEED ? { seed: Number(process.env.PROPERTY_SEED), path: process.env.PROPERTY_PATH } : {}),
});

describe('crash points: a stage stopped anywhere in a round and restarted changes no figure', () => {
  afterAll(() => removeDataDirs());

  it('read models equal the reference model, and verify finds nothing, whatever round stops where', async () => {
    const stats: Stats = {
      runs: 0, rounds: 0, restarts: 0, eventsAppendedTwice: 0, inbound: 0,
      fired: {
        'processor:store-throws': 0, 'processor:store-partial': 0, 'processor:after-write': 0,
        'projector:store-throws': 0, 'projector:store-partial': 0, 'projector:after-write': 0,
      },
    };
    await fc.assert(fc.asyncProperty(planArb, async (p) => {
      // A deployment of its own per run: its own data folder, log and store.
      const config = loadConfig(await deploymentEnv('embedded', { INBOUND_PARTITIONS: String(p.partitions) }));
      const log = createLog(config, logger);
      const store = await createStore(config);
      try {
        stats.runs++;
        expect(await runPlan(p, topology(config.topicPrefix), log, store, stats)).toEqual([]);
      } finally {
        await log.close();
        await store.close();
        removeDataDirs();
      }
    }), params());
    // The property held with the stops it was meant to have.
    for (const [point, n] of Object.entries(stats.fired)) expect(n, `${point} never happened`).toBeGreaterThan(0);
    expect(stats.eventsAppendedTwice, 'no session event was appended twice').toBeGreaterThan(0);
    expect(stats.restarts).toBeGreaterThan(0);
  }, TEST_TIMEOUT_MS);
});
