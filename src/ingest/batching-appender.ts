// Coalesces concurrent appends into one log write. While a write is in flight, new records
// wait and go out together in the next one, so batching adds no delay at low load and
// amortises broker round-trips at high load. Each caller still learns its own outcome.
import type { AppendRecord, AppendResult, Log } from '../adapters/log/log.js';

interface Pending {
  readonly record: AppendRecord;
  readonly resolve: (r: AppendResult) => void;
  readonly reject: (err: unknown) => void;
}

export class BatchingAppender {
  private queue: Pending[] = [];
  private inFlight = false;

  constructor(private readonly log: Log, private readonly topic: string, private readonly maxBatch = 500) {}

  append(record: AppendRecord): Promise<AppendResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ record, resolve, reject });
      if (!this.inFlight) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.inFlight = true;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      try {
        const results = await this.log.append(this.topic, batch.map((p) => p.record));
        batch.forEach((p, i) => {
          const r = results[i];
          if (r) p.resolve(r);
          else p.reject(new Error('log returned no result for a record'));
        });
      } catch (err) {
        for (const p of batch) p.reject(err);
      }
    }
    this.inFlight = false;
  }
}
