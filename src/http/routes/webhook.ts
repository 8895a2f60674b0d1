// POST /webhooks/platform: verify, route, append the raw bytes, answer once the log has them.
// The door parses and normalises the body once (to refuse what the bounds refuse) and the
// record carries that input for the processor; nothing else happens on the request path (no
// database, no model calls).
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { inboundRecord } from '../../domain/inbound-record.js';
import { inputHeaders } from '../../domain/normalise.js';
import { ACCOUNT_CHAT, routeWebhookBytes } from '../../domain/webhook-route.js';
import type { BatchingAppender } from '../../ingest/batching-appender.js';
import { signedWith, type WebhookSecrets } from '../../ingest/signature.js';
import { ApiError, errorResponses, invalidInput } from '../errors.js';
import type { RefusalLimiter } from '../refusal-limiter.js';

export const WEBHOOK_PATH = '/webhooks/platform';
export const IDEMPOTENCY_HEADER = 'x-ofapi-idempotency-key';
export const SIGNATURE_HEADER = 'signature';

export interface WebhookRouteOptions {
  readonly inbound: BatchingAppender;
  /** Null: webhooks are not signed (development only; the start-up log warns). */
  readonly webhookSecrets: WebhookSecrets | null;
  readonly bodyLimitBytes: number;
  /** Counts wrong signatures per client address; past its limit, that address gets 429 unread. */
  readonly refusals: RefusalLimiter;
}

/** Wrong signatures are counted apart from wrong keys and tokens: neither locks the other out. */
export const webhookRefusalKey = (ip: string): string => `${WEBHOOK_PATH}|${ip}`;

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** A webhook the log holds: what it was routed as, so a sender can see how it was understood. */
const WebhookAcceptedSchema = Type.Object({
  accepted: Type.Literal(true),
  event: Type.String({ description: 'the event name, as sent' }),
  accountId: Type.String({ description: 'the creator account it belongs to' }),
  chatId: Type.String({ description: `the fan's chat it belongs to; ${ACCOUNT_CHAT} for events about the account as a whole` }),
  dedupeKey: Type.String({ description: 'its idempotency key (trimmed), or for keyless ephemeral events (users.typing, users.online, users.offline) body_ and a hash of the body. Redeliveries of a message or transaction are recognised by its own id, of any other event by this key' }),
}, { description: 'in the log (or a redelivery of what is): the platform may stop retrying' });

declare module 'fastify' {
  interface FastifyRequest {
    /** Which webhook secret signed this delivery; http-metrics.ts counts the previous one apart, so the operator sees when the platform switched. */
    webhookSigner: 'current' | 'previous' | null;
  }
}

export const webhookRoutes: FastifyPluginAsyncTypebox<WebhookRouteOptions> = async (app, opts) => {
  app.decorateRequest('webhookSigner', null);
  // The signature covers the exact bytes, so the body stays a Buffer here.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: opts.bodyLimitBytes }, (_req, body, done) => {
    done(null, body);
  });

  const secrets = opts.webhookSecrets;
  app.post(WEBHOOK_PATH, {
    // Its credential is the signature. Not rate-limited: the platform's bursts must land.
    // Refused (missing or wrong) signatures are counted per client address instead
    // (REFUSAL_LIMIT_MAX per RATE_LIMIT_WINDOW_SEC), and past the limit that address gets 429
    // before its body is read or its signature checked.
    config: { access: 'own', rateClass: 'none' },
    // Before the body is read: a blocked address costs neither the upload nor the HMAC.
    onRequest: async (request, reply) => {
      if (secrets === null) return;
      const blocked = opts.refusals.blockedFor(webhookRefusalKey(request.ip));
      if (blocked <= 0) return;
      const seconds = Math.ceil(blocked / 1000);
      void reply.header('retry-after', seconds);
      throw new ApiError('RATE_LIMITED', `too many wrongly signed webhooks from this address; retry in ${seconds} s`);
    },
    schema: {
      summary: 'Platform webhook: verified, appended to the inbound log, counted once however often it is redelivered (a message or transaction by its id, any other event by its idempotency key). With a secret set, missing or wrong signatures get 401 and are counted per client address; past REFUSAL_LIMIT_MAX in a window, that address gets 429 before its signature is checked',
      headers: Type.Object({
        [SIGNATURE_HEADER]: Type.Optional(Type.String({ maxLength: 512 })),
        [IDEMPOTENCY_HEADER]: Type.Optional(Type.String({ maxLength: 200 })),
      }),
      response: {
        200: WebhookAcceptedSchema,
        ...errorResponses('INVALID_INPUT', 'UNAUTHORIZED', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'RATE_LIMITED', 'NOT_READY'),
      },
    },
  }, async (request, reply) => {
    const raw = request.body;
    if (!Buffer.isBuffer(raw)) throw invalidInput('body', 'must be a JSON object');
    if (secrets !== null) {
      const signer = signedWith(secrets, raw, header(request.headers[SIGNATURE_HEADER]), Date.now());
      if (signer === null) {
        // Counted when decided, so a burst in flight cannot outrun the count.
        opts.refusals.note(webhookRefusalKey(request.ip));
        throw new ApiError('UNAUTHORIZED', `${SIGNATURE_HEADER}: missing or invalid webhook signature`);
      }
      request.webhookSigner = signer;
    }
    const routed = routeWebhookBytes(raw, header(request.headers[IDEMPOTENCY_HEADER]));
    if (!routed.ok) throw invalidInput(routed.field, routed.reason);
    const { route } = routed;
    const { input, ...meta } = route;
    try {
      await opts.inbound.append(inboundRecord({ source: 'webhook', ...meta }, raw, inputHeaders(input, raw.length)));
    } catch (err) {
      request.log.error({ err }, 'inbound log append failed');
      // 503 makes the platform retry; we never acknowledge what the log did not take.
      throw new ApiError('NOT_READY', 'the inbound log is unavailable; retry later');
    }
    return reply.status(200).send({ accepted: true as const, event: route.event, accountId: route.accountId, chatId: route.chatId, dedupeKey: route.dedupeKey });
  });
};
