// POST /api/connector/ingest: the optional browser connector reports outbound messages with
// the chatter who sent them, which the platform's webhooks cannot say.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { ACCOUNT_ID_PATTERN, ACCOUNT_ID_RULE, checkTime, ID_PATTERN, ID_RULE, isWellFormedText, OutOfBounds } from '../../domain/bounds.js';
import { parsePlatformTime, TIME_RULE } from '../../domain/time.js';
import { inboundRecord } from '../../domain/inbound-record.js';
import type { BatchingAppender } from '../../ingest/batching-appender.js';
import { ApiError, invalidInput } from '../errors.js';

export const CONNECTOR_MAX_MESSAGES = 500;

export interface ConnectorRouteOptions {
  readonly inbound: BatchingAppender;
  readonly connectorGuard: (request: FastifyRequest) => Promise<void>;
}

const PlatformId = Type.String({ pattern: '^[0-9]{1,30}$', description: 'a platform id, as a decimal string' });
// The same bounds as every other door (src/domain/bounds.ts).
const AccountId = Type.String({ pattern: ACCOUNT_ID_PATTERN, description: ACCOUNT_ID_RULE });
const ChatterId = Type.String({ pattern: ID_PATTERN, description: ID_RULE });

/** How many messages went into the log: all of the batch (it is refused whole otherwise). */
const ConnectorAcceptedSchema = Type.Object({ accepted: Type.Integer({ minimum: 1, description: 'messages appended to the inbound log' }) });

export const connectorRoutes: FastifyPluginAsyncTypebox<ConnectorRouteOptions> = async (app, opts) => {
  app.post('/api/connector/ingest', {
    config: { access: 'own' },
    onRequest: opts.connectorGuard,
    schema: {
      summary: 'Browser connector feed: outbound messages with the chatter who sent them (Bearer CONNECTOR_TOKEN)',
      security: [{ connectorToken: [] }],
      body: Type.Object({
        accountId: AccountId,
        messages: Type.Array(Type.Object({
          chatId: PlatformId,
          messageId: PlatformId,
          text: Type.String({ maxLength: 20_000 }),
          sentAt: Type.String({ format: 'date-time' }),
          chatterId: ChatterId,
          automated: Type.Optional(Type.Boolean()),
        }, { additionalProperties: false }), { minItems: 1, maxItems: CONNECTOR_MAX_MESSAGES }),
      }, { additionalProperties: false }),
      response: { 200: ConnectorAcceptedSchema },
    },
  }, async (request) => {
    const { accountId, messages } = request.body;
    const receivedAt = Date.now();
    // What a schema cannot say: a real time in range, and text that survives a store's round trip.
    messages.forEach((m, i) => {
      if (!isWellFormedText(m.text)) throw invalidInput(`messages[${i}].text`, 'must be well-formed Unicode (it holds a lone surrogate)');
      try {
        // The door's one rule for a time (domain/time.ts), beyond the schema's date-time format.
        const at = parsePlatformTime(m.sentAt);
        if (at === undefined) throw new OutOfBounds(`messages[${i}].sentAt`, `must be ${TIME_RULE}`);
        checkTime(`messages[${i}].sentAt`, at, receivedAt);
      } catch (err) {
        if (err instanceof OutOfBounds) throw invalidInput(err.field, err.reason);
        throw err;
      }
    });
    try {
      await Promise.all(messages.map((m) => {
        const body = Buffer.from(JSON.stringify({ event: 'connector.message', account_id: accountId, payload: { id: m.messageId, text: m.text, createdAt: m.sentAt, chatterId: m.chatterId, automated: m.automated ?? false } }));
        return opts.inbound.append(inboundRecord({
          source: 'connector', event: 'connector.message', accountId, chatId: m.chatId, chatterId: m.chatterId,
          dedupeKey: `connector:${accountId}:${m.messageId}`, receivedAt,
        }, body));
      }));
    } catch (err) {
      request.log.error({ err }, 'connector append failed');
      throw new ApiError('NOT_READY', 'the inbound log is unavailable; retry later');
    }
    return { accepted: messages.length };
  });
};
