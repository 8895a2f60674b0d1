// Applies batches strictly one application at a time, as an RxJS stream; batches that arrive
// (from other partitions) while one is applied go together into the next. A backlog then costs
// one round of reads and writes instead of one per partition, and documents shared by many
// chats (account totals, report buckets) are written once a round. Each submitted batch
// settles when the application holding it has been written (or failed), so its offsets are
// committed only after its documents are.
import { Subject, concatMap, defer, catchError, EMPTY, tap, type Subscription } from 'rxjs';

interface Pending<B> {
  readonly batch: B;
  readonly done: (err?: unknown) => void;
}

export class Coalescer<B> {
  private readonly arrivals = new Subject<void>();
  private pending: Pending<B>[] = [];
  private readonly subscription: Subscription;

  constructor(apply: (batches: readonly B[]) => Promise<void>) {
    this.subscription = this.arrivals
      .pipe(
        concatMap(() => {
          // Whatever has arrived by now goes in one application; later arrivals find it empty.
          const taken = this.pending.splice(0);
          if (taken.length === 0) return EMPTY;
          return defer(() => apply(taken.map((t) => t.batch))).pipe(
            tap({ next: () => { for (const t of taken) t.done(); }, error: (err: unknown) => { for (const t of taken) t.done(err); } }),
            catchError(() => EMPTY),
          );
        }),
      )
      .subscribe();
  }

  submit(batch: B): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ batch, done: (err) => (err === undefined ? resolve() : reject(err)) });
      this.arrivals.next();
    });
  }

  stop(): void {
    this.subscription.unsubscribe();
  }
}
