// Exports (issue 32): sessions, payments, the scorecard and the SLA report of a window as CSV
// (or JSON lines), for the spreadsheets agencies pay chatters from. The query is the reports'
// (`from`, `to`, `accountId`, and `thresholdSec` where the report takes one) and the caller's
// key scope applies. Sessions and payments are streamed from a store cursor in the order of the
// field the window is on, so memory stays flat at any size; the scorecard and the SLA report are
// the report routes' answers, a row per chatter and per account, flattened.
//
// Everything that can be refused is refused before the first byte: the query (400 naming the
// field), an account outside the key's scope (404), the store at the first read (503). After
// that the status is sent; a store failure midway cuts the transfer off (the client sees it
// truncated, not complete) and is logged.
import { Type, type FastifyPluginAsyncTypebox, type Static, type TSchema } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Filter } from '../../adapters/store/store.js';
import { rangeOn } from '../../read-models/report-buckets/queries.js';
import { canSee } from '../../access/access-model.js';
import type { IntelligenceSetup } from '../../intelligence/index.js';
import { openAlertsByChatter } from '../../intelligence/alert-merge.js';
import { shownClose } from '../../domain/session-deadline.js';
import { creditedChatter, type PaymentDoc } from '../../read-models/payments/projection.js';
import type { SessionDoc } from '../../read-models/sessions/projection.js';
import { reportClockOf, scorecardOf, slaReportOf, type ReportClock } from '../../read-models/reports.js';
import type { SlaFigures } from '../../domain/sla.js';
import { requestScope } from '../access.js';
import { EXPORT_MEDIA_TYPES, exportFileName, exportStream, formatOf, primed, type Row } from '../export-stream.js';
import { assertCreditable, ClockParam, parseWindow, WindowParams } from '../report-window.js';
import { accountFilter } from '../scope.js';
import { iso, Nullable, timeOf } from '../views.js';
import type { ReadSide } from '../../read-side/read-side.js';
import { conversionOf } from '../../read-models/conversion.js';
import { attribution, CampaignConversionSchema, ConversionFiguresSchema, CreditModelParam } from './money.js';
import { CoverageSchema, PayRowSchema, ShiftQuery, ShiftSchema, shiftView, shiftWindow } from './shifts.js';
import { coverageReport, payReport, shiftReport } from '../../read-side/shift-report.js';

export interface ExportRouteOptions {
  readonly read: ReadSide;
  readonly slaThresholdSec: number;
  readonly reportTimezone: string;
  readonly setup: IntelligenceSetup;
  readonly clockIdleSec: number;
  readonly noShowGraceSec: number;
  readonly now?: () => number;
}

const L = Type.Literal;
const Id = (description: string) => Type.String({ minLength: 1, maxLength: 200, description });
const Threshold = (fallback: number) => Type.Integer({ minimum: 1, maximum: 86400, default: fallback, description: `first-response SLA threshold in seconds (default ${fallback})` });
const Int = (description?: string) => Type.Integer(description ? { description } : {});
const Cents = (description: string) => Type.Integer({ description: `${description}, US cents` });
const Time = (description: string) => timeOf(`${description} (ISO-8601 UTC)`);

