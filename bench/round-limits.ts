// How large a consumer round should be (KAFKA_ROUND_MAX_RECORDS, KAFKA_ROUND_MAX_MS): the
// session processor catching up a backlog of `inbound` on Kafka + mongo-java-server, with rounds
// capped at each size in turn (the last one: no cap, what a fetch returns, the old behaviour).
// Prints records/s and the rounds' times (p50, max): the cap is the smallest one that keeps the
// throughput, and the time limit what such a round takes with room to spare.
//   node --import tsx bench/round-limits.ts [--records 40000] [--chats 2000] [--sizes 250,500,1000,2000,5000,1000000]
import { parseArgs } from 'node:util';
import { cpus, totalmem } from 'node:os';
import { createLog, createStore } from '../src/adapters/index.js';
import type { ConsumeRoundsOptions } from '../src/adapters/log/log.js';
import { loadConfig } from '../src/config.js';
import { webhookRecord } from './webhook-records.js';
import { messageWebhook } from '../src/demo/platform-bodies.js';
import { createLogger } from '../src/support/logger.js';
import { topology } from '../src/topology.js';
import { onDeployments } from './deployments.js';
import { drainProcessor } from './drain-processor.js';

const { values: args } = parseArgs({
  options: { records: { type: 'string', default: '40000' }, chats: { type: 'string', default: '2000' }, sizes: { type: 'string', default: '250,500,1000,2000,5000,1000000' } },
});
const RECORDS = Number(args.records);
const CHATS = Number(args.chats);
const ACCOUNT = 'acct_00000000000000000000000000000b02';
const T0 = Date.parse('2026-06-01T08:00:00Z');

async function runOnce(env: Record<string, string>, maxRecords: number): Promise<void> {
  // Time limit out of the way (150 s, session 300 s): only the record cap shapes the rounds.
  const config = loadConfig({ ...env, LOG_LEVEL: 'silent', TOPIC_PREFIX: `rounds${Date.now()}.`, KAFKA_SESSION_TIMEOUT_MS: '300000', KAFKA_ROUND_MAX_MS: '150000', KAFKA_ROUND_MAX_RECORDS: String(maxRecords) });
  const logger = createLogger('silent');
  const log = createLog(config, logger);
  const times: number[] = [];
  const sizes: number[] = [];
  const consumeRounds = log.consumeRounds.bind(log);
  log.consumeRounds = (options: ConsumeRoundsOptions) => consumeRounds({
    ...options,
    onRound: async (batches) => {
      const t = performance.now();
      await options.onRound(batches);
      times.push(performance.now() - t);
      sizes.push(batches.reduce((n, b) => n + b.records.length, 0));
    },
  });
  const store = await createStore(config);
  const topo = topology(config.topicPrefix);
  await log.createTopics([{ name: topo.inbound, partitions: 12 }, { name: topo.sessionEvents, partitions: 12 }]);
  const records = Array.from({ length: RECORDS }, (_, i) => {
    const chat = i % CHATS;
    const at = T0 + Math.floor(i / CHATS) * 60_000 + (chat % 60) * 1000;
    const fan = Math.floor(i / CHATS) % 2 === 0;
    const body = messageWebhook({ accountId: ACCOUNT, fanId: String(9_000_000 + chat), messageId: String(5_000_000_000 + i), createdAt: new Date(at).toISOString(), text: fan ? 'hi' : 'hello', direction: fan ? 'received' : 'sent' });
    return webhookRecord(body, `evt_r_${i}`);
  });
  for (let i = 0; i < records.length; i += 5_000) await log.append(topo.inbound, records.slice(i, i + 5_000));
  const { seconds } = await drainProcessor(log, store, topo, logger, records.length);
  const sorted = [...times].sort((a, b) => a - b);
  const q = (p: number): number => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0);
  const perRecord = times.reduce((a, b) => a + b, 0) / sizes.reduce((a, b) => a + b, 0);
  console.log(`| ${maxRecords >= 1_000_000 ? 'none (a fetch)' : maxRecords.toLocaleString('en')} | ${Math.round(records.length / seconds).toLocaleString('en')} | ${times.length} | ${Math.max(...sizes).toLocaleString('en')} | ${q(0.5)} | ${Math.round(Math.max(...times))} | ${perRecord.toFixed(2)} |`);
  await log.close();
  await store.close();
}

console.log(`round-limits benchmark: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}; ${RECORDS.toLocaleString('en')} inbound records, ${CHATS.toLocaleString('en')} chats, processor catching up on Kafka + mongo-java-server`);
console.log('| round cap (records) | records/s | rounds | largest round | round p50 ms | round max ms | ms per record |');
console.log('|---|---|---|---|---|---|---|');
await onDeployments('kafka', async (_name, env) => {
  for (const size of args.sizes.split(',').map(Number)) await runOnce(env, size);
});
