// Consumer groups on Kafka: the partitions' batches of a fetch handed over as rounds bounded by
// records and time (see rounds.ts), each round's offsets committed in one request only after
// its handler succeeds, heartbeats while rounds run so a long catch-up keeps the member in its
// group, and a consumer that kafkajs gave up on started again.
import type { Consumer as KConsumer, IHeaders, Kafka } from 'kafkajs';
import type { ConsumeRoundsOptions, Consumer, LogRecord, RecordBatch } from '../log.js';
import { cutRound, RoundGate, RoundPacer, type RoundLimits, type RoundsOutcome } from './rounds.js';
import { GroupWatch, Positions } from './group-watch.js';
import { leavePredecessors } from './predecessor.js';
import type { Logger } from '../../../support/logger.js';
import type { KafkaTuning } from './tuning.js';

/** A round still running after this long is taken for hung: its heartbeats stop. */
export const HUNG_ROUND_MS = 10 * 60_000;

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
  /** A client id that is this worker's alone: members left in the group under it (a killed run's) are removed before joining (./predecessor.ts). */
  readonly predecessorsOf?: string;
  /** Every kafkajs consumer running, so the log can disconnect them all on close. */
  readonly running: Set<KConsumer>;
  readonly tuning: KafkaTuning;
  /** How large and how long one round may be (KAFKA_ROUND_MAX_RECORDS, KAFKA_ROUND_MAX_MS). */
  readonly rounds: RoundLimits;
}

