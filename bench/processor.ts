// Session processor throughput over a backlog of `inbound` (re-deriving, or catching up after
// an outage), and what the durable dedupe ledger costs in it: the time spent in its one read
// and one write per batch, as a share of the whole. Half the backlog is redelivered
// (duplicates by key), as platform retries and a second backfill would make it.
//   node --import tsx bench/processor.ts [--records 100000] [--chats 2000] [--only embedded|kafka]
import { parseArgs } from 'node:util';
import { cpus, totalmem } from 'node:os';
import { createLog, createStore } from '../src/adapters/index.js';
import { loadConfig } from '../src/config.js';
import { messageWebhook } from '../src/demo/platform-bodies.js';
import { inboundRecord } from '../src/domain/inbound-record.js';
import { ChatLedger } from '../src/processor/chat-ledger.js';
import { SessionProcessor } from '../src/processor/session-processor.js';
import { createLogger } from '../src/support/logger.js';
import { topology } from '../src/topology.js';
import { onDeployments } from './deployments.js';

const { values: args } = parseArgs({
  options: { records: { type: 'string', default: '100000' }, chats: { type: 'string', default: '2000' }, only: { type: 'string' } },
});
const RECORDS = Number(args.records);
const CHATS = Number(args.chats);
const ACCOUNT = 'acct_00000000000000000000000000000b01';
const T0 = Date.parse('2026-06-01T08:00:00Z');

// Time spent in the ledger, measured around its two calls.
let ledgerMs = 0;
for (const name of ['lookup', 'write'] as const) {
  const original = ChatLedger.prototype[name] as (...a: unknown[]) => Promise<unknown>;
  (ChatLedger.prototype as unknown as Record<string, unknown>)[name] = async function timed(this: ChatLedger, ...a: unknown[]) {
    const t = performance.now();
    try {
      return await original.apply(this, a);
    } finally {
      ledgerMs += performance.now() - t;
    }
  };
}

async function runDeployment(name: string, env: Record<string, string>): Promise<void> {
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
    return inboundRecord({ source: 'webhook', event: fan ? 'messages.received' : 'messages.sent', accountId: ACCOUNT, chatId: String(9_000_000 + chat), dedupeKey: `evt_b_${i}`, receivedAt: Date.now() }, Buffer.from(body));
  });
  // Every record again, later in the log: redeliveries the ledger must recognise.
  const all = [...records, ...records];
  for (let i = 0; i < all.length; i += 5_000) await log.append(topo.inbound, all.slice(i, i + 5_000));

  ledgerMs = 0;
  const processor = new SessionProcessor({ log, store, topology: topo, idleMs: 1_800_000, lateMs: 120_000, logger });
  const started = performance.now();
  await processor.start();
  while (processor.counters.recordsApplied + processor.counters.recordsDuplicate + processor.counters.recordsSkippedAsApplied < all.length) {
    await new Promise((r) => setTimeout(r, 50));
  }
  const seconds = (performance.now() - started) / 1000;
  await processor.stop();
  const c = processor.counters;
  console.log(`${name}: ${all.length.toLocaleString('en')} inbound records (${unique.toLocaleString('en')} unique, ${CHATS.toLocaleString('en')} chats) in ${seconds.toFixed(1)} s = ${Math.round(all.length / seconds).toLocaleString('en')} records/s; applied ${c.recordsApplied}, duplicates ${c.recordsDuplicate}, events ${c.eventsEmitted}; ledger read+write ${(ledgerMs / 1000).toFixed(1)} s = ${Math.round((ledgerMs / 1000 / seconds) * 100)}% of the time`);
  await log.close();
  await store.close();
}

console.log(`processor benchmark: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}`);
await onDeployments(args.only, runDeployment);
