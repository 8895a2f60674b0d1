// GET /api/sessions/:id/explain: why a session's figures are what they are (issue 55). The
// chat's records are decided again by the processor's own round (../../read-side/explain.ts),
// so the answer names, per figure, the session event that set it and the inbound record that
// caused it, and the chart's steps that moved the session, under the definitions in force.
import type { DefinitionsStore } from '../../definitions/definitions-store.js';
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { LogReadTimeoutError } from '../../adapters/log/log.js';
import * as Sessions from '../../read-models/sessions/queries.js';
import type { ReadModelSet } from '../../read-models/read-model-set.js';
import { explainSession, type ExplainDeps, type RecordRef } from '../../read-side/explain.js';
import { ApiError, errorResponses } from '../errors.js';
import { assertVisible } from '../scope.js';
import { iso, Nullable, Time } from '../views.js';

export interface ExplainRouteOptions {
  readonly models: ReadModelSet;
  readonly definitions: DefinitionsStore;
  readonly explain: ExplainDeps;
}

const RecordSchema = Type.Object({
  partition: Type.Integer({ minimum: 0 }),
  offset: Type.Integer({ minimum: 0 }),
  receivedAt: Time,
  event: Type.String({ description: 'the platform\'s event name, or `tick` for a clock tick' }),
  source: Type.String({ description: 'webhook, connector, backfill, demo, tick, admin' }),
  input: Nullable(Type.Object({
    type: Type.String({ description: 'what the record became: chat.message, chat.payment, chat.tick, …' }),
    id: Nullable(Type.String({ description: 'the platform\'s message or transaction id' })),
    at: Nullable(Time),
  })),
}, { description: 'an inbound record, by its place in the log' });

const Credit = Type.Object({
  chatterId: Nullable(Type.String()),
  messageId: Nullable(Type.String({ description: 'the message the credit rests on' })),
  rule: Type.String({ description: 'last-message, ppv-sender, campaign or none' }),
});

const ExplainSchema = Type.Object({
  sessionId: Type.String(),
  chatKey: Type.String(),
  definitions: Type.Object({
    version: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: 'the definitions version these are (GET /api/admin/definitions); null when no processor has recorded them' }),
    sessionIdleSec: Type.Integer(), allowedLatenessSec: Type.Integer(), unansweredCloseSec: Type.Integer(), attributionLookbackSec: Type.Integer(),
  }, { description: 'the definitions the figures were decided under' }),
  figures: Type.Array(Type.Object({
    figure: Type.String({ description: 'a field of the session (as GET /api/sessions/:id names it)' }),
    value: Type.Unknown({ description: 'its value, as the chat\'s records decide it again (times as ISO strings)' }),
    event: Nullable(Type.Object({ id: Type.String(), type: Type.String(), at: Time }, { description: 'the session event that last set it' })),
    record: Nullable(RecordSchema),
  })),
  steps: Type.Array(Type.Object({
    record: Nullable(RecordSchema),
    input: Type.String({ description: 'what the record was to the chart' }),
    stateBefore: Type.Unknown({ description: 'the chart\'s state before the step' }),
    stateAfter: Type.Unknown({ description: 'the chart\'s state after it' }),
    events: Type.Array(Type.Object({ id: Type.String(), type: Type.String() })),
  }), { description: 'the chart\'s steps that moved this session, in order' }),
  payments: Type.Array(Type.Object({
    paymentId: Type.String(),
    kind: Type.String({ description: 'tip, ppv, subscription, …' }),
    grossCents: Type.Integer(),
    paidAt: Time,
    credits: Type.Object({
      session: Nullable(Type.String({ description: 'the session model: the session\'s last human reply before the payment' })),
      sender: Nullable(Credit),
      converter: Nullable(Credit),
      reassignedTo: Nullable(Type.String({ description: 'a manager\'s reassignment, which every model credits' })),
    }, { description: 'who each attribution model credits (the shift model reads the clock intervals at report time)' }),
    record: Nullable(RecordSchema),
    creditedBy: Nullable(Type.Object({ event: Type.Object({ id: Type.String(), type: Type.String(), at: Time }), record: Nullable(RecordSchema) }, { description: 'the event that last moved its credit, and its record' })),
  }), { description: 'the payments the session holds (its revenue)' }),
  recordsRead: Type.Integer({ minimum: 0, description: 'inbound records read again: the chat\'s own and its partition\'s clock ticks, from its first record' }),
  agrees: Type.Boolean({ description: 'the session decided again equals the stored one' }),
  differences: Type.Array(Type.Object({ field: Type.String(), stored: Type.Unknown(), derived: Type.Unknown() })),
});

