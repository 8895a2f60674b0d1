// Alerts, the floor wallboard and the intelligence run: what managers act on.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { DocumentStore } from '../../adapters/store/store.js';
import { ReadModelSet } from '../../projector/read-model-set.js';
import { mergeAlerts, withStatus, type MergedAlert } from '../../intelligence/alert-merge.js';
import type { IntelligenceSetup } from '../../intelligence/index.js';
import { accountTotals } from '../../queries/accounts.js';
import { actorOf, canSee } from '../../access/access-model.js';
import { requestScope } from '../access.js';
import { ApiError } from '../errors.js';
import { accountFilter } from '../scope.js';
import { iso } from '../views.js';

export const INTELLIGENCE_RUN_MAX = 20;

export interface AlertRouteOptions {
  readonly store: DocumentStore;
  readonly setup: IntelligenceSetup;
  readonly now?: () => number;
}

export function alertView(a: MergedAlert) {
  return {
    id: a._id, ruleId: a.ruleId, ruleVersion: a.ruleVersion, severity: a.severity, status: a.status, reason: a.reason,
    recommendation: a.recommendation, labels: a.labels, sessionId: a.sessionId, accountId: a.accountId, chatId: a.chatId,
    chatterId: a.chatterId, openedAt: iso(a.openedAt), updatedAt: iso(a.updatedAt), ackedAt: iso(a.ackedAt), ackedBy: a.ackedBy,
    resolvedAt: iso(a.resolvedAt), origin: a.origin,
  };
}

/**
 * The floor's public face: it hangs on a wall and may be read by anyone, so it names accounts
 * and chatters but no fan (no chat or session id, no reason, which quotes fans) and no text.
 */
export function publicAlertView(a: MergedAlert) {
  return { ruleId: a.ruleId, severity: a.severity, status: a.status, accountId: a.accountId, chatterId: a.chatterId, openedAt: iso(a.openedAt) };
}

export const alertRoutes: FastifyPluginAsyncTypebox<AlertRouteOptions> = async (app, opts) => {
  const models = new ReadModelSet(opts.store);
  const { intelligence, settings } = opts.setup;
  const clock = opts.now ?? Date.now;

  /** Stored alerts merged with live findings, only of the accounts the caller may see. */
  const merged = async (request: FastifyRequest, now: number, storedFilter: Record<string, unknown>): Promise<MergedAlert[]> => {
    const scope = requestScope(request);
    const inScope = accountFilter(request, undefined);
    const [stored, live] = await Promise.all([
      intelligence.alerts.find({ ...storedFilter, ...inScope }, { sort: { openedAt: -1 }, limit: 5000 }),
      intelligence.liveFindings(now, inScope),
    ]);
    return mergeAlerts(stored, live, now).filter((a) => canSee(scope, a.accountId));
  };

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
        sessionId: a.sessionId, labels: a.rules.labels, alerts: a.rules.alertIds, recommendations: a.rules.recommendations,
        model: a.model ? { model: a.model.model, promptVersion: a.model.promptVersion, labels: a.model.labels } : null, modelError: a.modelError,
      })),
    };
  });

  app.get('/api/floor', {
    config: { access: 'public', rateClass: 'floor' },
    schema: { summary: 'The floor wallboard: accounts, chatters, totals (open, awaiting, severity) and top alerts. Public and rate-limited: without a key its alerts carry no fan ids and no text; with one, full alerts of the key\'s accounts' },
  }, async (request) => {
    const now = clock();
    const rm = await models.active();
    const signedIn = request.principal.kind !== 'anonymous';
    const inScope = accountFilter(request, undefined);
    const [open, stats, alerts] = await Promise.all([
      rm.sessions.find({ status: 'open', ...inScope }, { projection: { accountId: 1, awaiting: 1, waitingSince: 1, lastHumanChatterId: 1 } }),
      rm.account_stats.find(inScope),
      merged(request, now, { status: { $in: ['open', 'acked'] } }),
    ]);
    const openAlerts = alerts.filter((a) => a.status === 'open');
    const breached = (s: { awaiting: boolean; waitingSince: number | null }) => s.awaiting && s.waitingSince !== null && (now - s.waitingSince) / 1000 > settings.thresholdSec;
    const accounts = accountTotals(stats).map((a) => {
      const mine = open.filter((s) => s.accountId === a.accountId);
      return { id: a.accountId, open: mine.length, awaiting: mine.filter((s) => s.awaiting).length, breached: mine.filter(breached).length, openAlerts: openAlerts.filter((x) => x.accountId === a.accountId).length };
    });
    const chatterIds = [...new Set(open.map((s) => s.lastHumanChatterId).filter((c): c is string => c !== null))].sort();
    const chatters = chatterIds.map((id) => {
      const mine = open.filter((s) => s.lastHumanChatterId === id);
      return { id, openSessions: mine.length, awaiting: mine.filter((s) => s.awaiting).length, breached: mine.filter(breached).length, openAlerts: openAlerts.filter((x) => x.chatterId === id).length };
    });
    const severity = { critical: 0, warning: 0, info: 0 };
    for (const a of openAlerts) severity[a.severity]++;
    return {
      at: iso(now),
      thresholdSec: settings.thresholdSec,
      totals: { open: open.length, awaiting: open.filter((s) => s.awaiting).length, breached: open.filter(breached).length, severity },
      accounts,
      chatters,
      topAlerts: signedIn ? openAlerts.slice(0, 10).map(alertView) : openAlerts.slice(0, 10).map(publicAlertView),
      view: signedIn ? 'full' : 'public',
    };
  });
};
