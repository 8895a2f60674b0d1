// How far the projector in this process has written the read models, per partition of
// session-events. Readers that must not run ahead of the read models (intelligence) wait on it
// and are woken by the projector's own rounds, instead of polling its committed offsets.
import { BehaviorSubject, map, type Observable } from 'rxjs';
import type { RecordBatch } from '../adapters/log/log.js';

export class ProjectionProgress {
  /** Per partition, the offset after the last record written; emitted again after each round the projector writes. */
  private readonly written$ = new BehaviorSubject(new Map<number, number>());

  /** The projector wrote these batches' documents. */
  advance(batches: readonly RecordBatch[]): void {
    const next = this.written$.value;
    for (const b of batches) {
      const last = b.records[b.records.length - 1];
      if (last && last.offset + 1 > (next.get(b.partition) ?? 0)) next.set(b.partition, last.offset + 1);
    }
    this.written$.next(next);
  }

  /** Whether every partition has been written up to (not including) its offset. */
  reached(wanted: ReadonlyMap<number, number>): boolean {
    for (const [p, offset] of wanted) if ((this.written$.value.get(p) ?? 0) < offset) return false;
    return true;
  }

  /** Whether `wanted` is reached: at once, and again after each round the projector writes. */
  reaching(wanted: ReadonlyMap<number, number>): Observable<boolean> {
    return this.written$.pipe(map(() => this.reached(wanted)));
  }
}
