// The ops port (OPS_PORT) of a process without the API role: metrics and probes only, so a
// worker can be scraped and probed like the API. It serves no data a fan could be found in
// (counts, latencies, lag), so it takes no credential; keep it on the private network.
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from '../support/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { Readiness } from '../observability/readiness.js';
import { installErrorHandling } from './errors.js';
import { installRequestIds, requestIdOptions } from './request-ids.js';
import { installHttpMetrics } from './http-metrics.js';
import { opsRoutes } from './routes/ops.js';

export interface OpsServerDeps {
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly readiness: () => Promise<Readiness>;
  readonly stopping: () => boolean;
}

export async function buildOpsServer(deps: OpsServerDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    // Nothing here takes a body; scrapes and probes are small.
    bodyLimit: 1024,
    requestTimeout: 10_000,
    ...requestIdOptions,
  });
  installErrorHandling(app);
  installRequestIds(app);
  installHttpMetrics(app, deps.metrics);
  await app.register(opsRoutes, { metrics: deps.metrics, readiness: deps.readiness, stopping: deps.stopping, metricsAccess: 'public' });
  return app;
}
