// The operating surface every process has, whatever its roles: Prometheus metrics and the two
// probes. Served by the API server, and by the ops server (OPS_PORT) in processes without it.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { FastifyPluginAsync } from 'fastify';
import type { AccessLevel } from '../../access/access-model.js';
import type { Metrics } from '../../observability/metrics.js';
import type { Readiness } from '../../observability/readiness.js';

export const METRICS_PATH = '/metrics';
export const LIVE_PATH = '/api/health/live';
export const READY_PATH = '/api/health/ready';

export interface OpsRouteOptions {
  readonly metrics: Metrics;
  readonly readiness: () => Promise<Readiness>;
  /** Set once shutdown begins: the cached answer is dropped, so balancers see it at once. */
  readonly stopping: () => boolean;
  /** Who may read /metrics: `read` on the API port (READ_AUTH decides), `public` on the ops port. */
  readonly metricsAccess: AccessLevel;
}

/** Probes come every few seconds from every balancer and kubelet; the answer is kept this long. */
const READY_CACHE_MS = 1000;

const SCRAPE_CACHE_MS = 1000;

export const opsRoutes: FastifyPluginAsync<OpsRouteOptions> = async (app, opts) => {
  let scraped: { at: number; text: Promise<string> } | null = null;
  const loop = monitorEventLoopDelay({ resolution: 20 });
  loop.enable();
  app.addHook('onClose', async () => loop.disable());

  app.get(METRICS_PATH, {
    config: { access: opts.metricsAccess },
    schema: { summary: 'Prometheus metrics (text format): webhooks, latencies, lag, freshness, jobs, alerts, process' },
  }, async (_request, reply) => {
    // Collecting asks the log for offsets and the store for counts: scrapes closer together
    // than a second (several Prometheus replicas, or someone hammering the port) share one.
    const now = Date.now();
    if (!scraped || now - scraped.at > SCRAPE_CACHE_MS) scraped = { at: now, text: opts.metrics.text() };
    const text = await scraped.text;
    return reply.type(opts.metrics.contentType).header('cache-control', 'no-store').send(text);
  });

  app.get(LIVE_PATH, {
    config: { access: 'public', rateClass: 'none' },
    schema: { summary: 'Liveness: the process is up and its event loop turns (no dependency is checked)' },
  }, async () => {
    const delayMs = loop.percentile(99) / 1e6;
    loop.reset();
    return { status: 'live', uptimeSec: Math.round(process.uptime()), eventLoopDelayP99Ms: Number.isFinite(delayMs) ? Math.round(delayMs * 10) / 10 : 0 };
  });

  let cached: { at: number; stopping: boolean; value: Promise<Readiness> } | null = null;
  app.get(READY_PATH, {
    config: { access: 'public', rateClass: 'none' },
    schema: { summary: 'Readiness by role: an API process when the log takes appends, a worker when its consumers run; 503 otherwise and while shutting down' },
  }, async (_request, reply) => {
    const now = Date.now();
    const stopping = opts.stopping();
    if (!cached || now - cached.at > READY_CACHE_MS || cached.stopping !== stopping) cached = { at: now, stopping, value: opts.readiness() };
    const answer = await cached.value;
    return reply.status(answer.ready ? 200 : 503).header('cache-control', 'no-store').send({ status: answer.ready ? 'ready' : 'not ready', ...answer });
  });
};
