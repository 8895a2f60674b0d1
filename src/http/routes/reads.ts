// The read surface: everything a manager reads. Every query parameter has a schema; every
// list has a documented default and maximum `limit`.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Filter } from '../../adapters/store/store.js';
import * as AccountStats from '../../read-models/account-stats/queries.js';
import * as Chats from '../../read-models/chats/queries.js';
import * as Messages from '../../read-models/messages/queries.js';
import * as Sessions from '../../read-models/sessions/queries.js';
import type { SessionDoc } from '../../read-models/sessions/projection.js';
import { openNowOf, reportClockOf, scorecardOf, slaReportOf, waitingNowOf, windowTotalsOf, type ReportClock, type WindowTotals } from '../../read-models/reports.js';
import { gradeOf, gradeSteps, outcomeOf, withinGradeOf } from '../../domain/sla.js';
import { shownClose } from '../../domain/session-deadline.js';
import { localDay } from '../../domain/zoned-time.js';
import { assertCreditable, ClockParam, isAllTime, parseWindow, WindowParams, WindowSchema, windowOut } from '../report-window.js';
import { LiveCache } from '../live-cache.js';
import type { IntelligenceSetup } from '../../intelligence/index.js';
import { sessionFacts } from '../../intelligence/intelligence.js';
import { mergeAlerts, openAlertsByChatter } from '../../intelligence/alert-merge.js';
import { evaluateSession } from '../../intelligence/rules.js';
import { canSee } from '../../access/access-model.js';
import { requestScope } from '../access.js';
import { ApiError } from '../errors.js';
import { accountFilter, assertVisible } from '../scope.js';
import { accountStatsView, AccountStatsSchema, Cents, ChatSchema, chatView, Count, emptyAccountStats, FanSchema, fanView, iso, MessageSchema, messageView, Nullable, SessionSchema, sessionView, Time } from '../views.js';
import { AlertSchema, alertView } from '../alert-views.js';
import type { ReadSide } from '../../read-side/read-side.js';
import { attribution, CreditModelEcho, CreditModelParam } from './money.js';

export const LIST_LIMIT = { default: 50, max: 500 } as const;

const Limit = Type.Integer({ minimum: 1, maximum: LIST_LIMIT.max, default: LIST_LIMIT.default, description: `rows to return (default ${LIST_LIMIT.default}, max ${LIST_LIMIT.max})` });
const Id = (description: string) => Type.String({ minLength: 1, maxLength: 200, description });
const Threshold = (fallback: number) => Type.Integer({ minimum: 1, maximum: 86400, default: fallback, description: `first-response SLA threshold in seconds (default ${fallback})` });

// What each read answers (the views' schemas are in ../views.ts).
const L = Type.Literal;
const Pct = Nullable(Type.Number({ minimum: 0, maximum: 100 }));
const Seconds = Nullable(Type.Number({ minimum: 0 }));
const WithinGrade = Type.Union([L('no-data'), L('on-target'), L('below'), L('missed')], { description: '`on-target` 90% or more, `below` from 75%, `missed` under it, `no-data` no session judged' });
const WaitGrade = Type.Union([L('ok'), L('at-risk'), L('breached')]);
const ClockFields = {
  clock: Type.Union([L('wall'), L('business')], { description: 'how the waits were measured' }),
  businessHoursAccounts: Type.Array(Type.String(), { description: 'with clock=business: the accounts in scope with business hours now (their sessions measured in open hours by the schedule in force when each changed; an account without one: wall-clock seconds); empty with clock=wall' }),
};
const SlaFiguresSchema = Type.Object({
  sessions: Count,
  responded: Count,
  withinThreshold: Count,
  breaches: Count,
  missed: Type.Integer({ minimum: 0, description: 'closed at the unanswered limit without a human reply' }),
  pending: Type.Integer({ minimum: 0, description: 'open, unanswered, still within the threshold (a session that closed unanswered is a breach)' }),
  withinThresholdPct: Pct,
  medianFirstResponseSec: Seconds,
  p90FirstResponseSec: Seconds,
});

