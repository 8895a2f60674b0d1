// Every response timed by route pattern (never the raw URL: ids in paths would make a series
// per chat), and every webhook counted as accepted or refused with a reason.
import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../observability/metrics.js';
import { WEBHOOK_PATH } from './routes/webhook.js';

/** Why a webhook was refused, from the status the error handler chose. */
const REFUSAL: Record<number, string> = {
  400: 'invalid_input',
  401: 'signature',
  413: 'too_large',
  415: 'media_type',
  429: 'rate_limited',
  503: 'log_unavailable',
};

export function installHttpMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const status = reply.statusCode;
    metrics.httpDuration.observe({ method: request.method, route, status: String(status) }, reply.elapsedTime / 1000);
    if (route === WEBHOOK_PATH && request.method === 'POST') {
      // A rotation's overlap: what still comes signed with the previous secret, apart.
      if (status < 300) metrics.webhooks.inc({ outcome: 'accepted', reason: request.webhookSigner === 'previous' ? 'previous_secret' : '' });
      else metrics.webhooks.inc({ outcome: 'refused', reason: REFUSAL[status] ?? `status_${status}` });
    }
  });
}
