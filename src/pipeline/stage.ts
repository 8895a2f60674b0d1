// One shape for the pipeline's consumers (session processor, projector, intelligence): a group,
// its topics, where a new group starts, and a handler for a round of batches. The log adapters
// gather a fetch's batches over all of the group's partitions into one round and commit its
// offsets in one request (adapters/log/kafka/rounds.ts, the embedded log's loop), so each stage
// pays one set of reads, writes and appends per round, whichever log runs under it.
//
// Those loops (rounds -> handle -> commit, one round at a time) are plain async code, not RxJS:
// tried, it came out longer and hid what the loop needs. A round has three exits (nothing read:
// wait for an append; the handler threw: report, pause, same offsets again, retrying the
// handler's failure only, not the commit's; stopped: no commit), which become catchError,
// filter and defaultIfEmpty whose meaning hangs on their order. stop() must wait for the round
// under way, which unsubscribing does not (it abandons the promise), so the `active` flag and
// an awaited end stay anyway. Kafka's "batches that arrive while a round runs go into the next"
// (RoundGate) has no operator; buffer + concatMap still needs a resolver per eachBatch call.
// The embedded loop as defer/concatMap/reduce/repeat/takeWhile typechecked at 39 lines to its 37,
// two of them warnings about operator order.
import type { Consumer, Log, RecordBatch } from '../adapters/log/log.js';
import type { StageHealth } from './stage-health.js';

export interface Stage {
  /** What the stage is, for logs and health: processor, projector, intelligence. */
  readonly role: string;
  readonly group: string;
  readonly topics: readonly string[];
  /** Where a group with no committed offset starts. */
  readonly startFrom: 'beginning' | 'end';
  /** Work before the first round (indexes); the consumer starts after it. */
  prepare?(): Promise<void>;
  /**
   * At most one batch per partition, each in offset order; one call at a time. The offsets are
   * committed after it resolves; if it throws, the same records come again after a pause.
   */
  handleBatch(batches: readonly RecordBatch[]): Promise<void>;
  /** Told about a round that failed (it will be retried). */
  failed?(err: unknown, batches: readonly RecordBatch[]): void;
  /**
   * Work of the stage's own between rounds (the projector's sweep of lapsed sessions), never at
   * the same time as a round. Called every `idleEveryMs`, and again at once while it answers
   * true (more to do); a round that arrives meanwhile waits for the call under way only.
   */
  idle?(): Promise<boolean>;
  readonly idleEveryMs?: number;
}

/** Whether a stage this process should run does, as readiness reads it (observability/readiness.ts). */
export interface StageState {
  readonly role: string;
  /** Consuming now; a projector paused for a replay counts as running (it resumes by itself). */
  readonly running: boolean;
}

/** `maxRecordsPerPartition`: smaller rounds, for a stage run in the background (a definitions preview). */
export async function runStage(log: Log, stage: Stage, health?: StageHealth, maxRecordsPerPartition?: number | (() => number)): Promise<Consumer> {
  await stage.prepare?.();
  // Rounds and idle work take turns: each waits for the one under way.
  let turn: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(work: () => Promise<T>): Promise<T> => {
    const p = turn.then(work);
    turn = p.catch(() => undefined);
    return p;
  };
  const handle = health
    ? async (batches: readonly RecordBatch[]) => {
      try {
        await stage.handleBatch(batches);
      } catch (err) {
        health.failed(err);
        throw err;
      }
      health.succeeded();
    }
    : (batches: readonly RecordBatch[]) => stage.handleBatch(batches);
  const consumer = await log.consumeRounds({
    groupId: stage.group,
    topics: stage.topics,
    fromBeginning: stage.startFrom === 'beginning',
    onRound: stage.idle ? (batches) => inTurn(() => handle(batches)) : handle,
    ...(health ? { monitor: health } : {}),
    ...(maxRecordsPerPartition !== undefined ? { maxRecordsPerPartition } : {}),
    ...(stage.failed ? { onError: (err: unknown, batches: readonly RecordBatch[]) => stage.failed?.(err, batches) } : {}),
  });
  const idle = stage.idle?.bind(stage);
  if (!idle) return consumer;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  const every = stage.idleEveryMs ?? 1_000;
  const schedule = (ms: number): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = null;
      // A failure is the stage's to report (it logs and counts); the next call tries again.
      void inTurn(() => (stopped ? Promise.resolve(false) : idle())).then((more) => schedule(more ? 0 : every), () => schedule(every));
    }, ms);
    timer.unref();
  };
  schedule(every);
  return {
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      await consumer.stop();
      await turn;
    },
  };
}

/** The partitions of a round, for log lines. */
export function partitionsOf(batches: readonly RecordBatch[]): number[] {
  return batches.map((b) => b.partition);
}
