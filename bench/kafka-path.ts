// The pipeline's Kafka share on its own: two stages shaped like the processor and the
// projector (a round of every partition's batch, one append of the round's records, one offset
// commit), with no store behind them, fed at a fixed rate by appends shaped like the webhook
// route's. It prints, per variant of the adapter's tuning (kafka/tuning.ts), the append's
// time to ack (acks=all) and the time from append to the second stage's round, so the settings
// can be chosen by number and the Kafka floor under an end-to-end figure is known.
//   node --import tsx bench/kafka-path.ts [--seconds 10] [--rate 1000] [--round-ms 0]
//        [--brokers host:port] (else a broker is started as the tests start one)
// --round-ms makes each round of the first stage take that long, as a store write would.
import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { KafkaLog } from '../src/adapters/log/kafka-log.js';
import type { AppendRecord, Consumer, RecordBatch } from '../src/adapters/log/log.js';
import { DEFAULT_KAFKA_TUNING, type KafkaTuning } from '../src/adapters/log/kafka/tuning.js';
import { startKafka } from '../test/infra/servers.js';
import { cpuSpan } from './cpu-share.js';

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    rate: { type: 'string', default: '1000' },
    'round-ms': { type: 'string', default: '0' },
    brokers: { type: 'string' },
  },
});
const SECONDS = Number(args.seconds);
const RATE = Number(args.rate);
const ROUND_MS = Number(args['round-ms']);
for (const [name, v] of [['--seconds', SECONDS], ['--rate', RATE], ['--round-ms', ROUND_MS]] as const) {
  if (!Number.isFinite(v) || v < 0) throw new Error(`${name} must be a non-negative number`);
}
const PARTITIONS = 12;
const CHATS = 1000;
const BODY = JSON.stringify({ event: 'messages.received', payload: { text: 'hello there, how are you today?', padding: 'x'.repeat(300) } });

const now = (): number => performance.timeOrigin + performance.now();
const pct = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const f1 = (n: number): string => (Number.isFinite(n) ? n.toFixed(1) : '-');

interface Variant { readonly name: string; readonly tuning: Partial<KafkaTuning> }
const VARIANTS: Variant[] = [
  { name: 'defaults', tuning: {} },
  { name: 'partitionWorkers 4 (kafkajs suggests)', tuning: { partitionWorkers: 4 } },
  { name: 'fetchWaitMs 10', tuning: { fetchWaitMs: 10 } },
  { name: 'fetchWaitMs 500 (kafkajs default 5000)', tuning: { fetchWaitMs: 500 } },
  { name: 'compress (gzip)', tuning: { compress: true } },
];

interface Stats { rounds1: number; records1: number; rounds2: number; latencies: number[]; acks: number[] }

async function runVariant(brokers: string[], brokerPid: number | undefined, v: Variant, n: number): Promise<void> {
  const log = new KafkaLog({ brokers, tuning: v.tuning });
  const inbound = `kp${n}.inbound`;
  const events = `kp${n}.events`;
  await log.createTopics([{ name: inbound, partitions: PARTITIONS }, { name: events, partitions: PARTITIONS }]);
  const stats: Stats = { rounds1: 0, records1: 0, rounds2: 0, latencies: [], acks: [] };
  let measuring = false;
  let measureFrom = Infinity;
  let lastSeen = 0;
  const consumers: Consumer[] = [];
  // Stage 1, the processor's shape: the round's records appended to the next topic in one send.
  consumers.push(await log.consumeRounds({
    groupId: `kp${n}.first`, topics: [inbound], fromBeginning: true,
    onRound: async (batches: readonly RecordBatch[]) => {
      const out: AppendRecord[] = [];
      for (const b of batches) for (const r of b.records) out.push({ key: r.key, value: r.value, headers: r.headers });
      if (ROUND_MS > 0) await new Promise((r) => setTimeout(r, ROUND_MS));
      await log.append(events, out);
      stats.rounds1++;
      stats.records1 += out.length;
    },
  }));
  // Stage 2, the projector's shape: the time from the first append to here.
  consumers.push(await log.consumeRounds({
    groupId: `kp${n}.second`, topics: [events], fromBeginning: true,
    onRound: async (batches: readonly RecordBatch[]) => {
      const at = now();
      stats.rounds2++;
      for (const b of batches) {
        for (const r of b.records) {
          const sent = Number(r.headers.sent);
          if (measuring && sent >= measureFrom) stats.latencies.push(at - sent);
          lastSeen = Math.max(lastSeen, at);
        }
      }
      return Promise.resolve();
    },
  }));
  // Webhooks arriving at the rate: each millisecond's records go out as one send, as the route's appender would batch them.
  const load = async (seconds: number): Promise<number> => {
    const total = Math.round(seconds * RATE);
    const start = now();
    const pending: Promise<void>[] = [];
    let sent = 0;
    while (sent < total) {
      const due = Math.min(total, Math.floor(((now() - start) * RATE) / 1000) + 1);
      const recs: AppendRecord[] = [];
      for (; sent < due; sent++) {
        const chat = (sent * 7919) % CHATS;
        recs.push({ key: `acct_1:chat_${chat}`, value: BODY, headers: { sent: String(now()) } });
      }
      if (recs.length > 0) {
        const t0 = now();
        pending.push(log.append(inbound, recs).then(() => {
          if (measuring) for (let i = 0; i < recs.length; i++) stats.acks.push(now() - t0);
        }));
      }
      await new Promise((r) => setTimeout(r, 1));
    }
    await Promise.all(pending);
    return sent;
  };
  await load(2);
  await new Promise((r) => setTimeout(r, 1000));
  stats.rounds1 = stats.records1 = stats.rounds2 = 0;
  const cpu = cpuSpan({ 'this process (load + stages)': process.pid, broker: brokerPid }, cpus().length);
  measuring = true;
  measureFrom = now();
  const sent = await load(SECONDS);
  const lastSent = now();
  const deadline = Date.now() + 30_000;
  while (stats.latencies.length < sent && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const cpuUse = cpu.stop();
  for (const c of consumers) await c.stop();
  await log.close();
  const lat = stats.latencies.sort((a, b) => a - b);
  const acks = stats.acks.sort((a, b) => a - b);
  console.log(`${v.name.padEnd(40)} append→second stage p50 ${f1(pct(lat, 50))} ms, p99 ${f1(pct(lat, 99))} ms (${lat.length}/${sent}); ack p50 ${f1(pct(acks, 50))} ms, p99 ${f1(pct(acks, 99))} ms; first-stage rounds ${stats.rounds1} of ${f1(stats.records1 / Math.max(1, stats.rounds1))} records; drained ${f1(Math.max(0, lastSeen - lastSent))} ms after the last send`);
  console.log(`${''.padEnd(40)} CPU (cores): ${cpuUse}`);
}

console.log(`kafka path benchmark: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}; ${RATE} records/s for ${SECONDS} s per variant, ${PARTITIONS} partitions, first-stage round work ${ROUND_MS} ms; defaults ${JSON.stringify(DEFAULT_KAFKA_TUNING)}`);
const server = args.brokers ? null : await startKafka();
try {
  const brokers = (args.brokers ?? server?.url ?? '').split(',');
  let n = Date.now() % 100_000;
  for (const v of VARIANTS) await runVariant(brokers, server?.pid, v, n++);
} finally {
  await server?.stop();
}