// One row of each export: the CSV's columns in this order, and one JSON line each.
const SessionRowSchema = Type.Object({
  sessionId: Type.String(),
  accountId: Type.String(),
  chatId: Type.String({ description: 'the fan\'s platform user id' }),
  status: Type.Union([L('open'), L('closed')], { description: 'as the clock has it (a session past its deadline is closed), as in GET /api/sessions' }),
  openedAt: Time('when it opened: what places it in the window'),
  closedAt: Time('when it closed'),
  closeReason: Nullable(Type.Union([L('idle'), L('unanswered'), L('forced')])),
  lastMessageAt: Time('its last message'),
  messageCount: Int(),
  fanMessageCount: Int(),
  replyCount: Int(),
  awaiting: Type.Boolean({ description: 'the fan wrote last and waits for a reply' }),
  waitingSince: Time('since when the fan waits'),
  firstFanMessageAt: Time('the fan\'s first message'),
  firstResponseAt: Time('the first human reply'),
  firstResponseSec: Nullable(Type.Number()),
  firstResponseBusinessSec: Nullable(Type.Number({ description: 'the first response in seconds of business hours; null without a schedule' })),
  waitBusinessSec: Nullable(Type.Number({ description: 'not answered: the wait in seconds of business hours; null otherwise' })),
  firstResponderId: Nullable(Type.String({ description: 'the chatter of the first reply' })),
  lastHumanChatterId: Nullable(Type.String()),
  revenueCents: Cents('revenue in the session'),
  paymentCount: Int(),
  fanSpendCents: Nullable(Cents('the fan\'s lifetime spend as the platform reported it')),
});

const PaymentRowSchema = Type.Object({
  paymentId: Type.String(),
  accountId: Type.String(),
  chatId: Type.String({ description: 'the fan\'s platform user id' }),
  kind: Type.String({ description: 'tip, ppv, subscription, …' }),
  grossCents: Cents('gross'),
  netCents: Cents('net'),
  paidAt: Time('when it was paid: what places it in the window'),
  sessionId: Nullable(Type.String()),
  chatterId: Nullable(Type.String({ description: 'the chatter credited; null: nobody' })),
  reassigned: Type.Boolean({ description: 'a manager reassigned the credit (POST /api/admin/reassignments): chatterId is theirs' }),
  late: Type.Boolean({ description: 'arrived later than the allowed lateness: counted, credited to nobody' }),
  senderChatterId: Nullable(Type.String({ description: 'the chatter credited under the sender model (a reassignment wins here too); null: nobody' })),
  senderRule: Nullable(Type.String({ description: 'why: ppv-sender, campaign, last-message or none (docs/api.md, "Money"); null for a late payment' })),
  converterChatterId: Nullable(Type.String({ description: 'the chatter credited under the converter model (a reassignment wins here too); null: nobody' })),
  converterRule: Nullable(Type.String({ description: 'why: last-message or none; null for a late payment' })),
});

const SLA_COLUMNS = {
  sessions: Int('sessions judged (by first fan message in the window)'),
  responded: Int(),
  withinThreshold: Int(),
  breaches: Int(),
  missed: Int('closed at the unanswered limit without a human reply'),
  pending: Int('open, unanswered, still within the threshold (a session that closed unanswered is a breach)'),
  withinThresholdPct: Nullable(Type.Number()),
  medianFirstResponseSec: Nullable(Type.Number()),
  p90FirstResponseSec: Nullable(Type.Number()),
};

const ClockCell = Type.Union([L('wall'), L('business')], { description: 'how waits were measured (clock)' });

const ScorecardRowSchema = Type.Object({
  chatterId: Type.String(),
  thresholdSec: Int(),
  clock: ClockCell,
  sessions: Int('sessions first answered'),
  revenueCents: Cents('revenue credited (paid in the window)'),
  paymentCount: Int(),
  openAlerts: Int('open alerts now'),
  revenuePerDirectMessageCents: Nullable(Int('revenue credited ÷ direct messages, US cents')),
  unlockRatioPct: Nullable(Type.Number({ description: 'direct PPVs unlocked ÷ sent, percent' })),
  coachPriority: Int('0–100, coach the highest first'),
  coachReasons: Type.String({ description: 'its parts, the largest first: "kind points: text", separated by "; "' }),
  // The scorecard's `sla` figures, flattened.
  slaSessions: SLA_COLUMNS.sessions,
  slaResponded: SLA_COLUMNS.responded,
  slaWithinThreshold: SLA_COLUMNS.withinThreshold,
  slaBreaches: SLA_COLUMNS.breaches,
  slaMissed: SLA_COLUMNS.missed,
  slaPending: SLA_COLUMNS.pending,
  slaWithinThresholdPct: SLA_COLUMNS.withinThresholdPct,
  slaMedianFirstResponseSec: SLA_COLUMNS.medianFirstResponseSec,
  slaP90FirstResponseSec: SLA_COLUMNS.p90FirstResponseSec,
});

