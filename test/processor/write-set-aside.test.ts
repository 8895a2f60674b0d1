// A failure that names no record (the round's store write) but repeats is set aside at the
// write stage: the round is run a record at a time and the record whose own round still fails
// is set aside, stage 'write', while the others are processed; a passing fault is never set
// aside. The fault is a failpoint over the real store: its bulkWriteMany throws whenever a
// write (other than a set-aside document) carries the marker, as a key the store refuses would.
import { afterAll, describe, expect, it } from 'vitest';
import { createLog, createStore } from '../../src/adapters/index.js';
import type { LogRecord, RecordBatch } from '../../src/adapters/log/log.js';
import { StoreUnavailableError, type CollectionWrite, type DocumentStore } from '../../src/adapters/store/store.js';
import { loadConfig } from '../../src/config.js';
import { messageWebhook } from '../../src/demo/platform-bodies.js';
import { inboundRecord } from '../../src/domain/inbound-record.js';
import { SessionProcessor } from '../../src/processor/session-processor.js';
import { SET_ASIDE_COLLECTION, type SetAsideDoc } from '../../src/pipeline/set-aside.js';
import { Projector } from '../../src/projector/projector.js';
import { ReadModelSet } from '../../src/read-models/read-model-set.js';
import { createLogger } from '../../src/support/logger.js';
import { topology } from '../../src/topology.js';
import { DEPLOYMENTS, deploymentEnv, removeDataDirs } from '../support/deployments.js';

const ACCOUNT = 'acct_00000000000000000000000000a5e7f1';
const MARKER = '4242424242';
const T0 = Date.now() - 3_600_000;

function failingStore(store: DocumentStore, fault: () => Error | null): DocumentStore {
  return new Proxy(store, {
    get(target, key) {
      if (key === 'bulkWriteMany') {
        return async (writes: readonly CollectionWrite[]) => {
          const carried = writes.some((w) => w.collection !== SET_ASIDE_COLLECTION && JSON.stringify(w.ops).includes(MARKER));
          const err = carried ? fault() : null;
          if (err) throw err;
          return target.bulkWriteMany(writes);
        };
      }
      const v: unknown = Reflect.get(target, key);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

function record(fan: string, id: string, offset: number, topic: string): LogRecord {
  const at = T0 + offset * 1000;
  const body = Buffer.from(messageWebhook({ accountId: ACCOUNT, fanId: fan, messageId: id, createdAt: new Date(at).toISOString(), text: `m${id}`, direction: 'received' }));
  const r = inboundRecord({ source: 'webhook', event: 'messages.received', accountId: ACCOUNT, chatId: fan, dedupeKey: `evt_wsa_${id}`, receivedAt: at }, body);
  return { topic, partition: 0, offset, key: r.key, value: Buffer.from(r.value), headers: r.headers ?? {}, timestamp: at };
}

describe.each(DEPLOYMENTS)('a write that keeps failing, on %s', (kind) => {
  const closers: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of closers.splice(0)) await c();
    removeDataDirs();
  });

  it('sets aside the record whose write fails twice, and only it; a store outage sets nothing aside', async () => {
    const config = loadConfig(await deploymentEnv(kind));
    const topo = topology(config.topicPrefix);
    const log = createLog(config, createLogger('silent'));
    const store = await createStore(config);
    closers.push(async () => { await log.close(); await store.close(); });
    await log.createTopics([{ name: topo.inbound, partitions: 1 }, { name: topo.sessionEvents, partitions: 1 }]);
    let outage = true;
    const faulty = failingStore(store, () => (outage ? new StoreUnavailableError('failpoint: the store is down') : new Error('failpoint: key size is larger than the maximum key size')));
    const processor = new SessionProcessor({ log, store: faulty, topology: topo, idleMs: 1_800_000, lateMs: 120_000, logger: createLogger('silent') });
    await processor.prepare();
    const round: RecordBatch[] = [{ topic: topo.inbound, partition: 0, records: [record('101', '1001', 0, topo.inbound), record('102', MARKER, 1, topo.inbound), record('103', '1003', 2, topo.inbound)] }];

    // Not the records' fault: retried as often as it takes, nothing set aside.
    for (let i = 0; i < 3; i++) await expect(processor.handleBatch(round)).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(await store.collection(SET_ASIDE_COLLECTION).countDocuments()).toBe(0);

    outage = false;
    await expect(processor.handleBatch(round)).rejects.toThrow(/key size/);
    await processor.handleBatch(round);
    const asides = await store.collection<SetAsideDoc>(SET_ASIDE_COLLECTION).find({});
    expect(asides.map((a) => ({ stage: a.stage, offset: a.offset, error: a.error }))).toEqual([{ stage: 'write', offset: 1, error: expect.stringContaining('key size') }]);
    expect(processor.counters).toMatchObject({ recordsSetAside: 1, recordsApplied: 2 });

    // The projector: the events of a message carrying the marker fail its write the same way.
    const projector = new Projector(failingStore(store, () => new Error('failpoint: key size is larger than the maximum key size')), topo, createLogger('silent'));
    await projector.prepare();
    const ends = await log.endOffsets(topo.sessionEvents);
    const events: LogRecord[] = [];
    const consumer = await log.consumeRounds({ groupId: `${topo.projectorGroup}-wsa`, topics: [topo.sessionEvents], fromBeginning: true, onRound: async (bs) => { for (const b of bs) events.push(...b.records); } });
    const deadline = Date.now() + 30_000;
    while (events.length < (ends[0] ?? 0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await consumer.stop();
    // The processor's failed attempts appended their events before their writes failed (as a
    // crash between append and write would): those naming the marked message poison the
    // projector's write the same way, and only they are set aside.
    const marked = events.filter((e) => e.value.toString('utf8').includes(MARKER)).map((e) => e.offset);
    expect(marked.length).toBeGreaterThan(0);
    const batch: RecordBatch[] = [{ topic: topo.sessionEvents, partition: 0, records: events }];
    await expect(projector.handleBatch(batch)).rejects.toThrow(/key size/);
    await projector.handleBatch(batch);
    const eventAsides = await store.collection<SetAsideDoc>(SET_ASIDE_COLLECTION).find({ stage: 'write', topic: topo.sessionEvents });
    expect(eventAsides.map((a) => a.offset).sort((a, b) => a - b)).toEqual(marked);
    const rm = await new ReadModelSet(store).active();
    expect((await rm.messages.find({ accountId: ACCOUNT })).map((m) => m.messageId).sort()).toEqual(['1001', '1003']);
  });
});
