// Consumer groups on Kafka: the partitions' batches of a fetch handed over as one round (see
// rounds.ts), the round's offsets committed in one request only after its handler succeeds,
// and a consumer that kafkajs gave up on started again.
import type { Consumer as KConsumer, IHeaders, Kafka } from 'kafkajs';
import type { ConsumeRoundsOptions, Consumer, LogRecord, RecordBatch } from '../log.js';
import { RoundGate } from './rounds.js';
import type { Logger } from '../../../support/logger.js';
import type { KafkaTuning } from './tuning.js';

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
  readonly tuning: KafkaTuning;
}

export async function consumeKafka(kafka: Kafka, options: ConsumeRoundsOptions, settings: KafkaConsumeSettings): Promise<Consumer> {
  const { logger, running, tuning } = settings;
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
      maxWaitTimeInMs: tuning.fetchWaitMs,
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
    // One round: the handler, then every batch's next offset in one OffsetCommit request.
    const gate = new RoundGate(async (batches) => {
      try {
        await options.onRound(batches);
      } catch (err) {
        options.onError?.(err, batches);
        throw err;
      }
      const owned = batches.filter((b) => b.owned?.() ?? true);
      if (owned.length === 0) return;
      await consumer.commitOffsets(owned.map((b) => ({
        topic: b.topic, partition: b.partition, offset: String((b.records[b.records.length - 1]?.offset ?? -1) + 1),
      })));
    });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      // One worker per partition, so every batch of a fetch starts at once and joins one round.
      partitionsConsumedConcurrently: tuning.partitionWorkers,
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
        const slice: RecordBatch = { topic: batch.topic, partition: batch.partition, records, owned: () => isRunning() && !isStale() };
        try {
          await gate.submit(slice);
        } catch (err) {
          // A round fails as a whole, so no commit of another partition tells kafkajs that the
          // group moved on without this member (a write refused as stale usually means it
          // did). A heartbeat asks: if the group is rebalancing or has dropped this member,
          // its error makes kafkajs rejoin now instead of after another fetch and round.
          await heartbeat();
          // Retriable by construction: kafkajs re-fetches from the last committed offset after a backoff.
          throw new BatchFailed(err);
        }
        const last = records[records.length - 1];
        if (last) resolveOffset(String(last.offset));
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
