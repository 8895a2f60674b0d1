// How far the projector in this process has written the read models, per partition of
// session-events. Readers that must not run ahead of the read models (intelligence) wait on it
// and are woken by the projector's own rounds, instead of polling its committed offsets.
import { EventEmitter } from 'node:events';
import type { RecordBatch } from '../adapters/log/log.js';

export class ProjectionProgress {
  private readonly next = new Map<number, number>();
  private readonly moved = new EventEmitter();

  constructor() {
    // One listener per waiting intelligence round at most; a few are normal.
    this.moved.setMaxListeners(0);
  }

  /** The projector wrote these batches' documents. */
  advance(batches: readonly RecordBatch[]): void {
    for (const b of batches) {
      const last = b.records[b.records.length - 1];
      if (last && last.offset + 1 > (this.next.get(b.partition) ?? 0)) this.next.set(b.partition, last.offset + 1);
    }
    this.moved.emit('moved');
  }

  /** Whether every partition has been written up to (not including) its offset. */
  reached(wanted: ReadonlyMap<number, number>): boolean {
    for (const [p, offset] of wanted) if ((this.next.get(p) ?? 0) < offset) return false;
    return true;
  }

  /** Resolves true once `wanted` is reached, false after `timeoutMs` or when `signal` aborts. */
  until(wanted: ReadonlyMap<number, number>, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    if (this.reached(wanted)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (ok: boolean): void => {
        clearTimeout(timer);
        this.moved.off('moved', check);
        signal?.removeEventListener('abort', abort);
        resolve(ok);
      };
      const check = (): void => { if (this.reached(wanted)) done(true); };
      const abort = (): void => done(false);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.moved.on('moved', check);
      signal?.addEventListener('abort', abort);
    });
  }
}