export async function consumeKafka(kafka: Kafka, options: ConsumeRoundsOptions, settings: KafkaConsumeSettings): Promise<Consumer> {
  const { logger, running, tuning } = settings;
  const timeout = settings.sessionTimeoutMs;
  const heartbeatInterval = Math.max(500, Math.floor(timeout / 10));
  // Kept across restarts of the kafkajs consumer: the time per record is the handler's.
  const pacer = new RoundPacer(settings.rounds);
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
      heartbeatInterval,
      maxWaitTimeInMs: tuning.fetchWaitMs,
      retry: { retries: 10 },
    });
    current = consumer;
    running.add(consumer);
    const positions = new Positions();
    const watch = new GroupWatch(consumer, options.monitor, positions);
    // kafkajs gives up for good on errors it deems non-retriable; the pipeline must not.
    consumer.on(consumer.events.CRASH, (event) => {
      if (event.payload.restart || stopped) return;
      logger?.error({ err: event.payload.error, groupId: options.groupId }, 'consumer crashed; starting it again');
      running.delete(consumer);
      relaunch(1000);
    });
    // Not fatal: without it the group waits out the old member's session, as it always did.
    if (settings.predecessorsOf !== undefined) {
      await leavePredecessors(kafka, options.groupId, settings.predecessorsOf, logger).catch((err: unknown) => logger?.warn({ err, groupId: options.groupId }, 'could not remove this worker\'s previous run from the group; waiting out its session'));
    }
    await consumer.connect();
    for (const topic of options.topics) {
      await consumer.subscribe({ topic, fromBeginning: options.fromBeginning ?? true });
    }

    // kafkajs heartbeats only between batches, and a round may take longer than the session
    // (catching up, a slow store): this one is sent on a timer while a round runs and between
    // rounds (kafkajs sends it only once heartbeatInterval has passed since the last). An error
    // means the group is rebalancing or went on without this member: the rounds stop after the
    // one under way (committed if the group still takes it) and kafkajs rejoins.
    let beat: (() => Promise<void>) | undefined;
    let consuming: () => boolean = () => true;
    let rejoin = false;
    const heartbeat = async (): Promise<void> => {
      try {
        await beat?.();
      } catch (err) {
        rejoin = true;
        watch.heard(err);
      }
    };

    // The gathered batches as rounds bounded by records and time, each handled, committed (every
    // batch's next offset in one OffsetCommit request) and followed by a heartbeat.
    // Which partition a round too small for all of them serves first (cutRound).
    let turn = 0;
    const gate = new RoundGate(async (batches): Promise<RoundsOutcome> => {
      const handled = new Map<RecordBatch, number>(batches.map((b) => [b, 0]));
      rejoin = false;
      for (;;) {
        if (!consuming() || rejoin) return { handled };
        const round = cutRound(batches.filter((b) => b.owned?.() ?? true), handled, pacer.next(), turn++);
        if (round.length === 0) return { handled };
        const started = performance.now();
        // Not for ever: a round that hangs (a store call on a half-open socket) must let the
        // group give its partitions to another member. Long enough for any real round, a
        // re-derivation reading a long range included.
        const beating = setInterval(() => {
          if (performance.now() - started > HUNG_ROUND_MS) clearInterval(beating);
          else void heartbeat();
        }, heartbeatInterval);
        try {
          await options.onRound(round);
        } catch (err) {
          options.onError?.(err, round);
          return { handled, error: err };
        } finally {
          clearInterval(beating);
        }
        pacer.observe(round.reduce((n, b) => n + b.records.length, 0), performance.now() - started);
        const owned = round.filter((b) => b.owned?.() ?? true);
        const next = (b: RecordBatch): number => (b.records[b.records.length - 1]?.offset ?? -1) + 1;
        if (owned.length > 0) {
          try {
            await consumer.commitOffsets(owned.map((b) => ({ topic: b.topic, partition: b.partition, offset: String(next(b)) })));
          } catch (err) {
            watch.heard(err);
            return { handled, error: err };
          }
          for (const b of owned) positions.committed(b.topic, b.partition, next(b));
          options.monitor?.committed(positions.waiting());
        }
        // Rounds hold copies of the batches' slices: count them against the gathered batches.
        for (const b of round) {
          const whole = batches.find((x) => x.topic === b.topic && x.partition === b.partition);
          if (whole) handled.set(whole, (handled.get(whole) ?? 0) + b.records.length);
        }
        await heartbeat();
      }
    });

    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      // One worker per partition, so every batch of a fetch starts at once and joins one round.
      partitionsConsumedConcurrently: tuning.partitionWorkers,
      eachBatch: async ({ batch, resolveOffset, heartbeat: kafkaHeartbeat, isRunning, isStale }) => {
        if (!isRunning() || isStale() || batch.messages.length === 0) return;
        beat = kafkaHeartbeat;
        consuming = isRunning;
        const records: LogRecord[] = batch.messages.map((m) => ({
          topic: batch.topic,
          partition: batch.partition,
          offset: Number(m.offset),
          key: m.key?.toString() ?? '',
          value: m.value ?? Buffer.alloc(0),
          headers: headersToStrings(m.headers),
          timestamp: Number(m.timestamp),
        }));
        positions.fetched(batch.topic, batch.partition, records[0]?.offset ?? 0, Number(batch.highWatermark));
        options.monitor?.waiting(positions.waiting());
        const slice: RecordBatch = { topic: batch.topic, partition: batch.partition, records, owned: () => isRunning() && !isStale() };
        const outcome = await gate.submit(slice);
        // What rounds handled is committed: the next fetch starts after it, whatever became of
        // the rest (a failed round, a rebalance, a stop: read again from here).
        const last = records[outcome.handled - 1];
        if (last) resolveOffset(String(last.offset));
        if (outcome.error !== undefined) {
          // A round fails as a whole, so no commit of another partition tells kafkajs that the
          // group moved on without this member (a write refused as stale usually means it
          // did). A heartbeat asks: if the group is rebalancing or has dropped this member,
          // its error makes kafkajs rejoin now instead of after another fetch and round.
          await kafkaHeartbeat();
          // Retriable by construction: kafkajs re-fetches from the last resolved offset after a backoff.
          throw new BatchFailed(outcome.error);
        }
        await kafkaHeartbeat();
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