const TIME_FIGURES = new Set(['openedAt', 'closedAt', 'waitingSince', 'firstFanMessageAt', 'firstResponseAt', 'lastMessageAt', 'closesAt']);
const shown = (figure: string, v: unknown): unknown => (TIME_FIGURES.has(figure) && typeof v === 'number' ? iso(v) : v);
const recordView = (r: RecordRef | null) => (r === null ? null : {
  partition: r.partition, offset: r.offset, receivedAt: iso(r.receivedAt), event: r.event, source: r.source,
  input: r.input === null ? null : { type: r.input.type, id: r.input.id, at: r.input.at === null ? null : iso(r.input.at) },
});

export const explainRoutes: FastifyPluginAsyncTypebox<ExplainRouteOptions> = async (app, opts) => {
  app.get('/api/sessions/:id/explain', {
    config: { rateClass: 'report' },
    schema: {
      summary: 'Why a session\'s figures are what they are: each figure with the session event that set it and the inbound record behind that event, and the chart\'s steps, decided again from the log as the processor decides',
      params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 200, description: 'session id' }) }),
      response: { 200: ExplainSchema, ...errorResponses('NOT_FOUND', 'GONE', 'UNPROCESSABLE', 'NOT_READY') },
    },
  }, async (request) => {
    const { id } = request.params;
    const rm = await opts.models.active();
    const session = await Sessions.byId(rm, id);
    if (!session) throw new ApiError('NOT_FOUND', `id: no session ${id}`);
    assertVisible(request, session.accountId, `id: no session ${id}`);
    let outcome;
    try {
      outcome = await explainSession(opts.explain, session);
    } catch (err) {
      if (err instanceof LogReadTimeoutError) throw new ApiError('NOT_READY', 'log: reading the chat\'s records again did not finish in time');
      throw err;
    }
    switch (outcome.kind) {
      case 'unknown-chat': throw new ApiError('NOT_FOUND', `id: the chat of session ${id} has no state the processor stored (purged, or not processed yet)`);
      case 'records-gone': throw new ApiError('GONE', `id: ${outcome.missing} of the chat's inbound records (offsets ${outcome.from}–${outcome.to - 1}) are past the log's retention; the session cannot be explained without guessing`);
      case 'too-long': throw new ApiError('UNPROCESSABLE', `id: explaining this session reads ${outcome.records} records of its partition again, more than the ${outcome.limit} this log reads again within a request`);
      case 'explained': break;
    }
    const e = outcome.explanation;
    return {
      sessionId: e.sessionId, chatKey: e.chatKey, definitions: { version: await opts.definitions.versionOf(e.definitions), ...e.definitions },
      figures: e.figures.map((f) => ({ figure: f.figure, value: shown(f.figure, f.value), event: f.event === null ? null : { id: f.event.id, type: f.event.type, at: iso(f.event.at) }, record: recordView(f.record) })),
      steps: e.steps.map((s) => ({ record: recordView(s.record), input: s.input, stateBefore: s.stateBefore, stateAfter: s.stateAfter, events: s.events.map((x) => ({ id: x.id, type: x.type })) })),
      payments: e.payments.map((p) => ({
        paymentId: p.paymentId, kind: p.kind, grossCents: p.grossCents, paidAt: iso(p.paidAt), credits: p.credits, record: recordView(p.record),
        creditedBy: p.creditedBy === null ? null : { event: { id: p.creditedBy.event.id, type: p.creditedBy.event.type, at: iso(p.creditedBy.event.at) }, record: recordView(p.creditedBy.record) },
      })),
      recordsRead: e.recordsRead, agrees: e.agrees,
      differences: e.differences.map((d) => ({ field: d.field, stored: shown(d.field, d.stored), derived: shown(d.field, d.derived) })),
    };
  });
};
