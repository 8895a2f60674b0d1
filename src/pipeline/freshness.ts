// How long a webhook takes to become visible: from the moment ingest received it to the moment
// its events are written to the read models. Kept for a sliding window, so health shows what
// is happening now rather than an average since start.
import { nearestRank } from '../domain/percentiles.js';

export interface FreshnessSummary {
  readonly windowSec: number;
  readonly samples: number;
  readonly p50Ms: number | null;
  readonly p99Ms: number | null;
  readonly maxMs: number | null;
}

export class Freshness {
  // Parallel ring of (time written, latency); old entries are dropped lazily.
  private at: number[] = [];
  private latency: number[] = [];
  private head = 0;

  constructor(private readonly windowMs = 10_000, private readonly maxSamples = 200_000) {}

  record(receivedAt: number, visibleAt: number): void {
    if (!Number.isFinite(receivedAt)) return;
    this.at.push(visibleAt);
    this.latency.push(Math.max(0, visibleAt - receivedAt));
    if (this.at.length - this.head > this.maxSamples) this.head++;
    // Compact now and then instead of shifting on every sample.
    if (this.head > 50_000) {
      this.at = this.at.slice(this.head);
      this.latency = this.latency.slice(this.head);
      this.head = 0;
    }
  }

  summary(now = Date.now()): FreshnessSummary {
    const since = now - this.windowMs;
    while (this.head < this.at.length && (this.at[this.head] ?? 0) < since) this.head++;
    const window = this.latency.slice(this.head).sort((a, b) => a - b);
    return {
      windowSec: this.windowMs / 1000,
      samples: window.length,
      p50Ms: nearestRank(window, 50),
      p99Ms: nearestRank(window, 99),
      maxMs: window.length > 0 ? (window[window.length - 1] ?? null) : null,
    };
  }
}
