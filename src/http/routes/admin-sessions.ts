// POST /api/admin/close-session: a manager (or admin) closes a session through the log, like every other
// change: a command record keyed by the chat, which the machine turns into SessionClosed.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type {} from '../../adapters/store/store.js';
import { inboundRecord } from '../../domain/inbound-record.js';
import { shownClose } from '../../domain/session-deadline.js';
import type { BatchingAppender } from '../../ingest/batching-appender.js';
import { ReadModelSet } from '../../read-models/read-model-set.js';
import { actorOf } from '../../access/access-model.js';
import { ApiError } from '../errors.js';
import { iso } from '../views.js';
import { assertVisible } from '../scope.js';

export interface AdminSessionOptions {
  readonly models: ReadModelSet;
  readonly inbound: BatchingAppender;
}

const AlreadyClosedSchema = Type.Object({
  status: Type.Literal('already-closed'),
  sessionId: Type.String(),
  closedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'when it closed (its last activity where the close time is not stored)' }),
  closeReason: Type.Union([Type.Literal('idle'), Type.Literal('unanswered'), Type.Literal('forced'), Type.Null()]),
}, { description: 'the session was already closed: nothing was appended' });

const CloseRequestedSchema = Type.Object({
  status: Type.Literal('close-requested'),
  sessionId: Type.String(),
}, { description: 'the close command is in the inbound log: the processor closes the session' });

export const adminSessionRoutes: FastifyPluginAsyncTypebox<AdminSessionOptions> = async (app, opts) => {
  const { models } = opts;

  app.post('/api/admin/close-session', {
    config: { access: 'manager' },
    schema: {
      summary: 'Force-close a session: appends a close command to inbound; the machine emits SessionClosed (reason forced)',
      security: [{ adminToken: [] }],
      body: Type.Object({ sessionId: Type.String({ minLength: 1, maxLength: 300, description: 'id of the session to close' }) }, { additionalProperties: false }),
      response: { 200: AlreadyClosedSchema, 202: CloseRequestedSchema },
    },
  }, async (request, reply) => {
    const { sessionId } = request.body;
    const session = await (await models.active()).sessions.findOne({ _id: sessionId });
    if (!session) throw new ApiError('NOT_FOUND', `sessionId: no session ${sessionId}`);
    assertVisible(request, session.accountId, `sessionId: no session ${sessionId}`);
    // One past its deadline is closed as every reader shows it (swept by the projector or not yet).
    const shown = shownClose(session, Date.now());
    if (shown.status === 'closed') {
      return reply.status(200).send({ status: 'already-closed' as const, sessionId, closedAt: iso(shown.closedAt ?? session.lastActivityAt), closeReason: shown.closeReason });
    }
    const requestedAt = new Date().toISOString();
    // Its span as shown now: how a definitions generation with other session ids finds the same conversation (machines/session-machine.ts).
    const sessionSpan = { from: session.openedAt, to: session.lastActivityAt };
    const body = Buffer.from(JSON.stringify({ sessionId, requestedAt, requestedBy: actorOf(request.principal), sessionSpan }));
    try {
      await opts.inbound.append(inboundRecord({
        source: 'command', event: 'command.close-session', accountId: session.accountId, chatId: session.chatId,
        dedupeKey: `close:${sessionId}:${requestedAt}`, receivedAt: Date.parse(requestedAt),
      }, body));
    } catch (err) {
      request.log.error({ err }, 'close command append failed');
      throw new ApiError('NOT_READY', 'the inbound log is unavailable; retry later');
    }
    return reply.status(202).send({ status: 'close-requested' as const, sessionId });
  });
};
