// Coalesces concurrent appends into one log write. While a write is in flight, new records
// wait and go out together in the next one, which amortises broker round-trips at high load;
// a short linger before a write (lingerMs) does the same for the moderate load where a write
// is rarely in flight. Each caller still learns its own outcome.
// A caller waits at most `timeoutMs`: when the log is down, ingest must answer 503 promptly
// (the platform retries) instead of holding connections while the client library retries.
import type { AppendRecord, AppendResult, Log } from '../adapters/log/log.js';

export class AppendTimeoutError extends Error {
  constructor(ms: number) {
    super(`the log did not take the record within ${ms} ms`);
    this.name = 'AppendTimeoutError';
  }
}

interface Pending {
  readonly record: AppendRecord;
  resolve(r: AppendResult): void;
  reject(err: unknown): void;
}

export interface BatchingAppenderOptions {
  readonly maxBatch?: number;
  readonly timeoutMs?: number;
  /**
   * Group commit: a record arriving while no write is under way waits this long before the
   * write starts, so the records arriving meanwhile share it (one disk flush, one produce
   * request). Each write costs about as much CPU for one record as for ten.
   */
  readonly lingerMs?: number;
}

export class BatchingAppender {
  private queue: Pending[] = [];
  private inFlight = false;
  private readonly maxBatch: number;
  private readonly timeoutMs: number;
  private readonly lingerMs: number;

  constructor(private readonly log: Log, private readonly topic: string, options: BatchingAppenderOptions = {}) {
    this.maxBatch = options.maxBatch ?? 500;
    this.timeoutMs = options.timeoutMs ?? 5_000;
    this.lingerMs = options.lingerMs ?? 0;
  }

  append(record: AppendRecord): Promise<AppendResult> {
    return new Promise((resolve, reject) => {
      let done = false;
      const settle = (): boolean => {
        if (done) return false;
        done = true;
        clearTimeout(timer);
        return true;
      };
      const pending: Pending = {
        record,
        resolve: (r) => { if (settle()) resolve(r); },
        reject: (err) => { if (settle()) reject(err); },
      };
      const timer = setTimeout(() => {
        // Not yet handed to the log: drop it, so an outage does not pile up records whose
        // senders were told to retry. One already in a write may still land; its retry is
        // deduplicated by the session machine.
        const i = this.queue.indexOf(pending);
        if (i >= 0) this.queue.splice(i, 1);
        pending.reject(new AppendTimeoutError(this.timeoutMs));
      }, this.timeoutMs);
      this.queue.push(pending);
      if (!this.inFlight) {
        this.inFlight = true;
        if (this.lingerMs > 0) setTimeout(() => void this.flush(), this.lingerMs);
        else void this.flush();
      }
    });
  }

  /**
   * Bulk work an admin asked for (seeding): written in chunks straight to the log, without the
   * webhook's deadline. Under load a 5 s deadline answered 503 while the records landed anyway;
   * an admin waits for the truth instead, and the log client's own retries bound the wait.
   */
  async appendBulk(records: readonly AppendRecord[]): Promise<number> {
    let written = 0;
    for (let i = 0; i < records.length; i += this.maxBatch) {
      const chunk = records.slice(i, i + this.maxBatch);
      await this.log.append(this.topic, chunk);
      written += chunk.length;
    }
    return written;
  }

  /** Runs with `inFlight` set by append, which scheduled it. */
  private async flush(): Promise<void> {
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
