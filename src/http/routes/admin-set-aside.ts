// GET /api/admin/set-aside: records the processor (or events the projector) set aside because
// a step threw on them, newest first, so an operator can see what was not processed and why.
// Only what was stored: the error message and a bounded prefix of the body, never more.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { DocumentStore } from '../../adapters/store/store.js';
import { SET_ASIDE_COLLECTION, type SetAsideDoc } from '../../processor/set-aside.js';
import { ApiError } from '../errors.js';
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

  // One record, read in full (what the list shows, one at a time), and its removal once an
  // operator has dealt with it: health stays degraded while any is kept.
  const params = Type.Object({ id: Type.String({ minLength: 1, maxLength: 600, description: 'the id the list gives (`<topic>:<partition>:<offset>[|<chat key>]`)' }) });

  app.get('/api/admin/set-aside/:id', {
    ...(opts.adminGuard ? { onRequest: opts.adminGuard } : {}),
    schema: { summary: 'One set-aside record: stage, position, error and body prefix', security: [{ adminToken: [] }], params },
  }, async (request) => {
    const doc = await docs.findOne({ _id: request.params.id });
    if (!doc) throw new ApiError('NOT_FOUND', `id: no set-aside record ${request.params.id.slice(0, 200)}`);
    return setAsideView(doc);
  });

  app.delete('/api/admin/set-aside/:id', {
    ...(opts.adminGuard ? { onRequest: opts.adminGuard } : {}),
    schema: { summary: 'Drop a set-aside record an operator has dealt with (the record stays in the log; it is not processed again)', security: [{ adminToken: [] }], params },
  }, async (request) => {
    const removed = await docs.deleteMany({ _id: request.params.id });
    if (removed === 0) throw new ApiError('NOT_FOUND', `id: no set-aside record ${request.params.id.slice(0, 200)}`);
    return { dropped: request.params.id };
  });
};