const OverviewSchema = Type.Object({
  accounts: Count,
  chats: Count,
  sessions: Type.Object({ total: Count, open: Type.Integer(), closed: Count, awaiting: Count }),
  messages: Type.Object({ total: Count, fromFans: Count, outbound: Type.Integer() }),
  revenue: Type.Object({ cents: Cents, payments: Count }),
  lateRecords: Nullable(Type.Integer({ minimum: 0, description: 'records later than ALLOWED_LATENESS_SEC (all time only; null over a window)' })),
  window: WindowSchema,
  readModelVersion: Type.Integer(),
});

const StatsSchema = Type.Object({
  at: Time,
  thresholdSec: Count,
  ...ClockFields,
  openSessions: Count,
  awaitingReply: Count,
  longestWaitSec: Count,
  longestWaitGrade: WaitGrade,
  breachedNow: Count,
  atRiskNow: Count,
  today: Type.Object({
    since: Time, until: Time, timezone: Type.String(), sessions: Count, withinThreshold: Count, breaches: Count, missed: Count,
    withinThresholdPct: Pct, withinThresholdGrade: WithinGrade, medianFirstResponseSec: Seconds, revenueCents: Cents,
  }, { description: 'today in REPORT_TIMEZONE' }),
});

const SlaReportSchema = Type.Object({
  ...SlaFiguresSchema.properties,
  thresholdSec: Count,
  byAccount: Type.Array(Type.Object({ accountId: Type.String(), ...SlaFiguresSchema.properties })),
  byChatter: Type.Array(Type.Object({ chatterId: Type.Union([Type.String(), Type.Null()], { description: 'null: the sessions first answered without a named chatter (webhook replies carry none), last' }), ...SlaFiguresSchema.properties }), { description: 'by the chatter of the first reply, named ones by id, then the unnamed ones; unanswered sessions are left out' }),
  withinThresholdGrade: WithinGrade,
  accountId: Nullable(Type.String()),
  window: WindowSchema,
  ...ClockFields,
});

const AccountRowSchema = Type.Object({
  id: Type.String(),
  displayName: Nullable(Type.String()),
  status: Type.String({ description: 'registry status (connected, disconnected, …), or unregistered' }),
  source: Type.String({ description: 'how it became known: webhook, synced, manual, demo' }),
  ...AccountStatsSchema.properties,
  awaiting: Count,
});

export const SessionListSchema = Type.Object({
  items: Type.Array(SessionSchema),
  count: Count,
  limit: Count,
  sort: Type.Union([L('priority'), L('opened')]),
  thresholdSec: Count,
  gradeSteps: Type.Array(Type.Object({ grade: Type.Union([L('at-risk'), L('breached')]), fromSec: Count }), { description: 'the whole seconds of waiting from which each grade holds' }),
});

const AnalysisSchema = Type.Object({
  session: SessionSchema,
  metrics: Type.Object({
    durationSec: Count,
    messageCount: Count,
    fanMessageCount: Count,
    replyCount: Count,
    firstResponseSec: Seconds,
    waitSec: Count,
    slaThresholdSec: Count,
    slaOutcome: Nullable(Type.Union([L('within'), L('breach'), L('pending')])),
    revenueCents: Cents,
    paymentCount: Count,
    fanSpendCents: Nullable(Cents),
  }),
  alerts: Type.Array(AlertSchema),
  labels: Type.Array(Type.Object({
    label: Type.String(),
    source: Type.Union([L('rules'), L('model')]),
    confidence: Type.Number({ minimum: 0, maximum: 1 }),
    model: Type.Optional(Type.String({ description: 'the model that gave a `model` label' })),
    promptVersion: Type.Optional(Type.String({ description: 'the prompt version of a `model` label' })),
  })),
  recommendations: Type.Array(Type.String()),
  summary: Nullable(Type.String({ description: 'the model\'s summary, when a model ran' })),
  analysedAt: Time,
  modelError: Nullable(Type.String()),
  qaFlags: Type.Array(Type.Object({
    messageId: Type.String(),
    sentAt: Time,
    chatterId: Nullable(Type.String()),
    rule: Type.Union([L('off-platform-contact'), L('off-platform-payment'), L('banned-phrase')], { description: 'banned-phrase: one of the account\'s banned phrases (PUT /api/admin/accounts/:id/banned-phrases), by the list in force when the reply was received; `match` is the phrase' }),
    match: Type.String({ description: 'what in the reply made it fire (at most 80 characters)' }),
  }), { description: 'the quality rules that fired on the session\'s direct replies, oldest first (docs/api.md, "Money")' }),
});

