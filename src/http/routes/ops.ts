// The operating surface every process has, whatever its roles: Prometheus metrics and the two
// probes. Served by the API server, and by the ops server (OPS_PORT) in processes without it.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AccessLevel } from '../../access/access-model.js';
import type { Metrics } from '../../observability/metrics.js';
import { ReadinessSchema, type Readiness } from '../../observability/readiness.js';
import { errorResponses } from '../errors.js';

export const METRICS_PATH = '/metrics';
export const LIVE_PATH = '/api/health/live';
export const READY_PATH = '/api/health/ready';

export interface OpsRouteOptions {
  readonly metrics: Metrics;
  readonly readiness: () => Promise<Readiness>;
  /** Set once shutdown begins: the cached answer is dropped, so balancers see it at once. */
  readonly stopping: () => boolean;
  /**
   * Who may read /metrics. On the API port: `admin` when READ_AUTH=required (the figures are the
   * whole agency's: open alerts, webhooks, lag; a viewer key, even one scoped to an account,
   * must not see them), `read` while reads are open (anyone may read everything anyway). On
   * the ops port of a process without the API: `public` (no credential; a private network).
   */
  readonly metricsAccess: AccessLevel;
}

/** The liveness probe's answer. */
const LiveSchema = Type.Object({
  status: Type.Literal('live'),
  uptimeSec: Type.Integer({ minimum: 0, description: 'seconds since the process started' }),
  eventLoopDelayP99Ms: Type.Number({ minimum: 0, description: 'p99 event-loop delay since the last probe, to a tenth of a millisecond' }),
});

/** The readiness probe's answer: the process's Readiness with its status in a word. */
const ReadyAnswerSchema = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('not ready')]),
  ...ReadinessSchema.properties,
});

/** Probes come every few seconds from every balancer and kubelet; the answer is kept this long. */
const READY_CACHE_MS = 1000;

const SCRAPE_CACHE_MS = 1000;

export const opsRoutes: FastifyPluginAsyncTypebox<OpsRouteOptions> = async (app, opts) => {
  let scraped: { at: number; text: Promise<string> } | null = null;
  const loop = monitorEventLoopDelay({ resolution: 20 });
  loop.enable();
  app.addHook('onClose', async () => loop.disable());

  const guarded = opts.metricsAccess !== 'public';
  app.get(METRICS_PATH, {
    config: { access: opts.metricsAccess },
    schema: {
      summary: `Prometheus metrics (text format): webhooks, latencies, lag, freshness, jobs, alerts, process${opts.metricsAccess === 'admin' ? '. An admin key or ADMIN_TOKEN (READ_AUTH=required)' : ''}`,
      ...(guarded ? { security: [{ adminToken: [] }] } : {}),
      response: {
        200: { description: 'Prometheus text exposition format', content: { 'text/plain': { schema: { type: 'string' } } } },
        ...(guarded ? errorResponses('UNAUTHORIZED', 'FORBIDDEN', 'RATE_LIMITED') : {}),
      },
    },
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
    schema: {
      summary: 'Liveness: the process is up and its event loop turns (no dependency is checked)',
      response: { 200: LiveSchema },
    },
  }, async () => {
    const delayMs = loop.percentile(99) / 1e6;
    loop.reset();
    return { status: 'live' as const, uptimeSec: Math.round(process.uptime()), eventLoopDelayP99Ms: Number.isFinite(delayMs) ? Math.round(delayMs * 10) / 10 : 0 };
  });

  let cached: { at: number; stopping: boolean; value: Promise<Readiness> } | null = null;
  app.get(READY_PATH, {
    config: { access: 'public', rateClass: 'none' },
    schema: {
      summary: 'Readiness by role: an API process when the log takes appends, a worker when its consumers run; 503 otherwise and while shutting down',
      response: { 200: ReadyAnswerSchema, 503: { ...ReadyAnswerSchema, description: 'not ready, with the reasons' } },
    },
  }, async (_request, reply) => {
    const now = Date.now();
    const stopping = opts.stopping();
    if (!cached || now - cached.at > READY_CACHE_MS || cached.stopping !== stopping) cached = { at: now, stopping, value: opts.readiness() };
    const answer = await cached.value;
    return reply.status(answer.ready ? 200 : 503).header('cache-control', 'no-store').send({ status: answer.ready ? 'ready' : 'not ready', ...answer, roles: [...answer.roles], reasons: [...answer.reasons] });
  });
};
