// Appends on Kafka: one lazily connected producer, acks=all, requests kept under the broker's
// size limit, and each record's offset worked out from the per-partition base offsets.
import { randomBytes } from 'node:crypto';
import { CompressionTypes, type ICustomPartitioner, type Kafka, type Producer } from 'kafkajs';
import type { AppendRecord, AppendResult } from '../log.js';
import { murmur2, toPositive } from '../murmur2.js';
import { partitionForKey } from '../partitioner.js';

const MAX_REQUEST_BYTES = 512 * 1024;

/**
 * kafkajs 2.2.4's DefaultPartitioner, step for step, with our murmur2 in place of its own,
 * whose time is quadratic in the key's length. Kept even though `append` names every record's
 * partition, so that nothing sent through this producer can reach kafkajs's hash.
 */
export const javaCompatiblePartitioner: ICustomPartitioner = () => {
  // Round-robin for keyless records starts at a random place per topic, as kafkajs's does, so
  // that many producers do not all start on partition 0.
  const counters = new Map<string, number>();
  return ({ topic, partitionMetadata, message }) => {
    if (!counters.has(topic)) counters.set(topic, randomBytes(4).readUInt32BE(0));
    if (message.partition !== null && message.partition !== undefined) return message.partition;
    // The key as kafkajs hashes it: a Buffer's own bytes, anything else as its UTF-8 string.
    if (message.key !== null && message.key !== undefined) {
      const bytes = Buffer.isBuffer(message.key) ? message.key : Buffer.from(String(message.key));
      return toPositive(murmur2(bytes)) % partitionMetadata.length;
    }
    const counter = counters.get(topic)! + 1;
    counters.set(topic, counter);
    // Keyless: only partitions with a leader, unless none has one.
    const available = partitionMetadata.filter((p) => p.leader >= 0);
    if (available.length > 0) return available[toPositive(counter) % available.length]!.partitionId;
    return toPositive(counter) % partitionMetadata.length;
  };
};

function sizeOf(r: AppendRecord): number {
  let n = Buffer.byteLength(r.key) + (typeof r.value === 'string' ? Buffer.byteLength(r.value) : r.value.length) + 64;
  for (const [k, v] of Object.entries(r.headers ?? {})) n += Buffer.byteLength(k) + Buffer.byteLength(v) + 8;
  return n;
}

/** Splits records, in order, into runs of at most `limit` bytes (a larger record goes alone). */
function chunksBySize(records: readonly AppendRecord[], limit: number): AppendRecord[][] {
  const chunks: AppendRecord[][] = [];
  let current: AppendRecord[] = [];
  let bytes = 0;
  for (const r of records) {
    const size = sizeOf(r);
    if (current.length > 0 && bytes + size > limit) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(r);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

export class KafkaAppender {
  private producer?: Producer;
  private connecting?: Promise<Producer>;

  constructor(private readonly kafka: Kafka, private readonly compress = false) {}

  private connected(): Promise<Producer> {
    if (this.producer) return Promise.resolve(this.producer);
    this.connecting ??= (async () => {
      const producer = this.kafka.producer({
        createPartitioner: javaCompatiblePartitioner,
        allowAutoTopicCreation: false,
        // Not the kafkajs idempotent producer (experimental in 2.2.4): a retried send may
        // duplicate a record, which the session machine drops as a duplicate (by its message
        // or payment id, or for other records its idempotency key: the copy is the same bytes).
      });
      await producer.connect();
      this.producer = producer;
      return producer;
    })().catch((err: unknown) => {
      this.connecting = undefined;
      throw err;
    });
    return this.connecting;
  }

  /** `partitions`: the topic's partition count, for records without a partition of their own. */
  async append(topic: string, partitions: number, records: readonly AppendRecord[]): Promise<AppendResult[]> {
    if (records.length === 0) return [];
    const producer = await this.connected();
    const results: AppendResult[] = [];
    // The broker refuses a produce request over message.max.bytes (1 MiB by default), so large
    // appends go out as several requests, in order.
    for (const chunk of chunksBySize(records, MAX_REQUEST_BYTES)) {
      const targets = chunk.map((r) => r.partition ?? partitionForKey(r.key, partitions));
      const metadata = await producer.send({
        topic,
        acks: -1,
        ...(this.compress ? { compression: CompressionTypes.GZIP } : {}),
        messages: chunk.map((r, i) => ({
          key: r.key,
          value: r.value,
          partition: targets[i],
          headers: r.headers ? { ...r.headers } : undefined,
          timestamp: r.timestamp !== undefined ? String(r.timestamp) : undefined,
        })),
      });
      // One send yields one base offset per partition; records of a partition are consecutive in input order.
      const next = new Map<number, number>();
      for (const m of metadata) next.set(m.partition, Number(m.baseOffset ?? m.offset ?? 0));
      for (const partition of targets) {
        const offset = next.get(partition) ?? 0;
        next.set(partition, offset + 1);
        results.push({ partition, offset });
      }
    }
    return results;
  }

  async close(): Promise<void> {
    await this.producer?.disconnect().catch(() => undefined);
    this.producer = undefined;
    this.connecting = undefined;
  }
}
