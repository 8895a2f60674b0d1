// Alerts, the floor wallboard and the intelligence run: what managers act on.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type {} from '../../adapters/store/store.js';
import { withStatus, type MergedAlert } from '../../intelligence/alert-merge.js';
import type { IntelligenceSetup } from '../../intelligence/index.js';
import { actorOf, canSee, type ReadAuth } from '../../access/access-model.js';
import { requestScope } from '../access.js';
import { ApiError, errorResponses } from '../errors.js';
import { accountFilter } from '../scope.js';
import { LiveCache } from '../live-cache.js';
import { Count } from '../views.js';
import { floorViewer, type FloorView } from '../../read-side/floor.js';
import { AlertSchema, alertView } from '../alert-views.js';
import { floorAnswer, FloorSnapshotSchema } from '../floor-answer.js';

export const INTELLIGENCE_RUN_MAX = 20;

const AlertListSchema = Type.Object({
  items: Type.Array(AlertSchema),
  count: Count,
  total: Type.Integer({ minimum: 0, description: 'alerts of this status in scope, before the limit' }),
  status: Type.Union([Type.Literal('open'), Type.Literal('acked'), Type.Literal('resolved'), Type.Literal('all')]),
});
const ModelStatusSchema = Type.Union([
  Type.Object({ enabled: Type.Literal(true), model: Type.String() }),
  Type.Object({ enabled: Type.Literal(false), reason: Type.String() }),
], { description: 'whether a model provider runs beside the rules' });
const IntelligenceRunSchema = Type.Object({
  analysed: Count,
  model: ModelStatusSchema,
  sessions: Type.Array(Type.Object({
    sessionId: Type.String(),
    labels: Type.Array(Type.String()),
    alerts: Type.Array(Type.String(), { description: 'ids of the alerts the rules raised' }),
    recommendations: Type.Array(Type.String()),
    model: Type.Union([Type.Object({
      model: Type.String(),
      promptVersion: Type.String(),
      labels: Type.Array(Type.Object({ label: Type.String(), confidence: Type.Number({ minimum: 0, maximum: 1 }) })),
    }), Type.Null()]),
    modelError: Type.Union([Type.String(), Type.Null()]),
  })),
});

export interface AlertRouteOptions {
  readonly floor: FloorView;
  readonly setup: IntelligenceSetup;
  readonly now?: () => number;
  /** IANA zone of the agency's day, for the floor's "today". */
  readonly reportTimezone: string;
  /** Shares the floor's answers between wallboards polling at once. */
  readonly liveCache?: LiveCache;
  /** Without a key the floor names accounts and chatters only while reads are open. */
  readonly readAuth: ReadAuth;
}

