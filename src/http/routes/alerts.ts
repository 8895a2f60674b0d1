// Alerts, the floor wallboard and the intelligence run: what managers act on.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { DocumentStore } from '../../adapters/store/store.js';
import * as AccountStats from '../../projector/models/account-stats/queries.js';
import { ReadModelSet } from '../../projector/read-model-set.js';
import { mergeAlerts, withStatus, type MergedAlert } from '../../intelligence/alert-merge.js';
import type { IntelligenceSetup } from '../../intelligence/index.js';
import { openNowOf, waitingNowOf } from '../../queries/reports.js';
import { chattersOf } from '../../projector/models/report-buckets/figures.js';
import { chatterIdOf } from '../../projector/models/report-buckets/keys.js';
import { actorOf, canSee } from '../../access/access-model.js';
import { requestScope } from '../access.js';
import { ApiError } from '../errors.js';
import { accountFilter } from '../scope.js';
import { iso } from '../views.js';
import { LiveCache } from '../live-cache.js';

export const INTELLIGENCE_RUN_MAX = 20;

export interface AlertRouteOptions {
  readonly store: DocumentStore;
  readonly setup: IntelligenceSetup;
  readonly now?: () => number;
  /** Shares the floor's answers between wallboards polling at once. */
  readonly liveCache?: LiveCache;
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
  const live = opts.liveCache ?? new LiveCache(0);

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
  }, async (request) => live.answer(request, async () => {
    const now = clock();
    const rm = await models.active();
    const signedIn = request.principal.kind !== 'anonymous';
    const inScope = accountFilter(request, undefined);
    const threshold = settings.thresholdSec;
    const [live, waiting, seen, alerts] = await Promise.all([
      openNowOf(rm, inScope),
      waitingNowOf(rm, inScope, threshold, now),
      AccountStats.accountIds(rm, inScope),
      merged(request, now, { status: { $in: ['open', 'acked'] } }),
    ]);
    const openAlerts = alerts.filter((a) => a.status === 'open');
    const breached = waiting.filter((x) => x.state === 'breached');
    const accountIds = [...new Set([...seen, ...live.keys()])].sort();
    const accounts = accountIds.map((id) => {
      const l = live.get(id);
      return { id, open: l?.open ?? 0, awaiting: l?.awaiting ?? 0, breached: breached.filter((x) => x.accountId === id).length, openAlerts: openAlerts.filter((x) => x.accountId === id).length };
    });
    // Chatters with open sessions (by the latest human reply), summed over accounts.
    const perChatter = new Map<string, { open: number; awaiting: number }>();
    for (const l of live.values()) {
      for (const [key, c] of chattersOf(l)) {
        const id = chatterIdOf(key);
        if (id === null || (c.open ?? 0) <= 0) continue;
        const row = perChatter.get(id) ?? { open: 0, awaiting: 0 };
        row.open += c.open ?? 0;
        row.awaiting += c.awaiting ?? 0;
        perChatter.set(id, row);
      }
    }
    const chatters = [...perChatter.keys()].sort().map((id) => ({
      id, openSessions: perChatter.get(id)?.open ?? 0, awaiting: perChatter.get(id)?.awaiting ?? 0,
      breached: breached.filter((x) => x.chatterId === id).length, openAlerts: openAlerts.filter((x) => x.chatterId === id).length,
    }));
    const severity = { critical: 0, warning: 0, info: 0 };
    for (const a of openAlerts) severity[a.severity]++;
    return {
      at: iso(now),
      thresholdSec: settings.thresholdSec,
      totals: { open: accounts.reduce((n, a) => n + a.open, 0), awaiting: accounts.reduce((n, a) => n + a.awaiting, 0), breached: breached.length, severity },
      accounts,
      chatters,
      topAlerts: signedIn ? openAlerts.slice(0, 10).map(alertView) : openAlerts.slice(0, 10).map(publicAlertView),
      view: signedIn ? 'full' : 'public',
    };
  }));
};
