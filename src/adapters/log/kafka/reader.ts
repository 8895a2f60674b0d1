// One record read at a position on Kafka (an admin's retry of a set-aside record). kafkajs reads
// only through a consumer, so this is a short-lived one: a throwaway group (never committed, and
// deleted afterwards), the partition sought to the offset, the first message at or past it
// taken, and everything disconnected, within a deadline. Rare and slow (a group join): admin
// work only, never the pipeline's path.
import { randomUUID } from 'node:crypto';
import type { Kafka } from 'kafkajs';
import { LogReadTimeoutError, type LogRecord } from '../log.js';
import type { KafkaAdmin } from './admin.js';

export const READ_RECORD_TIMEOUT_MS = 15_000;

export async function readKafkaRecord(
  kafka: Kafka, admin: KafkaAdmin, topic: string, partition: number, offset: number, timeoutMs = READ_RECORD_TIMEOUT_MS,
): Promise<LogRecord | null> {
  const count = await admin.partitionCount(topic);
  if (!Number.isInteger(partition) || partition < 0 || partition >= count || !Number.isSafeInteger(offset) || offset < 0) return null;
  // Retention (or deleteRecords) removed it, or it was never written.
  const range = await admin.partitionRange(topic, partition);
  if (!range || offset < range.low || offset >= range.high) return null;

  const groupId = `convops-read-${randomUUID()}`;
  const consumer = kafka.consumer({ groupId, allowAutoTopicCreation: false, maxWaitTimeInMs: 250, retry: { retries: 3 } });
  let timer: NodeJS.Timeout | undefined;
  try {
    const found = new Promise<LogRecord | null>((resolve, reject) => {
      timer = setTimeout(() => reject(new LogReadTimeoutError(topic, partition, offset, timeoutMs)), timeoutMs);
      const run = async (): Promise<void> => {
        await consumer.connect();
        await consumer.subscribe({ topic, fromBeginning: false });
        await consumer.run({
          autoCommit: false,
          eachBatch: async ({ batch }) => {
            if (batch.topic !== topic || batch.partition !== partition) return;
            const m = batch.messages.find((x) => Number(x.offset) >= offset);
            if (!m) return;
            if (Number(m.offset) !== offset) {
              // Skipped over in a fetch that began at or before it: gone (compacted, or a
              // transaction marker). A fetch that began after it has not seen the seek yet: wait.
              if (batch.messages.some((x) => Number(x.offset) < offset)) resolve(null);
              return;
            }
            const headers: Record<string, string> = {};
            for (const [k, v] of Object.entries(m.headers ?? {})) {
              const first = Array.isArray(v) ? v[0] : v;
              if (first !== undefined) headers[k] = first.toString();
            }
            resolve({ topic, partition, offset, key: m.key?.toString() ?? '', value: m.value ?? Buffer.alloc(0), headers, timestamp: Number(m.timestamp) });
          },
        });
        // Applied once the partition is assigned to this (only) member.
        consumer.seek({ topic, partition, offset: String(offset) });
      };
      run().catch(reject);
    });
    return await found;
  } finally {
    clearTimeout(timer);
    await consumer.disconnect().catch(() => undefined);
    await admin.deleteGroups([groupId]);
  }
}
