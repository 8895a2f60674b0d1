// Issue 28, "A chat state that knows where it stands", under a running processor: the store
// loses acknowledged writes (a failover hidden by retried writes, a restored backup) while the
// processor keeps running, and the chat it steps next is no longer in its cache (a small cache,
// other chats since), so nothing cached shows the older state. The partition's applied mark,
// read with every round, has gone back below the one this processor stored: the round is
// fenced, and its retry re-derives every chat the lost rounds had moved instead of numbering
// their events again. Real log and store, both deployments.
import { afterAll, describe, expect, it } from 'vitest';
import { createLog, createStore } from '../../src/adapters/index.js';
import { loadConfig } from '../../src/config.js';
import { messageWebhook } from '../../src/demo/platform-bodies.js';
import { inboundRecord } from '../../src/domain/inbound-record.js';
import { APPLIED_MARKS_COLLECTION, recordRollbacks, rollbackId, STATE_ROLLBACKS_COLLECTION, type AppliedMarkDoc, type StateRollbackDoc } from '../../src/processor/rollback.js';
import { CHAT_STATE_COLLECTION, SessionProcessor, type ChatStateDoc } from '../../src/processor/session-processor.js';
import { createLogger } from '../../src/support/logger.js';
import { topology } from '../../src/topology.js';
import { DEPLOYMENTS, deploymentEnv, removeDataDirs, type Deployment } from '../support/deployments.js';
import { allRecords, reusedIds } from '../support/event-log.js';
import { eventually } from '../support/wait.js';

const ACCOUNT = 'acct_000000000000000000000000000b0119';
const T0 = Date.parse('2026-06-12T10:00:00Z');

function message(fan: string, id: number) {
  const atMs = T0 + id * 1_000;
  const body = Buffer.from(messageWebhook({ accountId: ACCOUNT, fanId: fan, messageId: String(id), createdAt: new Date(atMs).toISOString(), text: `m${id}`, direction: id % 3 === 0 ? 'sent' : 'received' }));
  return inboundRecord({ source: 'webhook', event: id % 3 === 0 ? 'messages.sent' : 'messages.received', accountId: ACCOUNT, chatId: fan, dedupeKey: `evt_mark_${fan}_${id}`, receivedAt: atMs }, body);
}

const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c().catch(() => undefined);
  removeDataDirs();
});

/** A fresh log and store with one partition per topic (every chat shares the mark), and a way to start processors on them. */
async function deployment(kind: Deployment) {
  const config = loadConfig(await deploymentEnv(kind));
  const logger = createLogger('silent');
  const log = createLog(config, logger);
  const store = await createStore(config);
  cleanup.push(async () => { await log.close(); await store.close(); });
  const topo = topology(config.topicPrefix);
  await log.createTopics([{ name: topo.inbound, partitions: 1 }, { name: topo.sessionEvents, partitions: 1 }]);
  const start = async (cacheSize?: number): Promise<SessionProcessor> => {
    const p = new SessionProcessor({ log, store, topology: topo, idleMs: 1_800_000, lateMs: 120_000, logger, ...(cacheSize ? { cacheSize } : {}) });
    await p.start();
    cleanup.push(() => p.stop());
    return p;
  };
  return { log, store, topo, start };
}

describe.each(DEPLOYMENTS)('writes lost under a running processor, on %s', (kind) => {
  it('the applied mark went back: the chats the lost rounds moved are re-derived, even those out of the cache; no event id reused', async () => {
    const { log, store, topo, start } = await deployment(kind);
    const processor = await start(1);
    const states = store.collection<ChatStateDoc>(CHAT_STATE_COLLECTION);
    const marks = store.collection<AppliedMarkDoc>(APPLIED_MARKS_COLLECTION);
    const applied = (n: number) => eventually(() => (processor.counters.recordsApplied >= n ? true : undefined), 30_000, `${n} records applied`);

    await log.append(topo.inbound, [message('7001', 1), message('7001', 2), message('7002', 3)]);
    await applied(3);
    const snapshot = { states: await states.find({}), marks: await marks.find({}) };

    // The rounds to be lost: both chats move on; 7002's record comes last, so 7001 leaves the one-chat cache.
    for (const r of [message('7001', 4), message('7001', 5), message('7002', 6)]) {
      await log.append(topo.inbound, [r]);
      await applied(processor.counters.recordsApplied + 1);
    }
    const lost = new Map((await states.find({})).map((d) => [d._id, d]));

    // The store falls back to the snapshot under the running processor.
    for (const d of snapshot.states) await states.replaceOne({ _id: d._id }, d);
    for (const m of snapshot.marks) await marks.replaceOne({ _id: m._id }, m);

    await log.append(topo.inbound, [message('7001', 7)]);
    await eventually(async () => ((await states.findOne({ _id: `${ACCOUNT}:7001` }))?.offset === 6 ? true : undefined), 30_000, 'the record after the loss stored');

    expect(reusedIds(await allRecords(log, topo.sessionEvents)), 'event ids appended with two contents').toEqual([]);
    // Both chats the lost rounds moved: 7001 (out of the cache) and 7002 (its one record there).
    expect(processor.counters.stateRollbacks).toBe(2);
    expect(processor.counters.recordsRederived).toBe(3);
    expect(await states.findOne({ _id: `${ACCOUNT}:7002` })).toEqual(lost.get(`${ACCOUNT}:7002`));
    const seq = (await states.findOne({ _id: `${ACCOUNT}:7001` }))?.state.context.seq ?? 0;
    expect(seq).toBeGreaterThan(lost.get(`${ACCOUNT}:7001`)?.state.context.seq ?? Infinity);
  });

  it('a rollback recorded by a processor that stopped before re-deriving it is re-derived by the next one, though the mark is whole', async () => {
    const { log, store, topo, start } = await deployment(kind);
    const states = store.collection<ChatStateDoc>(CHAT_STATE_COLLECTION);
    const key = `${ACCOUNT}:7101`;
    const first = await start();
    await log.append(topo.inbound, [message('7101', 11), message('7101', 12)]);
    await eventually(() => (first.counters.recordsApplied >= 2 ? true : undefined), 30_000, 'two records applied');
    const older = await states.findOne({ _id: key });
    if (!older) throw new Error('no state');
    await log.append(topo.inbound, [message('7101', 13), message('7101', 14)]);
    await eventually(() => (first.counters.recordsApplied >= 4 ? true : undefined), 30_000, 'four records applied');
    const newer = await states.findOne({ _id: key });
    await first.stop();

    // Only the chat state was lost (a restored collection), not the mark; the processor that
    // saw it had recorded the rollback and stopped before its retry.
    await states.replaceOne({ _id: key }, older);
    const rollback = { chatKey: key, partition: 0, storedOffset: older.offset, storedSeq: older.state.context.seq, knownOffset: newer?.offset ?? 0, knownSeq: newer?.state.context.seq ?? null };
    await recordRollbacks(store, [rollback], Date.now());

    const second = await start();
    await log.append(topo.inbound, [message('7101', 15)]);
    await eventually(async () => ((await states.findOne({ _id: key }))?.offset === 4 ? true : undefined), 30_000, 'the next record stored');
    expect(reusedIds(await allRecords(log, topo.sessionEvents)), 'event ids appended with two contents').toEqual([]);
    expect(second.counters.recordsRederived).toBe(2);
    const doc = await store.collection<StateRollbackDoc>(STATE_ROLLBACKS_COLLECTION).findOne({ _id: rollbackId(rollback) });
    expect(doc).toMatchObject({ recordsRederived: 2, recordsMissing: 0, recoveredAt: expect.any(Number) });
  });
});