const SlaRowSchema = Type.Object({
  level: Type.Union([L('total'), L('account'), L('chatter')], { description: 'total: the whole report (of accountId when one was asked for); account: one account; chatter: one chatter of the first reply' }),
  accountId: Nullable(Type.String()),
  chatterId: Nullable(Type.String()),
  thresholdSec: Int(),
  clock: ClockCell,
  ...SLA_COLUMNS,
});

const ConversionRowSchema = Type.Object({
  level: Type.Union([L('account'), L('chatter')], { description: 'account: one account\'s figures (all its chatters\' direct work); chatter: one chatter\'s, over every account in the query' }),
  accountId: Nullable(Type.String()),
  chatterId: Nullable(Type.String({ description: 'empty on a chatter row: human sends no chatter was named for' })),
  ...ConversionFiguresSchema,
  qaOffPlatformContact: Nullable(Int('chatter rows: direct replies with a link off the platform or a named messaging app')),
  qaOffPlatformPayment: Nullable(Int('chatter rows: direct replies naming a payment app, crypto or a $cashtag')),
  qaBannedPhrase: Nullable(Int('chatter rows: direct replies with one of the account\'s banned phrases')),
  unlinkedUnlocks: Nullable(Int('account rows: unlocks naming no PPV of their chat')),
  unseenSendUnlocks: Nullable(Int('account rows: unlocks of PPVs never seen sent')),
});

type SessionRow = Static<typeof SessionRowSchema>;
type ConversionRow = Static<typeof ConversionRowSchema>;
type PaymentRow = Static<typeof PaymentRowSchema>;
type ScorecardRow = Static<typeof ScorecardRowSchema>;
type SlaRow = Static<typeof SlaRowSchema>;

const columnsOf = (schema: { properties: Record<string, unknown> }): string[] => Object.keys(schema.properties);

export function sessionRow(d: SessionDoc, now: number): SessionRow {
  const shown = shownClose(d, now);
  return {
    sessionId: d._id, accountId: d.accountId, chatId: d.chatId, status: shown.status, openedAt: iso(d.openedAt), closedAt: iso(shown.closedAt),
    closeReason: shown.closeReason, lastMessageAt: iso(d.lastMessageAt), messageCount: d.messageCount, fanMessageCount: d.fanMessageCount,
    replyCount: d.replyCount, awaiting: d.awaiting, waitingSince: iso(d.waitingSince), firstFanMessageAt: iso(d.firstFanMessageAt),
    firstResponseAt: iso(d.firstResponseAt), firstResponseSec: d.firstResponseSec, firstResponseBusinessSec: d.firstResponseBusinessSec ?? null,
    waitBusinessSec: d.waitBusinessSec ?? null, firstResponderId: d.firstResponderId,
    lastHumanChatterId: d.lastHumanChatterId, revenueCents: d.revenueCents, paymentCount: d.paymentCount, fanSpendCents: d.fanSpendCents ?? null,
  };
}

export function paymentRow(d: PaymentDoc): PaymentRow {
  return {
    paymentId: d.paymentId, accountId: d.accountId, chatId: d.chatId, kind: d.kind, grossCents: d.grossCents, netCents: d.netCents,
    paidAt: iso(d.paidAt), sessionId: d.sessionId, chatterId: creditedChatter(d), reassigned: d.override !== undefined, late: d.late === true,
    senderChatterId: creditedChatter(d, 'sender'), senderRule: d.models?.sender.rule ?? null,
    converterChatterId: creditedChatter(d, 'converter'), converterRule: d.models?.converter.rule ?? null,
  };
}

