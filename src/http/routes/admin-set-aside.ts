// GET /api/admin/set-aside: records the processor (or events the projector) set aside because
// a step threw on them, newest first, so an operator can see what was not processed and why.
// Only what was stored: the error message and a bounded prefix of the body, never more. One
// can be inspected, dropped, or retried: put back into processing as new work (see the retry).
import { Type, type FastifyPluginAsyncTypebox, type Static } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { LogReadTimeoutError, TopicNotFoundError, type AppendResult, type Log, type LogRecord } from '../../adapters/log/log.js';
import { H, withoutCarriedInput } from '../../domain/inbound-record.js';
import type { SetAsideRecords } from '../../pipeline/set-aside-records.js';
import { RETRY_OF_HEADER, setAsideId, type SetAsideDoc } from '../../pipeline/set-aside.js';
import type { Topology } from '../../topology.js';
import { ApiError, errorResponses } from '../errors.js';
import { iso, Time } from '../views.js';

export interface AdminSetAsideOptions {
  readonly setAside: SetAsideRecords;
  /** Where a retry reads the original record and appends its copy. */
  readonly log: Log;
  readonly topology: Topology;
  /** Used as the route's onRequest hook; omit where an access hook guards `/api/admin/*` already. */
  readonly adminGuard?: (request: FastifyRequest) => Promise<void>;
}

const LIMIT = { default: 50, max: 500 } as const;

const SetAsideSchema = Type.Object({
  id: Type.String({ description: '`<topic>:<partition>:<offset>`, with `|<chat key>` for a clock tick\'s' }),
  stage: Type.Union([Type.Literal('normalise'), Type.Literal('step'), Type.Literal('fold'), Type.Literal('write'), Type.Literal('conflict')], { description: 'the step that threw on it (or `conflict`: an event id seen again with other content)' }),
  topic: Type.String(),
  partition: Type.Integer({ minimum: 0 }),
  offset: Type.Integer({ minimum: 0 }),
  chatKey: Type.Union([Type.String(), Type.Null()]),
  event: Type.Union([Type.String(), Type.Null()], { description: 'the inbound event name or the session event type' }),
  error: Type.String({ description: 'the error\'s message only' }),
  receivedAt: Time,
  setAsideAt: Time,
  body: Type.Object({
    encoding: Type.Union([Type.Literal('utf8'), Type.Literal('base64')]),
    prefix: Type.String({ description: 'the first 4 KB of the body' }),
    bytes: Type.Integer({ minimum: 0 }),
    truncated: Type.Boolean(),
  }),
  retryOf: Type.Union([Type.String(), Type.Null()], { description: 'the set-aside record this one retried' }),
});

function setAsideView(d: SetAsideDoc): Static<typeof SetAsideSchema> {
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
    retryOf: d.retryOf ?? null,
  };
}

