// POST /webhooks/platform: verify, route, append the raw bytes, answer once the log has them.
// Nothing else happens on the request path (no normalising, no database, no model calls).
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { inboundRecord } from '../../domain/inbound-record.js';
import { parseJson } from '../../domain/json.js';
import { routeWebhook } from '../../domain/webhook-route.js';
import type { BatchingAppender } from '../../ingest/batching-appender.js';
import { verifySignature } from '../../ingest/signature.js';
import { ApiError, invalidInput } from '../errors.js';

export const WEBHOOK_PATH = '/webhooks/platform';
export const IDEMPOTENCY_HEADER = 'x-ofapi-idempotency-key';
export const SIGNATURE_HEADER = 'signature';

export interface WebhookRouteOptions {
  readonly inbound: BatchingAppender;
  readonly webhookSecret: string | null;
  readonly bodyLimitBytes: number;
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export const webhookRoutes: FastifyPluginAsync<WebhookRouteOptions> = async (app: FastifyInstance, opts) => {
  // The signature covers the exact bytes, so the body stays a Buffer here.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: opts.bodyLimitBytes }, (_req, body, done) => {
    done(null, body);
  });

  app.post(WEBHOOK_PATH, {
    // Its credential is the signature. Not rate-limited: the platform's bursts must land;
    // refused (wrongly signed) deliveries are limited per address instead.
    config: { access: 'own', rateClass: 'none' },
    schema: {
      summary: 'Platform webhook: verified, deduplicated by its idempotency key, appended to the inbound log',
      headers: {
        type: 'object',
        properties: {
          [SIGNATURE_HEADER]: { type: 'string', maxLength: 512 },
          [IDEMPOTENCY_HEADER]: { type: 'string', maxLength: 200 },
        },
      },
    },
  }, async (request, reply) => {
    const raw = request.body;
    if (!Buffer.isBuffer(raw)) throw invalidInput('body', 'must be a JSON object');
    if (opts.webhookSecret !== null && !verifySignature(opts.webhookSecret, raw, header(request.headers[SIGNATURE_HEADER]))) {
      throw new ApiError('UNAUTHORIZED', `${SIGNATURE_HEADER}: missing or invalid webhook signature`);
    }
    let body: unknown;
    try {
      body = parseJson(raw.toString('utf8'));
    } catch {
      throw invalidInput('body', 'is not valid JSON');
    }
    const routed = routeWebhook(body, header(request.headers[IDEMPOTENCY_HEADER]), raw);
    if (!routed.ok) throw invalidInput(routed.field, routed.reason);
    const { route } = routed;
    const receivedAt = Date.now();
    try {
      await opts.inbound.append(inboundRecord({ source: 'webhook', ...route, receivedAt }, raw));
    } catch (err) {
      request.log.error({ err }, 'inbound log append failed');
      // 503 makes the platform retry; we never acknowledge what the log did not take.
      throw new ApiError('NOT_READY', 'the inbound log is unavailable; retry later');
    }
    return reply.status(200).send({ accepted: true, event: route.event, accountId: route.accountId, chatId: route.chatId, dedupeKey: route.dedupeKey });
  });
};