const slaCells = (f: SlaFigures) => ({
  sessions: f.sessions, responded: f.responded, withinThreshold: f.withinThreshold, breaches: f.breaches, missed: f.missed, pending: f.pending,
  withinThresholdPct: f.withinThresholdPct, medianFirstResponseSec: f.medianFirstResponseSec, p90FirstResponseSec: f.p90FirstResponseSec,
});

/** The 200 of an export: CSV or JSON lines, one row of `row` per line. */
function exportAnswer(what: string, row: TSchema & { properties: Record<string, unknown> }) {
  return {
    description: `${what}. text/csv (the default): RFC 4180 with a header row (${columnsOf(row).join(', ')}), CRLF line ends; a string cell that starts with =, +, - or @ (or a tab or carriage return) has a single quote before it; numbers are plain; empty for null. With Accept: application/x-ndjson: one JSON object per line, the same fields. Sent as an attachment (Content-Disposition), streamed`,
    content: {
      'text/csv': { schema: { type: 'string', description: 'RFC 4180 CSV with a header row' } },
      // OpenAPI 3.1 has no schema for a sequence of documents: the answer is text, and each
      // line's object is given as 3.2 names it (itemSchema), as an extension a 3.1 reader skips.
      'application/x-ndjson': {
        schema: { type: 'string', contentMediaType: 'application/x-ndjson', description: 'newline-delimited JSON: one object per line, each as x-itemSchema describes' },
        'x-itemSchema': { ...row, description: 'one line of the answer' },
      },
    },
  };
}

