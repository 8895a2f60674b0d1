// The Prometheus metrics of one running app (prom-client). One registry per app rather than
// prom-client's global one, so tests that run several apps in a process see their own numbers.
// Counters and histograms are fed where things happen (HTTP hooks, the instrumented log and
// store); figures that live elsewhere (lag, freshness, open alerts, job progress) are read when
// Prometheus scrapes, by the collectors registered with `gauge`.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Seconds, from a 1 ms append to a 30 s stall. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export type GaugeSample = { readonly labels: Record<string, string | number>; readonly value: number };

export class Metrics {
  readonly registry = new Registry();
  readonly webhooks: Counter<'outcome' | 'reason'>;
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  readonly logAppend: Histogram<'topic' | 'outcome'>;
  readonly storeWrite: Histogram<'outcome'>;

  constructor(private readonly prefix = 'convops_') {
    collectDefaultMetrics({ register: this.registry });
    this.webhooks = new Counter({
      name: `${prefix}webhooks_total`,
      help: 'Webhook deliveries answered: accepted, or refused with the reason',
      labelNames: ['outcome', 'reason'],
      registers: [this.registry],
    });
    this.httpDuration = new Histogram({
      name: `${prefix}http_request_duration_seconds`,
      help: 'Time from request to response, by route pattern and status (the webhook\'s 2xx is its time to acknowledge)',
      labelNames: ['method', 'route', 'status'],
      buckets: LATENCY_BUCKETS,
      registers: [this.registry],
    });
    this.logAppend = new Histogram({
      name: `${prefix}log_append_seconds`,
      help: 'Time for the log (Kafka or embedded) to acknowledge an append',
      labelNames: ['topic', 'outcome'],
      buckets: LATENCY_BUCKETS,
      registers: [this.registry],
    });
    this.storeWrite = new Histogram({
      name: `${prefix}store_write_seconds`,
      help: 'Time for the store to take one round\'s bulk writes (chat states, read models)',
      labelNames: ['outcome'],
      buckets: LATENCY_BUCKETS,
      registers: [this.registry],
    });
  }

  /**
   * A gauge read at scrape time. `read` returns every sample; a failing read leaves the gauge
   * empty for that scrape rather than failing the whole page.
   */
  gauge(name: string, help: string, labelNames: readonly string[], read: () => Promise<readonly GaugeSample[]> | readonly GaugeSample[]): void {
    new Gauge({
      name: `${this.prefix}${name}`,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        this.reset();
        const samples = await Promise.resolve().then(read).catch(() => [] as readonly GaugeSample[]);
        for (const s of samples) this.set(s.labels, s.value);
      },
    });
  }

  /** A counter whose running total is kept elsewhere (say, a client's call count), read at scrape time. */
  counterFrom(name: string, help: string, labelNames: readonly string[], read: () => readonly GaugeSample[]): void {
    new Counter({
      name: `${this.prefix}${name}`,
      help,
      labelNames,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const s of read()) this.inc(s.labels, s.value);
      },
    });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}

/** Seconds since `start` (a `performance.now()` reading). */
export const secondsSince = (start: number): number => (performance.now() - start) / 1000;