const ChatListSchema = Type.Object({ items: Type.Array(ChatSchema), count: Count, limit: Count });
const ChatDetailSchema = Type.Object({
  chatId: Type.String(),
  chats: Type.Array(ChatSchema, { description: 'one per account the fan chats with' }),
  sessions: Type.Array(SessionSchema, { description: 'newest first, at most `limit`' }),
  messages: Type.Array(MessageSchema, { description: 'at most `limit`' }),
  limit: Count,
});
const ChatsSchema = Type.Union([ChatListSchema, ChatDetailSchema], { description: 'without chatId, the list; with it, that chat in detail' });

const FanListSchema = Type.Object({ items: Type.Array(FanSchema), count: Count, limit: Count, sort: Type.Union([L('spend'), L('recent')]) });
const AccountListSchema = Type.Object({ items: Type.Array(AccountRowSchema), count: Count, window: WindowSchema });
const MessageListSchema = Type.Object({ items: Type.Array(MessageSchema), count: Count, limit: Count });

const ScorecardSchema = Type.Object({
  thresholdSec: Count,
  items: Type.Array(Type.Object({
    chatterId: Type.String(),
    displayName: Nullable(Type.String(), 'the chatter\'s record\'s name (PUT /api/admin/chatters/:chatterId); null: none set'),
    sessions: Count,
    revenueCents: Cents,
    paymentCount: Count,
    sla: SlaFiguresSchema,
    openAlerts: Count,
    revenuePerDirectMessageCents: Nullable(Type.Integer({ minimum: 0 }), 'revenue credited ÷ direct messages in the window (as GET /api/conversion); null without a direct message'),
    unlockRatioPct: Nullable(Type.Number({ minimum: 0 }), 'direct PPVs unlocked ÷ sent in the window, percent (as GET /api/conversion)'),
    coachPriority: Type.Integer({ minimum: 0, maximum: 100, description: 'higher: coach first; the sum of coachReasons\' points' }),
    coachReasons: Type.Array(Type.Object({
      kind: Type.Union([L('sla-misses'), L('slow-tail'), L('low-revenue-per-message'), L('low-unlock-ratio'), L('open-alerts')]),
      points: Type.Integer({ minimum: 1, maximum: 40 }),
      text: Type.String(),
    }), { description: 'why the chatter is where they are: the parts of coachPriority, the largest first (see docs/api.md)' }),
  })),
  count: Count,
  unattributed: Type.Object({ sessions: Count, sessionsPct: Pct, revenueCents: Cents, revenuePct: Pct }, { description: 'first answered, or revenue credited, without a named chatter' }),
  window: WindowSchema,
  model: CreditModelEcho,
  ...ClockFields,
});

export interface ReadRouteOptions {
  readonly read: ReadSide;
  readonly slaThresholdSec: number;
  readonly reportTimezone: string;
  /** Shares the live routes' answers between wallboards polling at once. */
  readonly liveCache?: LiveCache;
  readonly setup: IntelligenceSetup;
  /** CLOCK_IDLE_SEC: where a clocked interval ends under the `shift` attribution model. */
  readonly clockIdleSec: number;
  readonly now?: () => number;
}

