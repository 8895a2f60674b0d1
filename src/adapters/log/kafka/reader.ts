// Records read at positions on Kafka: an admin's retry of a set-aside record (one), and the
// processor re-deriving chats whose stored state the store lost (a range). kafkajs reads only
// through a consumer, so this is a short-lived one: a throwaway group (never committed, and
// deleted afterwards), the partition sought to the range's start, messages taken until the
// range's end, and everything disconnected. Bounded by a deadline that restarts whenever a
// fetch brings records of the range, so a long range is not cut off while it progresses. Rare
// and slow (a group join): never the pipeline's steady path.
import { randomUUID } from 'node:crypto';
import type { Kafka, KafkaMessage } from 'kafkajs';
import { LogReadTimeoutError, type LogRecord, type RangeRead } from '../log.js';
import type { KafkaAdmin } from './admin.js';

export const READ_RECORD_TIMEOUT_MS = 15_000;

function toRecord(topic: string, partition: number, m: KafkaMessage): LogRecord {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(m.headers ?? {})) {
    const first = Array.isArray(v) ? v[0] : v;
    if (first !== undefined) headers[k] = first.toString();
  }
  return { topic, partition, offset: Number(m.offset), key: m.key?.toString() ?? '', value: m.value ?? Buffer.alloc(0), headers, timestamp: Number(m.timestamp) };
}

/**
 * The records the partition holds in `[from, to)`, in offset order. Offsets it no longer holds
 * (retention, deleteRecords, compaction, transaction markers) are absent from the answer.
 */
export async function readKafkaRange(
  kafka: Kafka, admin: KafkaAdmin, topic: string, partition: number, from: number, to: number,
  keep: (r: LogRecord) => boolean = () => true, timeoutMs = READ_RECORD_TIMEOUT_MS,
): Promise<RangeRead> {
  const out: LogRecord[] = [];
  let held = 0;
  const count = await admin.partitionCount(topic);
  if (!Number.isInteger(partition) || partition < 0 || partition >= count || !Number.isSafeInteger(from) || !Number.isSafeInteger(to) || from < 0) return { records: out, held };
  const range = await admin.partitionRange(topic, partition);
  if (!range) return { records: out, held };
  const start = Math.max(from, range.low);
  const end = Math.min(to, range.high);
  if (start >= end) return { records: out, held };

  const groupId = `convops-read-${randomUUID()}`;
  const consumer = kafka.consumer({ groupId, allowAutoTopicCreation: false, maxWaitTimeInMs: 250, retry: { retries: 3 } });
  let timer: NodeJS.Timeout | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      let next = start;
      const arm = (): void => {
        clearTimeout(timer);
        timer = setTimeout(() => reject(new LogReadTimeoutError(topic, partition, next, timeoutMs)), timeoutMs);
      };
      arm();
      const run = async (): Promise<void> => {
        await consumer.connect();
        // From the beginning, not the end: every fetch then starts at or before the next offset
        // wanted (at the log's start before the seek lands, at the range's start after), so an
        // offset a fetch skips is gone, and one at or past the end means the range is read.
        await consumer.subscribe({ topic, fromBeginning: true });
        await consumer.run({
          autoCommit: false,
          eachBatch: async ({ batch }) => {
            if (batch.topic !== topic || batch.partition !== partition) return;
            if (batch.isEmpty()) return;
            let took = false;
            for (const m of batch.messages) {
              const o = Number(m.offset);
              if (o < next) continue;
              if (o >= end) {
                next = end;
                break;
              }
              const r = toRecord(topic, partition, m);
              held++;
              if (keep(r)) out.push(r);
              next = o + 1;
              took = true;
            }
            if (took) arm();
            if (next >= end || Number(batch.highWatermark) <= next) resolve();
          },
        });
        // Applied once the partitions are assigned to this (only) member. The others are not read
        // (from the beginning, they would be the whole topic).
        const others = Array.from({ length: count }, (_, p) => p).filter((p) => p !== partition);
        if (others.length > 0) consumer.pause([{ topic, partitions: others }]);
        consumer.seek({ topic, partition, offset: String(start) });
      };
      run().catch(reject);
    });
    return { records: out, held };
  } finally {
    clearTimeout(timer);
    await consumer.disconnect().catch(() => undefined);
    await admin.deleteGroups([groupId]);
  }
}

/** The one record at a position, or null when the partition does not hold it. */
export async function readKafkaRecord(
  kafka: Kafka, admin: KafkaAdmin, topic: string, partition: number, offset: number, timeoutMs = READ_RECORD_TIMEOUT_MS,
): Promise<LogRecord | null> {
  if (!Number.isSafeInteger(offset) || offset < 0) return null;
  const [r] = (await readKafkaRange(kafka, admin, topic, partition, offset, offset + 1, undefined, timeoutMs)).records;
  return r?.offset === offset ? r : null;
}
