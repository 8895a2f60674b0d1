// The ops port (OPS_PORT) of a process without the API role: metrics and probes only, so a
// worker can be scraped and probed like the API. It serves no data a fan could be found in
// (counts, latencies, lag), so it takes no credential; keep it on the private network.
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from '../support/logger.js';
import type { OpsHooks } from '../composition.js';
import { errorBody, installErrorHandling } from './errors.js';
import { installRequestIds, requestIdOptions } from './request-ids.js';
import { requestActivity } from '../support/request-activity.js';
import { installHttpMetrics } from './http-metrics.js';
import { opsRoutes } from './routes/ops.js';

/** The hooks it answers from are the ones the API's ops routes get (composition.ts). */
export interface OpsServerDeps extends OpsHooks {
  readonly logger: Logger;
  /**
   * The server stands in for the API on its port while the process starts: any other route
   * answers 503 NOT_READY with Retry-After, not 404, so a webhook sender retries the delivery
   * (a 404 reads as "no such endpoint", and platforms drop a delivery on it).
   */
  readonly standsInForApi?: boolean;
}

export async function buildOpsServer(deps: OpsServerDeps): Promise<FastifyInstance> {
  const app = Fastify({
    // A child of its own: listen() quiets this server's logger alone (see app.ts).
    loggerInstance: deps.logger.child({}) as FastifyBaseLogger,
    // Nothing here takes a body; scrapes and probes are small.
    bodyLimit: 1024,
    requestTimeout: 10_000,
    ...requestIdOptions,
  });
  installErrorHandling(app);
  installRequestIds(app);
  // A replay running here takes smaller slices while requests come (support/request-activity.ts).
  app.addHook('onRequest', (_request, _reply, done) => { requestActivity.touch(); done(); });
  installHttpMetrics(app, deps.metrics);
  await app.register(opsRoutes, { metrics: deps.metrics, readiness: deps.readiness, stopping: deps.stopping, metricsAccess: 'public' });
  if (deps.standsInForApi) {
    // Before the body is read: a webhook is larger than this server's body limit (413 would
    // read as final too).
    app.addHook('onRequest', async (request, reply) => {
      if (request.routeOptions.url !== undefined) return;
      return reply.code(503).header('retry-after', '1').send(errorBody('NOT_READY', 'starting: the service is waiting for its dependencies; retry later (GET /api/health/ready says what it waits for)'));
    });
  }
  return app;
}
