// kafkajs hands each partition's batch of a fetch to its own `eachBatch` call, all started in
// the same turn of the event loop. This gathers the calls that start together into one round,
// so the handler pays one set of reads, writes and appends, and the group one offset commit,
// for every partition the fetch returned. Rounds run one at a time; batches that arrive while
// one runs (a partition the broker answered for later) go together into the next.
import type { RecordBatch } from '../log.js';

interface Waiting {
  readonly batch: RecordBatch;
  readonly resolve: () => void;
  readonly reject: (err: unknown) => void;
}

export class RoundGate {
  private waiting: Waiting[] = [];
  private scheduled = false;
  private running: Promise<void> = Promise.resolve();

  constructor(private readonly runRound: (batches: readonly RecordBatch[]) => Promise<void>) {}

  /** Settles when the round holding this batch has run and committed (or failed). */
  submit(batch: RecordBatch): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ batch, resolve, reject });
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
    try {
      await this.runRound(taken.map((t) => t.batch));
    } catch (err) {
      for (const t of taken) t.reject(err);
      return;
    }
    for (const t of taken) t.resolve();
  }
}
