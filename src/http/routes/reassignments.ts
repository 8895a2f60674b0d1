// Reassigning a sale (issue 50): a manager moves a payment's credit to another chatter, with a
// reason, or undoes that. The change is an input in the log (a command record keyed by the
// payment's chat, like a forced close), so replay keeps it and every read model credits it; the
// list says who, when, from, to and why.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../../access/access-model.js';
import { inboundRecord } from '../../domain/inbound-record.js';
import { REASSIGN_PAYMENT } from '../../domain/normalise.js';
import type { BatchingAppender } from '../../ingest/batching-appender.js';
import { creditedChatter, paymentDocId } from '../../read-models/payments/projection.js';
import type { ReadModelSet } from '../../read-models/read-model-set.js';
import { chattersSeen } from '../../read-models/report-buckets/chatters-seen.js';
import { ApiError } from '../errors.js';
import { accountFilter } from '../scope.js';
import { iso, Nullable, Time } from '../views.js';
import { LIST_LIMIT } from './reads.js';

export interface ReassignmentRouteOptions {
  readonly models: ReadModelSet;
  readonly inbound: BatchingAppender;
  readonly now?: () => number;
}

const Id = (description: string) => Type.String({ minLength: 1, maxLength: 200, description });

const ReassignmentSchema = Type.Object({
  id: Type.String(),
  accountId: Type.String(),
  chatId: Type.String({ description: 'the fan' }),
  paymentId: Type.String(),
  grossCents: Type.Integer({ description: 'US cents' }),
  paidAt: Time,
  from: Nullable(Type.String(), 'the chatter credited before; null: nobody'),
  to: Nullable(Type.String(), 'the chatter credited after; on an undo, the model\'s own credit'),
  undo: Type.Boolean({ description: 'true: a reassignment undone' }),
  by: Type.String({ description: 'who asked (the key\'s name, or admin)' }),
  at: Time,
  reason: Type.String(),
});

export const reassignmentRoutes: FastifyPluginAsyncTypebox<ReassignmentRouteOptions> = async (app, opts) => {
  // Read at each call, not captured: a clock set for a test (or by a time-travel tool) reaches every route.
  const clock = opts.now ?? ((): number => Date.now());

  app.post('/api/admin/reassignments', {
    config: { access: 'manager' },
    schema: {
      summary: 'Reassign a payment\'s credit to a chatter, with a reason (toChatterId null: undo, back to the model\'s own credit). Appends a command to the inbound log; every report credits the chatter named once it is processed',
      security: [{ adminToken: [] }],
      body: Type.Object({
        accountId: Id('the payment\'s account'),
        paymentId: Id('the payment (the transaction id)'),
        toChatterId: Type.Union([Id('a chatter with work for the account'), Type.Null()], { description: 'the chatter to credit; null: undo the reassignment' }),
        reason: Type.String({ minLength: 1, maxLength: 500, description: 'why, for whoever reads the list later' }),
      }, { additionalProperties: false }),
      response: {
        202: Type.Object({
          status: Type.Literal('reassign-requested'), accountId: Type.String(), paymentId: Type.String(), from: Nullable(Type.String()), toChatterId: Nullable(Type.String()), requestedAt: Time,
        }, { description: 'the command is in the inbound log: the processor applies it' }),
      },
    },
  }, async (request, reply) => {
    const { accountId, paymentId, toChatterId, reason } = request.body;
    accountFilter(request, accountId);
    const rm = await opts.models.active();
    const payment = await rm.payments.findOne({ _id: paymentDocId(accountId, paymentId) });
    if (!payment) throw new ApiError('INVALID_INPUT', `paymentId: no payment ${paymentId} in account ${accountId}`);
    if (toChatterId === null && !payment.override) throw new ApiError('CONFLICT', `paymentId: payment ${paymentId} is not reassigned: nothing to undo`);
    if (toChatterId !== null && !(await chattersSeen(rm, new Set([accountId]))).has(toChatterId)) {
      throw new ApiError('INVALID_INPUT', `toChatterId: no chatter ${toChatterId} has worked for account ${accountId}`);
    }
    const requestedAt = new Date(clock()).toISOString();
    const body = Buffer.from(JSON.stringify({ paymentId, chatterId: toChatterId, reason, requestedBy: actorOf(request.principal), requestedAt }));
    try {
      await opts.inbound.append(inboundRecord({
        source: 'command', event: REASSIGN_PAYMENT, accountId, chatId: payment.chatId,
        dedupeKey: `reassign:${accountId}:${paymentId}:${requestedAt}`, receivedAt: Date.parse(requestedAt),
      }, body));
    } catch (err) {
      request.log.error({ err }, 'reassign command append failed');
      throw new ApiError('NOT_READY', 'the inbound log is unavailable; retry later');
    }
    return reply.status(202).send({ status: 'reassign-requested' as const, accountId, paymentId, from: creditedChatter(payment), toChatterId, requestedAt });
  });

  app.get('/api/admin/reassignments', {
    config: { access: 'manager' },
    schema: {
      summary: 'Reassignments of payments\' credit, newest first: who, when, from, to and why (of the key\'s accounts)',
      security: [{ adminToken: [] }],
      querystring: Type.Object({
        accountId: Type.Optional(Id('only this account')),
        paymentId: Type.Optional(Id('only this payment')),
        limit: Type.Integer({ minimum: 1, maximum: LIST_LIMIT.max, default: LIST_LIMIT.default, description: `rows to return (default ${LIST_LIMIT.default}, max ${LIST_LIMIT.max})` }),
      }, { additionalProperties: false }),
      response: { 200: Type.Object({ items: Type.Array(ReassignmentSchema), count: Type.Integer({ minimum: 0 }), limit: Type.Integer({ minimum: 1 }) }) },
    },
  }, async (request) => {
    const { accountId, paymentId, limit } = request.query;
    const rm = await opts.models.active();
    const docs = await rm.reassignments.find({ ...accountFilter(request, accountId), ...(paymentId ? { paymentId } : {}) }, { sort: { at: -1, _id: -1 }, limit });
    const items = docs.map((d) => ({
      id: d._id, accountId: d.accountId, chatId: d.chatId, paymentId: d.paymentId, grossCents: d.grossCents, paidAt: iso(d.paidAt),
      from: d.from, to: d.to, undo: d.undo, by: d.by, at: iso(d.at), reason: d.reason,
    }));
    return { items, count: items.length, limit };
  });
};