export const readRoutes: FastifyPluginAsyncTypebox<ReadRouteOptions> = async (app, opts) => {
  const { models, accounts: registry, businessHours, chatters } = opts.read;
  // Read at each call, not captured: a clock set for a test (or by a time-travel tool) reaches every route.
  const clock = opts.now ?? ((): number => Date.now());
  const { intelligence, settings } = opts.setup;
  const live = opts.liveCache ?? new LiveCache(0);

  /** How a report measures waits: wall-clock, or each account's business hours (of the accounts in scope). */
  const reportClock = (kind: ReportClock['kind'], inScope: Filter): Promise<ReportClock> => reportClockOf(businessHours, kind, inScope);
  const clockView = (c: ReportClock) => ({ clock: c.kind, businessHoursAccounts: c.kind === 'business' ? [...c.clocks.keys()].sort() : [] });
  /** Wait rules measure an account with business hours in them, whatever a report asks (as the sweep stores them). */
  const ruleWaits = () => intelligence.waitClock();

  /** Stored and live alerts of one session, its labels (rules and model, with versions) and recommendations. */
  const analysisParts = async (session: SessionDoc, now: number) => {
    const [stored, analysis] = await Promise.all([intelligence.alerts.find({ sessionId: session._id }), intelligence.analyses.findOne({ _id: session._id })]);
    const alerts = mergeAlerts(stored, evaluateSession(sessionFacts(session), now, settings, true, await ruleWaits()), now);
    const ruleLabels = new Set([...(analysis?.rules.labels ?? []), ...alerts.filter((a) => a.status !== 'resolved').flatMap((a) => a.labels)]);
    return {
      alerts: alerts.map(alertView),
      labels: [
        ...[...ruleLabels].sort().map((label) => ({ label, source: 'rules' as const, confidence: 1 })),
        ...(analysis?.model?.labels ?? []).map((l) => ({ label: l.label, source: 'model' as const, confidence: l.confidence, model: analysis?.model?.model, promptVersion: analysis?.model?.promptVersion })),
      ],
      recommendations: [...new Set([...alerts.filter((a) => a.status !== 'resolved').map((a) => a.recommendation), ...(analysis?.model?.recommendations ?? [])])],
      summary: analysis?.model?.summary ?? null,
      analysedAt: iso(analysis?.at ?? null),
      modelError: analysis?.modelError ?? null,
    };
  };

  /** Open alerts (stored and live) of each waiting session among `docs`: a reason for its place in the inbox. */
  const openAlertCounts = async (docs: readonly SessionDoc[], now: number): Promise<Map<string, number>> => {
    const waiting = docs.filter((d) => d.priorityAt !== null);
    if (waiting.length === 0) return new Map();
    const stored = await intelligence.alerts.find({ sessionId: { $in: waiting.map((d) => d._id) }, status: 'open' });
    const waits = await ruleWaits();
    const liveFound = waiting.flatMap((d) => evaluateSession(sessionFacts(d), now, settings, true, waits));
    const out = new Map<string, number>();
    for (const a of mergeAlerts(stored, liveFound, now)) if (a.status === 'open' && a.sessionId) out.set(a.sessionId, (out.get(a.sessionId) ?? 0) + 1);
    return out;
  };

  /** The overview's session counts from a window's totals (a session past its deadline counts closed there). */
  const sessionCounts = (totals: readonly WindowTotals[]) => {
    const total = totals.reduce((n, t) => n + t.sessionsOpened, 0);
    const closed = totals.reduce((n, t) => n + t.sessionsClosed, 0);
    return { total, open: total - closed, closed, awaiting: totals.reduce((n, t) => n + t.awaiting, 0) };
  };
  app.get('/api/overview', {
    config: { rateClass: 'report' },
    schema: {
      summary: 'Session and message aggregates over all accounts (those of a scoped key): all time, or over a window',
      querystring: Type.Object({ ...WindowParams, accountId: Type.Optional(Id('only this account')) }, { additionalProperties: false }),
      response: { 200: OverviewSchema },
    },
  }, async (request) => {
    const rm = await models.active();
    const inScope = accountFilter(request, request.query.accountId);
    const w = parseWindow(request.query, opts.reportTimezone);
    if (!isAllTime(w)) {
      const totals = await windowTotalsOf(rm, w, inScope, clock());
      const sum = (f: (t: WindowTotals) => number) => totals.reduce((n, t) => n + f(t), 0);
      return {
        accounts: totals.length,
        chats: sum((t) => t.chats),
        sessions: sessionCounts(totals),
        messages: { total: sum((t) => t.messages), fromFans: sum((t) => t.fanMessages), outbound: sum((t) => t.messages - t.fanMessages) },
        revenue: { cents: sum((t) => t.revenueCents), payments: sum((t) => t.paymentCount) },
        // Late records are counted per account over all time only.
        lateRecords: null,
        window: await windowOut(w, opts.read.definitions),
        readModelVersion: rm.version,
      };
    }
    // The sessions as the window's totals count them (past their deadline: closed), the rest from the account totals.
    const [accounts, sessions] = await Promise.all([AccountStats.totals(rm, inScope), windowTotalsOf(rm, w, inScope, clock())]);
    const sum = (f: (a: AccountStats.AccountTotals) => number) => accounts.reduce((n, a) => n + f(a), 0);
    return {
      accounts: accounts.length,
      chats: sum((a) => a.chats),
      sessions: sessionCounts(sessions),
      messages: { total: sum((a) => a.messages), fromFans: sum((a) => a.fanMessages), outbound: sum((a) => a.messages - a.fanMessages) },
      revenue: { cents: sum((a) => a.revenueCents), payments: sum((a) => a.paymentCount) },
      // Records that came later than ALLOWED_LATENESS_SEC: counted above, outside any session.
      lateRecords: sum((a) => a.lateRecords ?? 0),
      window: await windowOut(w, opts.read.definitions),
      readModelVersion: rm.version,
    };
  });

  app.get('/api/stats', {
    config: { rateClass: 'report' },
    schema: {
      summary: 'Live analytics: who is waiting now, the longest wait and its grade, SLA breached and at risk (from 80% of the threshold) now, and today (in REPORT_TIMEZONE): % within threshold and its grade, median FRT, revenue',
      querystring: Type.Object({ thresholdSec: Threshold(opts.slaThresholdSec), clock: ClockParam }, { additionalProperties: false }),
      response: { 200: StatsSchema },
    },
  }, async (request) => live.answer(request, async () => {
    const { thresholdSec } = request.query;
    const now = clock();
    const rm = await models.active();
    const inScope = accountFilter(request, undefined);
    const day = localDay(now, opts.reportTimezone);
    const measure = await reportClock(request.query.clock, inScope);
    const [waiting, live, figures, revenue] = await Promise.all([
      waitingNowOf(rm, inScope, thresholdSec, now, measure),
      openNowOf(rm, inScope, now),
      slaReportOf(rm, { from: day.start, to: day.end }, inScope, thresholdSec, now, measure),
      windowTotalsOf(rm, { from: day.start, to: day.end }, inScope, now),
    ]);
    const longest = waiting.reduce((m, x) => Math.max(m, x.waitSec), 0);
    return {
      at: iso(now),
      thresholdSec,
      ...clockView(measure),
      openSessions: [...live.values()].reduce((n, l) => n + (l.open ?? 0), 0),
      awaitingReply: waiting.length,
      longestWaitSec: longest,
      longestWaitGrade: gradeOf(longest, thresholdSec),
      breachedNow: waiting.filter((x) => x.grade === 'breached').length,
      atRiskNow: waiting.filter((x) => x.grade === 'at-risk').length,
      today: {
        since: iso(day.start),
        until: iso(day.end),
        timezone: opts.reportTimezone,
        sessions: figures.sessions,
        withinThreshold: figures.withinThreshold,
        breaches: figures.breaches,
        missed: figures.missed,
        withinThresholdPct: figures.withinThresholdPct,
        withinThresholdGrade: withinGradeOf(figures.withinThresholdPct),
        medianFirstResponseSec: figures.medianFirstResponseSec,
        revenueCents: revenue.reduce((n, t) => n + t.revenueCents, 0),
      },
    };
  }));

  app.get('/api/sla', {
    config: { rateClass: 'report' },
    schema: {
      summary: 'First-response SLA report over sessions whose first fan message falls in the window: count, % within threshold, median and p90 FRT, breaches, by account and by chatter',
      querystring: Type.Object({
        thresholdSec: Threshold(300),
        accountId: Type.Optional(Id('only this account')),
        ...WindowParams,
        clock: ClockParam,
      }, { additionalProperties: false }),
      response: { 200: SlaReportSchema },
    },
  }, async (request) => {
    const { thresholdSec, accountId } = request.query;
    const w = parseWindow(request.query, opts.reportTimezone);
    const inScope = accountFilter(request, accountId);
    const measure = await reportClock(request.query.clock, inScope);
    const report = await slaReportOf(await models.active(), w, inScope, thresholdSec, clock(), measure);
    return {
      ...report, byAccount: [...report.byAccount], byChatter: [...report.byChatter], withinThresholdGrade: withinGradeOf(report.withinThresholdPct), accountId: accountId ?? null, window: await windowOut(w, opts.read.definitions),
      ...clockView(measure),
    };
  });

  app.get('/api/fans', {
    schema: {
      summary: 'Fan CRM: one row per fan and account, with lifetime spend when known, highest spend first',
      querystring: Type.Object({
        accountId: Type.Optional(Id('only fans of this account')),
        ofUserId: Type.Optional(Id("the fan's platform user id")),
        sort: Type.Union([Type.Literal('spend'), Type.Literal('recent')], { default: 'spend', description: 'spend (default) or recent activity' }),
        limit: Limit,
      }, { additionalProperties: false }),
      response: { 200: FanListSchema },
    },
  }, async (request) => {
    const { accountId, ofUserId, sort, limit } = request.query;
    const inScope = accountFilter(request, accountId);
    const docs = await Chats.fans(await models.active(), inScope, ofUserId, sort, limit);
    return { items: docs.map(fanView), count: docs.length, limit, sort };
  });

  app.get('/api/accounts', {
    config: { rateClass: 'report' },
    schema: {
      summary: 'Accounts seen by the pipeline (those of a scoped key), with session statistics: all time, or over a window',
      querystring: Type.Object({ ...WindowParams, accountId: Type.Optional(Id('only this account')) }, { additionalProperties: false }),
      response: { 200: AccountListSchema },
    },
  }, async (request) => {
    const rm = await models.active();
    const { accountId } = request.query;
    const inScope = accountFilter(request, accountId);
    const scope = requestScope(request);
    const w = parseWindow(request.query, opts.reportTimezone);
    const [stats, live, windowed, registry_] = await Promise.all([
      AccountStats.totals(rm, inScope),
      openNowOf(rm, inScope, clock()),
      isAllTime(w) ? Promise.resolve(null) : windowTotalsOf(rm, w, inScope, clock()),
      registry.all(),
    ]);
    const registered = new Map(registry_.filter((a) => canSee(scope, a._id) && (!accountId || a._id === accountId)).map((a) => [a._id, a]));
    const totals = new Map(stats.map((a) => [a.accountId, a]));
    const inWindow = new Map((windowed ?? []).map((t) => [t.accountId, t]));
    const ids = [...new Set([...registered.keys(), ...totals.keys(), ...inWindow.keys()])].sort();
    const items = ids.map((id) => {
      const r = registered.get(id);
      const t = totals.get(id);
      const base = { id, displayName: r?.displayName ?? null, status: r?.status ?? 'unregistered', source: r?.source ?? 'webhook', ...(t ? accountStatsView(t) : emptyAccountStats()) };
      // Open now as every route counts it (past their deadline, sessions are closed).
      if (!windowed) return { ...base, openSessions: live.has(id) ? (live.get(id)?.open ?? 0) : base.openSessions, awaiting: live.get(id)?.awaiting ?? 0 };
      const x = inWindow.get(id);
      return {
        ...base, chats: x?.chats ?? 0, sessions: x?.sessionsOpened ?? 0, openSessions: (x?.sessionsOpened ?? 0) - (x?.sessionsClosed ?? 0),
        messages: x?.messages ?? 0, fanMessages: x?.fanMessages ?? 0, revenueCents: x?.revenueCents ?? 0, paymentCount: x?.paymentCount ?? 0, awaiting: x?.awaiting ?? 0,
      };
    });
    return { items, count: items.length, window: await windowOut(w, opts.read.definitions) };
  });

  app.get('/api/sessions', {
    schema: {
      summary: 'Sessions: the priority inbox (waiting fans by priority score, then the rest by last message) or the recency view. A waiting fan\'s session carries its wait and the wait\'s grade; `gradeSteps` names the whole seconds of waiting from which each grade holds, for timers that keep counting',
      querystring: Type.Object({
        limit: Limit,
        thresholdSec: Threshold(opts.slaThresholdSec),
        sort: Type.Union([Type.Literal('priority'), Type.Literal('opened')], { default: 'priority', description: 'priority (default) or opened (newest first)' }),
        awaiting: Type.Optional(Type.Union([Type.Literal('1'), Type.Literal('0'), Type.Literal('true'), Type.Literal('false')], { description: '1: only sessions whose fan is waiting; 0: only the others' })),
        accountId: Type.Optional(Id('only sessions of this account')),
        status: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('closed')])),
      }, { additionalProperties: false }),
      response: { 200: SessionListSchema },
    },
  }, async (request) => {
    const { limit, sort, awaiting, accountId, status, thresholdSec } = request.query;
    const rm = await models.active();
    const now = clock();
    const list: Sessions.SessionList = {
      inScope: accountFilter(request, accountId), status, limit, now,
      waiting: awaiting === undefined ? undefined : awaiting === '1' || awaiting === 'true',
    };
    const docs = sort === 'opened' ? await Sessions.recent(rm, list) : await Sessions.inbox(rm, list);
    const alerts = await openAlertCounts(docs, now);
    return { items: docs.map((d) => sessionView(d, now, thresholdSec, alerts.get(d._id) ?? 0)), count: docs.length, limit, sort, thresholdSec, gradeSteps: gradeSteps(thresholdSec) };
  });

  app.get('/api/sessions/:id/analysis', {
    config: { rateClass: 'report' },
    schema: {
      summary: 'One session: metrics snapshot, alerts, model labels and recommendations, and the quality rules that fired on its replies',
      params: Type.Object({ id: Id('session id') }),
      querystring: Type.Object({ thresholdSec: Threshold(opts.slaThresholdSec) }, { additionalProperties: false }),
      response: { 200: AnalysisSchema },
    },
  }, async (request) => {
    const { id } = request.params;
    const rm = await models.active();
    const session = await Sessions.byId(rm, id);
    if (!session) throw new ApiError('NOT_FOUND', `id: no session ${id}`);
    assertVisible(request, session.accountId, `id: no session ${id}`);
    const now = clock();
    const view = sessionView(session, now, request.query.thresholdSec);
    // Past its deadline it is closed there, whether or not its lapse has been folded (or swept) yet.
    const shown = { ...session, ...shownClose(session, now) };
    const end = shown.closedAt ?? now;
    return {
      session: view,
      metrics: {
        durationSec: Math.max(0, Math.round((end - session.openedAt) / 1000)),
        messageCount: session.messageCount,
        fanMessageCount: session.fanMessageCount,
        replyCount: session.replyCount,
        firstResponseSec: session.firstResponseSec,
        waitSec: view.waitSec,
        slaThresholdSec: request.query.thresholdSec,
        slaOutcome: outcomeOf(shown, request.query.thresholdSec, now),
        revenueCents: session.revenueCents,
        paymentCount: session.paymentCount,
        fanSpendCents: session.fanSpendCents ?? null,
      },
      ...(await analysisParts(session, now)),
      qaFlags: (await Messages.qaFlagsOfSession(rm, session._id)).map((f) => ({ ...f, sentAt: iso(f.sentAt) })),
    };
  });

  app.get('/api/messages', {
    schema: {
      summary: 'Messages in conversation order: of one chat, or the latest across all chats',
      querystring: Type.Object({
        chatId: Type.Optional(Id('the chat (the fan id on the platform)')),
        accountId: Type.Optional(Id('the account, to tell apart one fan chatting with several accounts')),
        limit: Limit,
      }, { additionalProperties: false }),
      response: { 200: MessageListSchema },
    },
  }, async (request) => {
    const { chatId, accountId, limit } = request.query;
    const inScope = accountFilter(request, accountId);
    const docs = await Messages.latest(await models.active(), inScope, chatId, limit);
    return { items: docs.map(messageView), count: docs.length, limit };
  });

  app.get('/api/chats', {
    schema: {
      summary: 'Chats, newest activity first; with chatId, that chat with its sessions and messages',
      querystring: Type.Object({
        chatId: Type.Optional(Id('show this chat (the fan id) in detail')),
        accountId: Type.Optional(Id('only chats of this account')),
        limit: Limit,
      }, { additionalProperties: false }),
      response: { 200: ChatsSchema },
    },
  }, async (request) => {
    const { chatId, accountId, limit } = request.query;
    const rm = await models.active();
    const inScope = accountFilter(request, accountId);
    if (!chatId) {
      const docs = await Chats.list(rm, inScope, limit);
      return { items: docs.map(chatView), count: docs.length, limit };
    }
    const chats = await Chats.byChatId(rm, inScope, chatId);
    if (chats.length === 0) throw new ApiError('NOT_FOUND', `chatId: no chat ${chatId}${accountId ? ` with account ${accountId}` : ''}`);
    const now = clock();
    const chatKeys = chats.map((c) => c.chatKey);
    const [sessions, messages] = await Promise.all([Sessions.ofChats(rm, chatKeys, limit), Messages.ofChats(rm, chatKeys, limit)]);
    return {
      chatId,
      chats: chats.map(chatView),
      sessions: sessions.map((s) => sessionView(s, now, opts.slaThresholdSec)),
      messages: messages.map(messageView),
      limit,
    };
  });

  app.get('/api/chatters/scorecard', {
    config: { rateClass: 'report' },
    schema: {
      summary: 'Per chatter over a window: sessions first answered (by first fan message time), revenue credited (by payment time), SLA (median and p90 FRT, % within threshold), revenue per direct message and unlock ratio (as GET /api/conversion), open alerts now, coachPriority and its reasons; `unattributed`: the sessions first answered and the revenue credited without a named chatter, and their share of all (see docs/connector.md)',
      querystring: Type.Object({ thresholdSec: Threshold(opts.slaThresholdSec), accountId: Type.Optional(Id('only this account')), ...WindowParams, clock: ClockParam, model: CreditModelParam }, { additionalProperties: false }),
      response: { 200: ScorecardSchema },
    },
  }, async (request) => {
    const { thresholdSec, accountId } = request.query;
    const w = parseWindow(request.query, opts.reportTimezone);
    const rm = await models.active();
    const inScope = accountFilter(request, accountId);
    const scope = requestScope(request);
    const now = clock();
    assertCreditable(w, request.query.model, now);
    const open = await openAlertsByChatter(intelligence, now, inScope, (a) => canSee(scope, a) && (!accountId || a === accountId));
    const measure = await reportClock(request.query.clock, inScope);
    const [{ rows, unattributed }, records] = await Promise.all([scorecardOf(rm, w, inScope, open, thresholdSec, now, measure, attribution(request.query.model, opts.clockIdleSec)), chatters.all()]);
    const names = new Map(records.map((r) => [r._id, r.displayName]));
    const items = rows.map((r) => ({ ...r, displayName: names.get(r.chatterId) ?? null }));
    return { thresholdSec, items, count: items.length, unattributed, window: await windowOut(w, opts.read.definitions), model: request.query.model, ...clockView(measure) };
  });
};
