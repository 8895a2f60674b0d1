// Counts refused requests (a wrong credential, a bad webhook signature) per client address.
// Past the limit, the address gets 429 before its request is read or checked, so guessing
// keys or signatures costs the guesser, not the process. Legitimate traffic is never counted:
// a correctly signed webhook flood from the platform is not rate-limited.
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
  blockedFor(address: string): number {
    const w = this.windows.get(address);
    if (!w) return 0;
    const left = w.startedAt + this.windowMs - this.clock();
    if (left <= 0) {
      this.windows.delete(address);
      return 0;
    }
    return w.refusals >= this.max ? left : 0;
  }

  note(address: string): void {
    const now = this.clock();
    const w = this.windows.get(address);
    if (!w || w.startedAt + this.windowMs <= now) this.windows.set(address, { startedAt: now, refusals: 1 });
    else w.refusals++;
  }
}
