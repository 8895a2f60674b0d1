// Session processor throughput over a backlog of `inbound` (re-deriving, or catching up after
// an outage), and what the durable dedupe ledger costs in it: the same backlog with the
// ledger in the store (one read and one write per batch) and kept in memory instead. Half the backlog is redelivered
// (duplicates by key), as platform retries and a second backfill would make it.
//   node --import tsx bench/processor.ts [--records 100000] [--chats 2000] [--only embedded|kafka]
import { parseArgs } from 'node:util';
import { cpus, totalmem } from 'node:os';
import { createLog, createStore } from '../src/adapters/index.js';
import { loadConfig } from '../src/config.js';
import { webhookRecord } from './webhook-records.js';
import { messageWebhook } from '../src/demo/platform-bodies.js';
import { BatchLedger, ChatLedger, type LedgerDoc } from '../src/processor/chat-ledger.js';
import type { KnownId } from '../machines/dedupe.js';
import { createLogger } from '../src/support/logger.js';
import { topology } from '../src/topology.js';
import { onDeployments } from './deployments.js';
import { drainProcessor } from './drain-processor.js';

const { values: args } = parseArgs({
  options: { records: { type: 'string', default: '100000' }, chats: { type: 'string', default: '2000' }, only: { type: 'string' } },
});
const RECORDS = Number(args.records);
const CHATS = Number(args.chats);
const ACCOUNT = 'acct_00000000000000000000000000000b01';
const T0 = Date.parse('2026-06-01T08:00:00Z');

// The comparison: the same processor with the ledger kept in this process's memory (what
// dedupe cost before it was durable, minus the window) instead of the store.
const durable = { fetch: ChatLedger.prototype.fetch, resolve: ChatLedger.prototype.resolve, writes: ChatLedger.prototype.writes };
const inMemory = new Map<string, KnownId>();
function useLedger(kind: 'durable' | 'memory'): void {
  if (kind === 'durable') {
    ChatLedger.prototype.fetch = durable.fetch;
    ChatLedger.prototype.resolve = durable.resolve;
    ChatLedger.prototype.writes = durable.writes;
    return;
  }
  // The "read" hands the wanted ids over as documents; resolving looks them up in memory.
  ChatLedger.prototype.fetch = async function fetch(wanted) {
    const docs: LedgerDoc[] = [];
    for (const [chatKey, ids] of wanted) for (const id of ids) docs.push({ _id: `${chatKey}|${id}`, chatKey, partition: 0, offset: 0, unattributed: false });
    return docs;
  };
  ChatLedger.prototype.resolve = function resolve(docs) {
    const found = new Map<string, KnownId>();
    for (const d of docs) {
      const v = inMemory.get(d._id);
      if (v) found.set(d._id, v);
    }
    return new BatchLedger(found);
  };
  ChatLedger.prototype.writes = function writes(batch: BatchLedger) {
    for (const op of batch.ops()) if ('insertOne' in op) inMemory.set(op.insertOne.document._id, { unattributed: false, bare: false });
    return { collection: 'chat_ledger', ops: [] };
  };
}

async function runOnce(name: string, env: Record<string, string>, ledger: 'durable' | 'memory'): Promise<void> {
  useLedger(ledger);
  const config = loadConfig({ ...env, LOG_LEVEL: 'silent', TOPIC_PREFIX: `bench${Date.now()}.` });
  const logger = createLogger('silent');
  const log = createLog(config, logger);
  const store = await createStore(config);
  const topo = topology(config.topicPrefix);
  await log.createTopics([{ name: topo.inbound, partitions: 12 }, { name: topo.sessionEvents, partitions: 12 }]);
  const unique = Math.floor(RECORDS / 2);
  const records = Array.from({ length: unique }, (_, i) => {
    const chat = i % CHATS;
    const at = T0 + Math.floor(i / CHATS) * 60_000 + (chat % 60) * 1000;
    const fan = Math.floor(i / CHATS) % 2 === 0;
    const body = messageWebhook({ accountId: ACCOUNT, fanId: String(9_000_000 + chat), messageId: String(5_000_000_000 + i), createdAt: new Date(at).toISOString(), text: fan ? 'hi' : 'hello', direction: fan ? 'received' : 'sent' });
    return webhookRecord(body, `evt_b_${i}`);
  });
  // Every record again, later in the log: redeliveries the ledger must recognise.
  const all = [...records, ...records];
  for (let i = 0; i < all.length; i += 5_000) await log.append(topo.inbound, all.slice(i, i + 5_000));

  const { seconds, counters: c } = await drainProcessor(log, store, topo, logger, all.length);
  console.log(`${name}, ledger ${ledger}: ${all.length.toLocaleString('en')} inbound records (${unique.toLocaleString('en')} unique, ${CHATS.toLocaleString('en')} chats) in ${seconds.toFixed(1)} s = ${Math.round(all.length / seconds).toLocaleString('en')} records/s; applied ${c.recordsApplied}, duplicates ${c.recordsDuplicate}, events ${c.eventsEmitted}`);
  await log.close();
  await store.close();
}

console.log(`processor benchmark: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}`);
await onDeployments(args.only, async (name, env) => {
  await runOnce(name, env, 'memory');
  await runOnce(name, env, 'durable');
});
