// Consumer groups on Kafka: batches handed over per partition, offsets committed only after a
// batch's handler succeeds, and a consumer that kafkajs gave up on started again.
import type { Consumer as KConsumer, IHeaders, Kafka } from 'kafkajs';
import type { ConsumeOptions, Consumer, LogRecord } from '../log.js';
import type { Logger } from '../../../support/logger.js';

/** A batch handler's failure, marked retriable so kafkajs keeps retrying instead of stopping. */
class BatchFailed extends Error {
  readonly retriable = true;
  // Not `cause`: kafkajs judges a crash by the innermost cause, which would undo the marking.
  constructor(readonly reason: unknown) {
    super(reason instanceof Error ? reason.message : String(reason));
    this.name = 'BatchFailed';
  }
}

function headersToStrings(headers: IHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!headers) return out;
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) continue;
    const first = Array.isArray(v) ? v[0] : v;
    if (first !== undefined) out[k] = first.toString();
  }
  return out;
}

export interface KafkaConsumeSettings {
  readonly logger?: Logger;
  /** How soon the group notices a consumer that died without leaving. */
  readonly sessionTimeoutMs: number;
  /** Every kafkajs consumer running, so the log can disconnect them all on close. */
  readonly running: Set<KConsumer>;
}

export async function consumeKafka(kafka: Kafka, options: ConsumeOptions, settings: KafkaConsumeSettings): Promise<Consumer> {
  const { logger, running } = settings;
  const timeout = settings.sessionTimeoutMs;
  let stopped = false;
  let current: KConsumer | undefined;
  let restartTimer: NodeJS.Timeout | undefined;

  // A restart can fail too (the broker may still be down): keep trying, backing off, until
  // it works or the consumer is stopped. Giving up here once left a pipeline dead for good.
  const relaunch = (delayMs: number): void => {
    clearTimeout(restartTimer);
    restartTimer = setTimeout(() => {
      if (stopped) return;
      launch().catch((err: unknown) => {
        const next = Math.min(30_000, delayMs * 2);
        logger?.error({ err, groupId: options.groupId, retryInMs: next }, 'consumer restart failed; trying again');
        if (current) {
          running.delete(current);
          void current.disconnect().catch(() => undefined);
        }
        relaunch(next);
      });
    }, delayMs);
  };

  const launch = async (): Promise<void> => {
    const consumer = kafka.consumer({
      groupId: options.groupId,
      allowAutoTopicCreation: false,
      sessionTimeout: timeout,
      // A rebalance waits this long for members to rejoin; a member that died never will.
      rebalanceTimeout: 2 * timeout,
      heartbeatInterval: Math.max(500, Math.floor(timeout / 10)),
      maxWaitTimeInMs: 100,
      retry: { retries: 10 },
    });
    current = consumer;
    running.add(consumer);
    // kafkajs gives up for good on errors it deems non-retriable; the pipeline must not.
    consumer.on(consumer.events.CRASH, (event) => {
      if (event.payload.restart || stopped) return;
      logger?.error({ err: event.payload.error, groupId: options.groupId }, 'consumer crashed; starting it again');
      running.delete(consumer);
      relaunch(1000);
    });
    await consumer.connect();
    for (const topic of options.topics) {
      await consumer.subscribe({ topic, fromBeginning: options.fromBeginning ?? true });
    }
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: 4,
      eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
        if (!isRunning() || isStale() || batch.messages.length === 0) return;
        const records: LogRecord[] = batch.messages.map((m) => ({
          topic: batch.topic,
          partition: batch.partition,
          offset: Number(m.offset),
          key: m.key?.toString() ?? '',
          value: m.value ?? Buffer.alloc(0),
          headers: headersToStrings(m.headers),
          timestamp: Number(m.timestamp),
        }));
        const slice = { topic: batch.topic, partition: batch.partition, records, owned: () => isRunning() && !isStale() };
        try {
          await options.onBatch(slice);
        } catch (err) {
          options.onError?.(err, slice);
          // Retriable by construction: kafkajs re-fetches from the last committed offset after a backoff.
          throw new BatchFailed(err);
        }
        const last = records[records.length - 1];
        if (!last) return;
        resolveOffset(String(last.offset));
        await consumer.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: String(last.offset + 1) }]);
        await heartbeat();
      },
    });
  };

  await launch();
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(restartTimer);
      if (current) {
        running.delete(current);
        await current.disconnect();
      }
    },
  };
}
