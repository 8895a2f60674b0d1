// A process's copy of a few stored documents that the processor reads synchronously while a
// round decides (the accounts' banned phrases, their schedules): read again before a round when
// this process changed them (its store's generation moved) or the copy is older than `staleMs`,
// so a change saved in another process applies within that.

export class RefreshedCopy<T> {
  private copy: T;
  private readAt = Number.NEGATIVE_INFINITY;
  private seen = -1;

  constructor(
    private readonly read: () => Promise<T>,
    /** Bumped by every change this process makes. */
    private readonly generation: () => number,
    private readonly staleMs: number,
    empty: T,
  ) {
    this.copy = empty;
  }

  get value(): T {
    return this.copy;
  }

  async refresh(now = Date.now()): Promise<void> {
    const g = this.generation();
    if (this.seen === g && now - this.readAt < this.staleMs) return;
    this.copy = await this.read();
    this.readAt = now;
    this.seen = g;
  }
}