export const exportRoutes: FastifyPluginAsyncTypebox<ExportRouteOptions> = async (app, opts) => {
  const { models, businessHours } = opts.read;
  // Read at each call, not captured: a clock set for a test (or by a time-travel tool) reaches every route.
  const clock = opts.now ?? ((): number => Date.now());
  const { intelligence } = opts.setup;
  /** As the report routes measure: wall-clock, or each account's business hours (of the accounts in scope). */
  const reportClock = (kind: ReportClock['kind'], inScope: Filter): Promise<ReportClock> => reportClockOf(businessHours, kind, inScope);

  /** Headers of the answer, then the rows; a HEAD gets the headers only (nothing read). */
  const send = async (request: FastifyRequest, reply: FastifyReply, kind: string, w: { from: number; to: number }, columns: readonly string[], rows: () => Promise<AsyncIterable<Row>>) => {
    const format = formatOf(request.headers.accept);
    // The file's headers once the first read succeeded: an error answer before it (the store
    // down, a report that throws) must not be labelled as a download.
    const asFile = () => reply
      .type(EXPORT_MEDIA_TYPES[format])
      .header('content-disposition', `attachment; filename="${exportFileName(kind, w.from, w.to, format)}"`)
      .header('cache-control', 'no-store')
      .header('vary', 'accept')
      .header('x-content-type-options', 'nosniff');
    if (request.method === 'HEAD') return asFile().send();
    const started = performance.now();
    const source = await rows();
    asFile();
    const stream = exportStream(source, {
      format, columns,
      onEnd: (err, count) => {
        const ms = Math.round(performance.now() - started);
        if (!err) request.log.info({ export: kind, format, rows: count, ms }, 'export sent');
        else if ((err as { code?: string }).code === 'ERR_STREAM_PREMATURE_CLOSE') request.log.info({ export: kind, format, rows: count, ms }, 'export left unfinished by the client');
        else if (reply.raw.headersSent) request.log.error({ err, export: kind, format, rows: count, ms }, 'export failed midway: the transfer was cut off');
        else request.log.warn({ err, export: kind, format, rows: count, ms }, 'export failed before its first bytes went out: answered with an error status');
      },
    });
    // A failure before the first chunk went out is answered with a status (the error handler's,
    // in the catalogue's shape): not as a file.
    stream.once('error', () => {
      if (reply.raw.headersSent) return;
      for (const h of ['content-type', 'content-disposition', 'vary', 'cache-control']) reply.removeHeader(h);
    });
    return reply.send(stream);
  };

  const WindowQuery = Type.Object({ ...WindowParams, accountId: Type.Optional(Id('only this account')) }, { additionalProperties: false });
  const MoneyQuery = Type.Object({ ...WindowParams, accountId: Type.Optional(Id('only this account')), model: CreditModelParam }, { additionalProperties: false });

  app.get('/api/exports/sessions.csv', {
    config: { rateClass: 'report' },
    schema: {
      summary: 'Sessions opened in the window (of a scoped key\'s accounts), oldest first, as CSV or JSON lines, streamed',
      querystring: WindowQuery,
      response: { 200: exportAnswer('One row per session opened in the window', SessionRowSchema) },
    },
  }, async (request, reply) => {
    const w = parseWindow(request.query, opts.reportTimezone);
    const inScope = accountFilter(request, request.query.accountId);
    const now = clock();
    return send(request, reply, 'sessions', w, columnsOf(SessionRowSchema), async () => {
      const rm = await models.active();
      return primed(rm.sessions.iterate({ ...inScope, ...rangeOn('openedAt', w) }, { sort: { openedAt: 1 } }), (d) => sessionRow(d, now));
    });
  });

  app.get('/api/exports/payments.csv', {
    config: { rateClass: 'report' },
    schema: {
      summary: 'Payments paid in the window (of a scoped key\'s accounts), oldest first, as CSV or JSON lines, streamed',
      querystring: WindowQuery,
      response: { 200: exportAnswer('One row per payment paid in the window', PaymentRowSchema) },
    },
  }, async (request, reply) => {
    const w = parseWindow(request.query, opts.reportTimezone);
    const inScope = accountFilter(request, request.query.accountId);
    return send(request, reply, 'payments', w, columnsOf(PaymentRowSchema), async () => {
      const rm = await models.active();
      return primed(rm.payments.iterate({ ...inScope, ...rangeOn('paidAt', w) }, { sort: { paidAt: 1 } }), paymentRow);
    });
  });

  app.get('/api/exports/scorecard.csv', {
    config: { rateClass: 'report' },
    schema: {
      summary: 'The chatter scorecard of the window (GET /api/chatters/scorecard), one row per chatter with its SLA figures as columns, as CSV or JSON lines',
      querystring: Type.Object({ thresholdSec: Threshold(opts.slaThresholdSec), accountId: Type.Optional(Id('only this account')), ...WindowParams, clock: ClockParam, model: CreditModelParam }, { additionalProperties: false }),
      response: { 200: exportAnswer('One row per chatter, in the scorecard\'s order (coachPriority, highest first)', ScorecardRowSchema) },
    },
  }, async (request, reply) => {
    const { thresholdSec, accountId } = request.query;
    const w = parseWindow(request.query, opts.reportTimezone);
    assertCreditable(w, request.query.model, clock());
    const inScope = accountFilter(request, accountId);
    const scope = requestScope(request);
    return send(request, reply, 'scorecard', w, columnsOf(ScorecardRowSchema), async () => {
      const now = clock();
      const rm = await models.active();
      const open = await openAlertsByChatter(intelligence, now, inScope, (a) => canSee(scope, a) && (!accountId || a === accountId));
      const { rows } = await scorecardOf(rm, w, inScope, open, thresholdSec, now, await reportClock(request.query.clock, inScope), attribution(request.query.model, opts.clockIdleSec));
      return listed(rows.map((r): ScorecardRow => {
        const sla = slaCells(r.sla);
        return {
          chatterId: r.chatterId, thresholdSec, clock: request.query.clock, sessions: r.sessions, revenueCents: r.revenueCents, paymentCount: r.paymentCount, openAlerts: r.openAlerts,
          revenuePerDirectMessageCents: r.revenuePerDirectMessageCents, unlockRatioPct: r.unlockRatioPct, coachPriority: r.coachPriority,
          coachReasons: r.coachReasons.map((x) => `${x.kind} ${x.points}: ${x.text}`).join('; '),
          slaSessions: sla.sessions, slaResponded: sla.responded, slaWithinThreshold: sla.withinThreshold, slaBreaches: sla.breaches, slaMissed: sla.missed,
          slaPending: sla.pending, slaWithinThresholdPct: sla.withinThresholdPct, slaMedianFirstResponseSec: sla.medianFirstResponseSec, slaP90FirstResponseSec: sla.p90FirstResponseSec,
        };
      }));
    });
  });

  app.get('/api/exports/conversion.csv', {
    config: { rateClass: 'report' },
    schema: {
      summary: 'The conversion report of the window (GET /api/conversion): one row per account, then one per chatter, as CSV or JSON lines',
      querystring: MoneyQuery,
      response: { 200: exportAnswer('Rows with level account (by accountId), then level chatter (the report\'s order)', ConversionRowSchema) },
    },
  }, async (request, reply) => {
    const w = parseWindow(request.query, opts.reportTimezone);
    assertCreditable(w, request.query.model, clock());
    const inScope = accountFilter(request, request.query.accountId);
    return send(request, reply, 'conversion', w, columnsOf(ConversionRowSchema), async () => {
      const report = await conversionOf(await models.active(), w, inScope, clock(), attribution(request.query.model, opts.clockIdleSec));
      const rows: ConversionRow[] = [
        ...report.accounts.map((a): ConversionRow => ({ level: 'account', chatterId: null, ...a, qaOffPlatformContact: null, qaOffPlatformPayment: null, qaBannedPhrase: null })),
        ...report.chatters.map(({ qaFlags, ...c }): ConversionRow => ({
          level: 'chatter', accountId: null, ...c, qaOffPlatformContact: qaFlags.offPlatformContact, qaOffPlatformPayment: qaFlags.offPlatformPayment, qaBannedPhrase: qaFlags.bannedPhrase, unlinkedUnlocks: null, unseenSendUnlocks: null,
        })),
      ];
      return listed(rows);
    });
  });

  app.get('/api/exports/campaigns.csv', {
    config: { rateClass: 'report' },
    schema: {
      summary: 'The campaigns of the conversion report (GET /api/conversion `campaigns`): one row per queue (and automated sends from no queue) per account, as CSV or JSON lines',
      querystring: MoneyQuery,
      response: { 200: exportAnswer('One row per campaign, the most revenue first', CampaignConversionSchema) },
    },
  }, async (request, reply) => {
    const w = parseWindow(request.query, opts.reportTimezone);
    const inScope = accountFilter(request, request.query.accountId);
    return send(request, reply, 'campaigns', w, columnsOf(CampaignConversionSchema), async () => listed((await conversionOf(await models.active(), w, inScope, clock(), 'session', undefined, false)).campaigns.map((c): Static<typeof CampaignConversionSchema> => ({ ...c }))));
  });

  app.get('/api/exports/sla.csv', {
    config: { rateClass: 'report' },
    schema: {
      summary: 'The first-response SLA report of the window (GET /api/sla): a total row, then one per account and one per chatter of the first reply, as CSV or JSON lines',
      querystring: Type.Object({ thresholdSec: Threshold(300), accountId: Type.Optional(Id('only this account')), ...WindowParams, clock: ClockParam }, { additionalProperties: false }),
      response: { 200: exportAnswer('A row with level total, then one per account (level account), then one per chatter (level chatter)', SlaRowSchema) },
    },
  }, async (request, reply) => {
    const { thresholdSec, accountId } = request.query;
    const w = parseWindow(request.query, opts.reportTimezone);
    const inScope = accountFilter(request, accountId);
    return send(request, reply, 'sla', w, columnsOf(SlaRowSchema), async () => {
      const measure = request.query.clock;
      const report = await slaReportOf(await models.active(), w, inScope, thresholdSec, clock(), await reportClock(measure, inScope));
      const rows: SlaRow[] = [
        { level: 'total', accountId: accountId ?? null, chatterId: null, thresholdSec, clock: measure, ...slaCells(report) },
        ...report.byAccount.map((a): SlaRow => ({ level: 'account', accountId: a.accountId, chatterId: null, thresholdSec, clock: measure, ...slaCells(a) })),
        ...report.byChatter.map((c): SlaRow => ({ level: 'chatter', accountId: null, chatterId: c.chatterId, thresholdSec, clock: measure, ...slaCells(c) })),
      ];
      return listed(rows);
    });
  });

  app.get('/api/exports/shifts.csv', {
    config: { rateClass: 'report' },
    schema: {
      summary: 'The shift report of the window (GET /api/shifts): one row per chatter per planned shift, as CSV or JSON lines',
      querystring: ShiftQuery(opts.slaThresholdSec),
      response: { 200: exportAnswer('One row per planned shift, by planned start', ShiftSchema) },
    },
  }, async (request, reply) => {
    const now = clock();
    const w = shiftWindow(request.query, now, opts.reportTimezone);
    const inScope = accountFilter(request, request.query.accountId);
    const { model, thresholdSec, chatterId } = request.query;
    return send(request, reply, 'shifts', w, columnsOf(ShiftSchema), async () => {
      const report = await shiftReport(await models.active(), opts.read.rosters, opts.read.chatters, {
        from: w.from, to: w.to, inScope, model, thresholdSec, now, clockIdleMs: opts.clockIdleSec * 1000, noShowGraceMs: opts.noShowGraceSec * 1000,
        ...(chatterId !== undefined ? { chatterId } : {}),
      });
      return listed(report.shifts.map(shiftView));
    });
  });

  app.get('/api/exports/coverage.csv', {
    config: { rateClass: 'report' },
    schema: {
      summary: 'Coverage per account over the window (GET /api/shifts `accounts`; default this local week, at most 92 days): time fans waited, of it the time nobody was clocked in, and the time someone was, as CSV or JSON lines',
      querystring: Type.Object({ accountId: Type.Optional(Id('only this account')), ...WindowParams }, { additionalProperties: false }),
      response: { 200: exportAnswer('One row per account with fans waiting or someone clocked in, by account id', CoverageSchema) },
    },
  }, async (request, reply) => {
    const now = clock();
    const w = shiftWindow(request.query, now, opts.reportTimezone);
    const inScope = accountFilter(request, request.query.accountId);
    return send(request, reply, 'coverage', w, columnsOf(CoverageSchema), async () => listed((await coverageReport(await models.active(), {
      from: w.from, to: w.to, inScope, clockIdleMs: opts.clockIdleSec * 1000, now,
    })).map((a): Static<typeof CoverageSchema> => ({ ...a }))));
  });

  app.get('/api/exports/pay.csv', {
    config: { rateClass: 'report' },
    schema: {
      summary: 'The pay view of the window (GET /api/chatters/pay): one row per chatter, clocked time, credited revenue and commission, as CSV or JSON lines',
      querystring: Type.Object({ accountId: Type.Optional(Id('only this account')), ...WindowParams, model: CreditModelParam }, { additionalProperties: false }),
      response: { 200: exportAnswer('One row per chatter, by chatter id', PayRowSchema) },
    },
  }, async (request, reply) => {
    const now = clock();
    const w = shiftWindow(request.query, now, opts.reportTimezone);
    const inScope = accountFilter(request, request.query.accountId);
    return send(request, reply, 'pay', w, columnsOf(PayRowSchema), async () => listed((await payReport(await models.active(), opts.read.chatters, {
      from: w.from, to: w.to, inScope, model: request.query.model, now, clockIdleMs: opts.clockIdleSec * 1000,
    })).map((r): Static<typeof PayRowSchema> => ({ ...r }))));
  });
};

async function* listed(rows: readonly Row[]): AsyncGenerator<Row> {
  yield* rows;
}
