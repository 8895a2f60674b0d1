// Failpoint for issue 27's item 4: a chat state changed behind the processor's cache (an admin
// purge while the pipeline runs). The round that steps from the stale cached state must append
// nothing: it is fenced before the append, and its retry steps from the store. Before, the
// stale round's events stayed in session-events next to the retry's, and the account totals
// counted both. Real log and store on both deployments; the processor's own round handler.
import { afterAll, describe, expect, it } from 'vitest';
import { createLog, createStore } from '../../src/adapters/index.js';
import type { Log, LogRecord } from '../../src/adapters/log/log.js';
import type { DocumentStore } from '../../src/adapters/store/store.js';
import { loadConfig } from '../../src/config.js';
import { messageWebhook } from '../../src/demo/platform-bodies.js';
import { inboundRecord, readInboundMeta } from '../../src/domain/inbound-record.js';
import { normalise } from '../../src/domain/normalise.js';
import { BatchFencedError, CHAT_STATE_COLLECTION, SessionProcessor } from '../../src/processor/session-processor.js';
import { createLogger } from '../../src/support/logger.js';
import { topology } from '../../src/topology.js';
import { initialChatState, step } from '../../machines/step.js';
import { DEPLOYMENTS, deploymentEnv, removeDataDirs } from '../support/deployments.js';

const ACCOUNT = 'acct_00000000000000000000000000fe0ce1';
const FAN = '7770001';
const T0 = Date.now() - 3_600_000;

function record(id: number, offset: number, atMs: number): LogRecord {
  const body = Buffer.from(messageWebhook({ accountId: ACCOUNT, fanId: FAN, messageId: String(id), createdAt: new Date(atMs).toISOString(), text: `m${id}`, direction: 'received' }));
  const r = inboundRecord({ source: 'webhook', event: 'messages.received', accountId: ACCOUNT, chatId: FAN, dedupeKey: `evt_fence_${id}`, receivedAt: atMs }, body);
  return { topic: '', partition: 0, offset, key: r.key, value: Buffer.from(r.value), headers: r.headers ?? {}, timestamp: atMs };
}

const total = (ends: Record<number, number>): number => Object.values(ends).reduce((a, b) => a + b, 0);

describe.each(DEPLOYMENTS)('a chat state changed behind the cache, on %s', (kind) => {
  const closers: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of closers.splice(0)) await c();
    removeDataDirs();
  });

  it('appends no event from the stale round; the retry steps from the store', async () => {
    const config = loadConfig(await deploymentEnv(kind));
    const topo = topology(config.topicPrefix);
    const log: Log = createLog(config, createLogger('silent'));
    const store: DocumentStore = await createStore(config);
    closers.push(async () => { await log.close(); await store.close(); });
    await log.createTopics([{ name: topo.inbound, partitions: 1 }, { name: topo.sessionEvents, partitions: 1 }]);
    const processor = new SessionProcessor({ log, store, topology: topo, idleMs: 1_800_000, lateMs: 120_000, logger: createLogger('silent') });
    await processor.prepare();
    const batch = (r: LogRecord) => [{ topic: topo.inbound, partition: 0, records: [{ ...r, topic: topo.inbound }] }];

    await processor.handleBatch(batch(record(1, 0, T0)));
    const afterFirst = total(await log.endOffsets(topo.sessionEvents));
    expect(afterFirst).toBeGreaterThan(0);

    // What purge-demo does, while the processor still holds the chat in its cache.
    expect(await store.collection(CHAT_STATE_COLLECTION).deleteMany({ _id: `${ACCOUNT}:${FAN}` })).toBe(1);

    const second = record(2, 1, T0 + 60_000);
    await expect(processor.handleBatch(batch(second))).rejects.toBeInstanceOf(BatchFencedError);
    expect(total(await log.endOffsets(topo.sessionEvents)), 'the fenced round appended events').toBe(afterFirst);

    await processor.handleBatch(batch(second));
    // The retry's events are those of a chat that starts at this record (its state was purged).
    const meta = readInboundMeta(second.headers);
    if (!meta) throw new Error('test record has no routing headers');
    const fresh = step(initialChatState({ accountId: ACCOUNT, chatId: FAN, idleMs: 1_800_000, lateMs: 120_000, unansweredMs: 86_400_000 }), normalise(meta, second.value));
    expect(total(await log.endOffsets(topo.sessionEvents))).toBe(afterFirst + fresh.events.length);
    expect(processor.counters.batchesFenced).toBe(1);
  });
});