export const alertRoutes: FastifyPluginAsyncTypebox<AlertRouteOptions> = async (app, opts) => {
  const { intelligence } = opts.setup;
  // Read at each call, not captured: a clock set for a test (or by a time-travel tool) reaches every route.
  const clock = opts.now ?? ((): number => Date.now());
  const live = opts.liveCache ?? new LiveCache(0);

  const { floor } = opts;
  /** Stored alerts merged with live findings, only of the accounts the caller may see. */
  const merged = (request: FastifyRequest, now: number, storedFilter: Record<string, unknown>): Promise<MergedAlert[]> =>
    floor.alerts(requestScope(request), now, storedFilter);

  app.get('/api/alerts', {
    config: { rateClass: 'report' },
    schema: {
      summary: 'Alerts: stored records merged with live evaluation of waiting fans (stored wins on the same id)',
      querystring: Type.Object({
        status: Type.Union([Type.Literal('open'), Type.Literal('acked'), Type.Literal('resolved'), Type.Literal('all')], { default: 'open', description: 'open (default), acked, resolved or all' }),
        sessionId: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })),
        accountId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        limit: Type.Integer({ minimum: 1, maximum: 500, default: 50, description: 'rows to return (default 50, max 500)' }),
      }, { additionalProperties: false }),
      response: { 200: AlertListSchema },
    },
  }, async (request) => {
    const { status, sessionId, accountId, limit } = request.query;
    const filter: Record<string, unknown> = { ...accountFilter(request, accountId) };
    if (sessionId) filter.sessionId = sessionId;
    const all = withStatus(await merged(request, clock(), filter), status)
      .filter((a) => (!sessionId || a.sessionId === sessionId) && (!accountId || a.accountId === accountId));
    return { items: all.slice(0, limit).map(alertView), count: Math.min(all.length, limit), total: all.length, status };
  });

  app.post('/api/alerts/:id/ack', {
    config: { access: 'manager' },
    schema: {
      summary: 'Acknowledge an alert (stored durably with who and when); idempotent; 404 for an unknown id',
      security: [{ adminToken: [] }],
      params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 400 }) }),
      response: { 200: { ...AlertSchema, description: 'the alert, acknowledged' } },
    },
  }, async (request) => {
    const { id } = request.params;
    const scope = requestScope(request);
    const notFound = new ApiError('NOT_FOUND', `id: no alert ${id}`);
    // Another account's alert is answered like a missing one, before anything is written, and
    // after the same two reads (the live ones only of the caller's accounts), so neither the
    // answer nor its time tells the two apart.
    const [stored, liveInScope] = await Promise.all([
      intelligence.alerts.findOne({ _id: id }),
      intelligence.liveFindings(clock(), accountFilter(request, undefined)),
    ]);
    if (stored && !canSee(scope, stored.accountId)) throw notFound;
    const live = stored ? undefined : liveInScope.find((f) => f.alertId === id);
    const alert = await intelligence.ack(id, actorOf(request.principal), live);
    if (!alert) throw notFound;
    return alertView({ ...alert, origin: 'stored' });
  });

  app.post('/api/admin/intelligence/run', {
    config: { access: 'admin' },
    schema: {
      summary: `Run the rules (and the model provider when configured) for one session, or for up to ${INTELLIGENCE_RUN_MAX} open sessions, most urgent first`,
      security: [{ adminToken: [] }],
      body: Type.Optional(Type.Object({
        sessionId: Type.Optional(Type.String({ minLength: 1, maxLength: 300, description: 'the session to analyse' })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: INTELLIGENCE_RUN_MAX, description: `open sessions to analyse when no sessionId (default and maximum ${INTELLIGENCE_RUN_MAX})` })),
      }, { additionalProperties: false })),
      response: { 200: IntelligenceRunSchema },
    },
  }, async (request) => {
    const body = request.body ?? {};
    const withModel = opts.setup.provider !== null;
    const analyses = body.sessionId
      ? [await intelligence.analyse(body.sessionId, withModel)]
      : await intelligence.analyseOpen(body.limit ?? INTELLIGENCE_RUN_MAX, withModel);
    if (body.sessionId && !analyses[0]) throw new ApiError('NOT_FOUND', `sessionId: no session ${body.sessionId}`);
    const done = analyses.filter((a) => a !== null);
    return {
      analysed: done.length,
      model: opts.setup.model,
      sessions: done.map((a) => ({
        sessionId: a.sessionId, labels: [...a.rules.labels], alerts: [...a.rules.alertIds], recommendations: [...a.rules.recommendations],
        model: a.model ? { model: a.model.model, promptVersion: a.model.promptVersion, labels: a.model.labels } : null, modelError: a.modelError,
      })),
    };
  });

  app.get('/api/floor', {
    config: { access: 'public', rateClass: 'floor' },
    schema: {
      summary: 'The floor wallboard: totals (open, awaiting, severity), accounts, chatters and top alerts. Public and rate-limited. With a key: the key\'s accounts, full alerts. Without one: while reads are open, every account and chatter, alerts without fan ids or text; with READ_AUTH=required, totals only (no account, name or chatter)',
      response: { 200: FloorSnapshotSchema, ...errorResponses('INVALID_INPUT', 'UNAUTHORIZED', 'RATE_LIMITED', 'NOT_READY') },
    },
  }, async (request) => live.answer(request, async () => floorAnswer(await floor.snapshot(floorViewer(requestScope(request), request.principal.kind !== 'anonymous', opts.readAuth), clock()))));
};