export const adminSetAsideRoutes: FastifyPluginAsyncTypebox<AdminSetAsideOptions> = async (app, opts) => {
  const records = opts.setAside;

  app.get('/api/admin/set-aside', {
    ...(opts.adminGuard ? { onRequest: opts.adminGuard } : {}),
    schema: {
      summary: 'Records and events set aside because a processing step threw on them, newest first (error message and a body prefix of at most 4 KB)',
      security: [{ adminToken: [] }],
      querystring: Type.Object({
        limit: Type.Integer({ minimum: 1, maximum: LIMIT.max, default: LIMIT.default, description: `rows to return (default ${LIMIT.default}, max ${LIMIT.max})` }),
      }, { additionalProperties: false }),
      response: { 200: Type.Object({ items: Type.Array(SetAsideSchema), count: Type.Integer({ minimum: 0 }), total: Type.Integer({ minimum: 0 }), limit: Type.Integer({ minimum: 1 }) }) },
    },
  }, async (request) => {
    const { limit } = request.query;
    const { items, total } = await records.newest(limit);
    return { items: items.map(setAsideView), count: items.length, total, limit };
  });

  // One record, read in full (what the list shows, one at a time), and its removal once an
  // operator has dealt with it: health stays degraded while any is kept.
  const params = Type.Object({ id: Type.String({ minLength: 1, maxLength: 600, description: 'the id the list gives (`<topic>:<partition>:<offset>[|<chat key>]`)' }) });

  app.get('/api/admin/set-aside/:id', {
    ...(opts.adminGuard ? { onRequest: opts.adminGuard } : {}),
    schema: { summary: 'One set-aside record: stage, position, error and body prefix', security: [{ adminToken: [] }], params, response: { 200: SetAsideSchema } },
  }, async (request) => {
    const doc = await records.get(request.params.id);
    if (!doc) throw new ApiError('NOT_FOUND', `id: no set-aside record ${request.params.id.slice(0, 200)}`);
    return setAsideView(doc);
  });

  app.delete('/api/admin/set-aside/:id', {
    ...(opts.adminGuard ? { onRequest: opts.adminGuard } : {}),
    schema: {
      summary: 'Drop a set-aside record an operator has dealt with (the record stays in the log; it is not processed again)',
      security: [{ adminToken: [] }],
      params,
      response: { 200: Type.Object({ dropped: Type.String({ description: 'the id removed' }) }) },
    },
  }, async (request) => {
    if (!(await records.remove(request.params.id, alertFailed(request)))) throw new ApiError('NOT_FOUND', `id: no set-aside record ${request.params.id.slice(0, 200)}`);
    return { dropped: request.params.id };
  });

  const alertFailed = (request: FastifyRequest) => (err: unknown): void => request.log.warn({ err }, 'the set-aside alert could not be settled; the alert sweep will');

  // A retry puts an inbound record back into processing at its stage, as new work: its original
  // (the document keeps 4 KB of it) is read from the log and appended again to the same topic
  // and partition with the same key, plus a header naming what it retries. At its new offset the
  // processor takes it as a record it has not seen (a redelivery is one at or below the offset
  // its chat's state holds), and its ids pass the chat's dedupe ledger, which never took the ids
  // of a record set aside; the events it yields carry the new position as their source, which
  // the totals and report buckets have not applied. So its effects land once. Its set-aside
  // record is removed once the copy is in the log; if the copy fails again, it is set aside under
  // its own position, with `retryOf` naming this one.
  const tickRefusal = (shown: string): ApiError => new ApiError('CONFLICT',
    `id: ${shown} is a clock tick's; a tick is not retried: the chat's next record steps it again and sets its deadline afresh, and the ticks after that settle it. Drop it once its cause is dealt with`);

  app.post('/api/admin/set-aside/:id/retry', {
    ...(opts.adminGuard ? { onRequest: opts.adminGuard } : {}),
    schema: {
      summary: 'Retry a set-aside inbound record: its original is read from the log and appended again as new work (same key and partition, header convops-retry-of), and its set-aside record removed; a copy that fails again is set aside under its new position with `retryOf`. 409 for a clock tick, a session event (rebuild with a replay) or a record the log no longer holds',
      security: [{ adminToken: [] }],
      params,
      response: {
        202: Type.Object({
          retried: Type.String({ description: 'the set-aside record retried (removed)' }),
          topic: Type.String(),
          partition: Type.Integer({ minimum: 0 }),
          offset: Type.Integer({ minimum: 0, description: 'where the copy was appended' }),
          id: Type.String({ description: 'the id the copy is set aside under if it fails again' }),
        }),
        ...errorResponses('INVALID_INPUT', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'RATE_LIMITED', 'NOT_READY'),
      },
    },
  }, async (request, reply) => {
    const { id } = request.params;
    const shown = id.slice(0, 200);
    const doc = await records.get(id);
    if (!doc) throw new ApiError('NOT_FOUND', `id: no set-aside record ${shown}`);
    if (doc._id.includes('|')) throw tickRefusal(shown);
    if (doc.topic !== opts.topology.inbound) {
      // Read models skip an event by its chat's sequence and by its source position, both of
      // which later events have moved past: a copy appended now would apply only in part.
      throw new ApiError('CONFLICT', `id: ${shown} is a session event the projector set aside (stage ${doc.stage}); it is not appended again, because the read models have moved past its sequence and source, so a copy would apply only in part. Once its fold is fixed, POST /api/admin/replay rebuilds the read models from the log with it in place; then drop it`);
    }
    let original: LogRecord | null;
    try {
      original = await opts.log.readRecord(doc.topic, doc.partition, doc.offset);
    } catch (err) {
      if (err instanceof LogReadTimeoutError) throw new ApiError('NOT_READY', `log: reading ${shown} did not finish in time; nothing was retried`);
      if (!(err instanceof TopicNotFoundError)) throw err;
      original = null;
    }
    if (!original) {
      throw new ApiError('CONFLICT', `id: the log no longer holds ${doc.topic}:${doc.partition}:${doc.offset} (its retention removed it, or the log was recreated), so it cannot be retried; drop it`);
    }
    if (original.headers[H.source] === 'tick') throw tickRefusal(shown);

    // One retry at a time per record: two at once would append two copies.
    const now = Date.now();
    const claim = await records.claimRetry(id, now);
    if (claim === 'gone') throw new ApiError('NOT_FOUND', `id: no set-aside record ${shown}`);
    if (claim === 'busy') throw new ApiError('CONFLICT', `id: a retry of ${shown} is under way`);
    let at: AppendResult | undefined;
    try {
      [at] = await opts.log.append(doc.topic, [{
        key: original.key, value: original.value, headers: { ...withoutCarriedInput(original.headers), [RETRY_OF_HEADER]: id }, partition: original.partition,
      }]);
    } catch (err) {
      request.log.error({ err, id }, 'set-aside retry: the append failed; the record stays set aside');
      await records.releaseRetry(id, now).catch(() => undefined);
      throw new ApiError('NOT_READY', `log: appending the copy of ${shown} failed; nothing was retried, try again`);
    }
    if (!at) throw new Error('the log answered no position for the appended copy');
    await records.remove(id, alertFailed(request), now);
    request.log.warn({ id, partition: at.partition, offset: at.offset }, 'set-aside record retried: appended again as new work');
    return reply.status(202).send({ retried: id, topic: doc.topic, partition: at.partition, offset: at.offset, id: setAsideId(doc.topic, at.partition, at.offset) });
  });
};
