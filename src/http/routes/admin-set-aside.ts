// GET /api/admin/set-aside: records the processor (or events the projector) set aside because
// a step threw on them, newest first, so an operator can see what was not processed and why.
// Only what was stored: the error message and a bounded prefix of the body, never more.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { DocumentStore } from '../../adapters/store/store.js';
import { SET_ASIDE_COLLECTION, type SetAsideDoc } from '../../processor/set-aside.js';
import { iso } from '../views.js';

export interface AdminSetAsideOptions {
  readonly store: DocumentStore;
  /** Used as the route's onRequest hook; omit where an access hook guards `/api/admin/*` already. */
  readonly adminGuard?: (request: FastifyRequest) => Promise<void>;
}

const LIMIT = { default: 50, max: 500 } as const;

function setAsideView(d: SetAsideDoc) {
  return {
    id: d._id,
    stage: d.stage,
    topic: d.topic,
    partition: d.partition,
    offset: d.offset,
    chatKey: d.chatKey,
    event: d.event,
    error: d.error,
    receivedAt: iso(d.receivedAt),
    setAsideAt: iso(d.setAsideAt),
    body: { encoding: d.body.encoding, prefix: d.body.prefix, bytes: d.body.bytes, truncated: d.body.truncated },
  };
}

export const adminSetAsideRoutes: FastifyPluginAsyncTypebox<AdminSetAsideOptions> = async (app, opts) => {
  const docs = opts.store.collection<SetAsideDoc>(SET_ASIDE_COLLECTION);

  app.get('/api/admin/set-aside', {
    ...(opts.adminGuard ? { onRequest: opts.adminGuard } : {}),
    schema: {
      summary: 'Records and events set aside because a processing step threw on them, newest first (error message and a body prefix of at most 4 KB)',
      security: [{ adminToken: [] }],
      querystring: Type.Object({
        limit: Type.Integer({ minimum: 1, maximum: LIMIT.max, default: LIMIT.default, description: `rows to return (default ${LIMIT.default}, max ${LIMIT.max})` }),
      }, { additionalProperties: false }),
    },
  }, async (request) => {
    const { limit } = request.query;
    const [items, total] = await Promise.all([
      docs.find({}, { sort: { setAsideAt: -1, _id: -1 }, limit }),
      docs.countDocuments(),
    ]);
    return { items: items.map(setAsideView), count: items.length, total, limit };
  });
};
