// kafkajs hands each partition's batch of a fetch to its own `eachBatch` call, all started in
// the same turn of the event loop. This gathers the calls that start together into one round,
// so the handler pays one set of reads, writes and appends, and the group one offset commit,
// for every partition the fetch returned. Rounds run one at a time; batches that arrive while
// one runs (a partition the broker answered for later) go together into the next.
//
// A fetch can hold far more than a round should (1 MiB per partition: tens of thousands of
// records when catching up), so what the gate gathers is cut into rounds bounded by records
// and by time (RoundPacer, cutRound): the consumer runs, commits and heartbeats them one after
// another, and each `eachBatch` call hears how much of its batch was done.
import type { RecordBatch } from '../log.js';

/** What a run of rounds did with each batch: how many of its records (a prefix) were handled and committed, and why it stopped short. */
export interface RoundsOutcome {
  readonly handled: ReadonlyMap<RecordBatch, number>;
  /** The round that failed, if one did; the batches' later records were not handled. */
  readonly error?: unknown;
}

/** What one `eachBatch` call hears: records of its batch handled (a prefix), and the failure if the rest was not. */
export interface BatchOutcome {
  readonly handled: number;
  readonly error?: unknown;
}

interface Waiting {
  readonly batch: RecordBatch;
  readonly resolve: (outcome: BatchOutcome) => void;
}

export class RoundGate {
  private waiting: Waiting[] = [];
  private scheduled = false;
  private running: Promise<void> = Promise.resolve();

  constructor(private readonly runRounds: (batches: readonly RecordBatch[]) => Promise<RoundsOutcome>) {}

  /** Settles when the rounds holding this batch have run and committed (or one failed); never rejects. */
  submit(batch: RecordBatch): Promise<BatchOutcome> {
    return new Promise<BatchOutcome>((resolve) => {
      this.waiting.push({ batch, resolve });
      if (this.scheduled) return;
      this.scheduled = true;
      // setImmediate, not a microtask: kafkajs starts the sibling calls after awaits of its own.
      setImmediate(() => {
        this.scheduled = false;
        this.running = this.running.then(() => this.flush());
      });
    });
  }

  private async flush(): Promise<void> {
    const taken = this.waiting.splice(0);
    if (taken.length === 0) return;
    let outcome: RoundsOutcome;
    try {
      outcome = await this.runRounds(taken.map((t) => t.batch));
    } catch (err) {
      outcome = { handled: new Map(), error: err };
    }
    for (const t of taken) {
      const handled = outcome.handled.get(t.batch) ?? 0;
      t.resolve(outcome.error === undefined ? { handled } : { handled, error: outcome.error });
    }
  }
}

/**
 * The next round out of what is left of the gathered batches: at most `limit` records, shared
 * fairly between the partitions (each takes a prefix of what it has left, in offset order), so
 * no partition waits for another's backlog. `done` says how many records of each batch earlier
 * rounds took. Batches with nothing left are not in the round. When the limit is below the
 * number of partitions, `turn` (a round counter) says which partition is served first, so each
 * takes its turn instead of the first one taking every round.
 */
export function cutRound(batches: readonly RecordBatch[], done: ReadonlyMap<RecordBatch, number>, limit: number, turn = 0): RecordBatch[] {
  const waiting = batches
    .map((b) => ({ b, from: done.get(b) ?? 0 }))
    .filter(({ b, from }) => from < b.records.length);
  const first = waiting.length > 0 ? turn % waiting.length : 0;
  const left = [...waiting.slice(first), ...waiting.slice(0, first)];
  const take = new Map<RecordBatch, number>(left.map(({ b }) => [b, 0]));
  let budget = Math.max(1, limit);
  let open = left;
  // Equal shares, and what a short partition leaves goes to the others.
  while (budget > 0 && open.length > 0) {
    const share = Math.max(1, Math.floor(budget / open.length));
    for (const { b, from } of open) {
      if (budget === 0) break;
      const has = b.records.length - from - (take.get(b) ?? 0);
      const n = Math.min(share, has, budget);
      take.set(b, (take.get(b) ?? 0) + n);
      budget -= n;
    }
    open = open.filter(({ b, from }) => from + (take.get(b) ?? 0) < b.records.length);
  }
  return waiting
    .filter(({ b }) => (take.get(b) ?? 0) > 0)
    .map(({ b, from }) => ({ ...b, records: b.records.slice(from, from + (take.get(b) ?? 0)) }));
}

export interface RoundLimits {
  /** Records in one round at most. */
  readonly maxRecords: number;
  /** What a round should take at most: the next round is sized from the time the last ones took per record. */
  readonly maxMs: number;
}

/**
 * Rounds are never cut below this many records (or `maxRecords`, if lower). A round's time has
 * a fixed part (one read and one write whatever its size): sized from a round whose fixed part
 * is most of its time, a one-record round would measure the same again for ever (a store whose
 * every call takes a second, against KAFKA_ROUND_MAX_MS 2,000, held a worker at one record a
 * round and never caught up). A hundred records amortise it; heartbeats run on a timer during
 * a round, so one longer than `maxMs` does not cost the member its place.
 */
export const MIN_ROUND_RECORDS = 100;

/**
 * Sizes rounds so that each takes about `maxMs`: a running estimate of the time per record
 * (weighted towards the last rounds), never more than `maxRecords`, never fewer than
 * MIN_ROUND_RECORDS. Starts at `maxRecords`: the first full round measures. Only a round as
 * large as asked may raise the estimate: a smaller one was sized by what waited, and its fixed
 * part, spread over few records, says nothing of a full one (it may still lower the estimate).
 */
export class RoundPacer {
  private msPerRecord: number | null = null;
  private asked: number;

  constructor(private readonly limits: RoundLimits) {
    this.asked = limits.maxRecords;
  }

  next(): number {
    const floor = Math.min(this.limits.maxRecords, MIN_ROUND_RECORDS);
    this.asked = this.msPerRecord === null || this.msPerRecord <= 0
      ? this.limits.maxRecords
      : Math.max(floor, Math.min(this.limits.maxRecords, Math.floor(this.limits.maxMs / this.msPerRecord)));
    return this.asked;
  }

  observe(records: number, ms: number): void {
    if (records <= 0) return;
    const rate = ms / records;
    const full = records >= this.asked;
    if (this.msPerRecord === null) {
      if (full) this.msPerRecord = rate;
      return;
    }
    // A full round much slower than the estimate counts at once (the store slowed down); a faster one eases the estimate down.
    if (rate > this.msPerRecord) {
      if (full) this.msPerRecord = rate;
    } else {
      this.msPerRecord = 0.5 * this.msPerRecord + 0.5 * rate;
    }
  }
}
