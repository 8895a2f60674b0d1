// Counts refused credentials per key (a client address and a kind of credential: access keys
// and ADMIN_TOKEN, CONNECTOR_TOKEN, webhook signatures). Past the limit, that address's
// credentials of that kind get 429 before they are checked, so guessing keys or tokens, or
// flooding the webhook with wrongly signed bodies, costs the sender, not the process or the
// store. One limiter per API server, shared by the access hook and the webhook.
import { LruMap } from '../support/lru.js';

interface Window {
  startedAt: number;
  refusals: number;
}

export class RefusalLimiter {
  private readonly windows: LruMap<string, Window>;

  constructor(
    readonly max: number,
    readonly windowMs: number,
    private readonly clock: () => number = Date.now,
    capacity = 50_000,
  ) {
    this.windows = new LruMap(capacity);
  }

  /** Milliseconds until the address may try again; 0 when it is not blocked. */
  blockedFor(key: string): number {
    const w = this.windows.get(key);
    if (!w) return 0;
    const left = w.startedAt + this.windowMs - this.clock();
    if (left <= 0) {
      this.windows.delete(key);
      return 0;
    }
    return w.refusals >= this.max ? left : 0;
  }

  note(key: string): void {
    const now = this.clock();
    const w = this.windows.get(key);
    if (!w || w.startedAt + this.windowMs <= now) this.windows.set(key, { startedAt: now, refusals: 1 });
    else w.refusals++;
  }
}
