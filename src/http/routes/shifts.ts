// Rosters and shifts (issue 51): a manager plans a chatter's shifts (weekly slots, one-off shifts,
// absences, on a time zone's wall clock), and GET /api/shifts sets each planned shift against the
// time the chatter was clocked in on its account: clocked time, late starts, early ends, no-shows.
import { Type, type FastifyPluginAsyncTypebox, type Static } from '@fastify/type-provider-typebox';
import { actorOf } from '../../access/access-model.js';
import type { RosterDoc } from '../../accounts/roster-store.js';
import { DAY_KEYS, MAX_TIMEZONE_LENGTH } from '../../domain/business-hours.js';
import { ID_PATTERN } from '../../domain/bounds.js';
import { MAX_ABSENCES, MAX_ONE_OFF, MAX_WEEKLY_SLOTS, rosterIssue, type Roster } from '../../domain/roster.js';
import { localDay } from '../../domain/zoned-time.js';
import { payReport, shiftReport, type ShiftRow } from '../../read-side/shift-report.js';
import { CreditModelEcho, CreditModelParam } from './money.js';
import type { ReadSide } from '../../read-side/read-side.js';
import { ApiError } from '../errors.js';
import { parseBound, parseWindow, WindowParams } from '../report-window.js';
import { accountFilter, assertVisible } from '../scope.js';
import { iso, Nullable, Time } from '../views.js';

export interface ShiftRouteOptions {
  readonly read: ReadSide;
  readonly slaThresholdSec: number;
  readonly clockIdleSec: number;
  readonly noShowGraceSec: number;
  readonly reportTimezone: string;
  readonly now?: () => number;
}

/** The longest window GET /api/shifts answers: a quarter of planned shifts. */
export const MAX_SHIFT_WINDOW_DAYS = 92;
const DAY_MS = 86_400_000;

const ChatterId = Type.String({ pattern: ID_PATTERN, description: 'the chatter\'s id, as the connector names them' });
const AccountId = Type.String({ minLength: 1, maxLength: 200 });
const Wall = (description: string) => Type.String({ minLength: 1, maxLength: 10, description });
const Instant = (description: string) => Type.String({ minLength: 1, maxLength: 40, description });

const RosterBody = Type.Object({
  timezone: Type.String({ minLength: 1, maxLength: MAX_TIMEZONE_LENGTH, description: 'an IANA time zone (Europe/Berlin) or an offset (+01:00): the wall clock the slots are on' }),
  weekly: Type.Array(Type.Object({
    accountId: AccountId,
    day: Type.Union(DAY_KEYS.map((d) => Type.Literal(d)), { description: 'the day the slot starts on' }),
    start: Wall('HH:MM local'),
    end: Wall('HH:MM local; at or before the start: the next day (a night shift)'),
  }, { additionalProperties: false }), { maxItems: MAX_WEEKLY_SLOTS, description: `weekly slots, at most ${MAX_WEEKLY_SLOTS}, none overlapping another` }),
  oneOff: Type.Optional(Type.Array(Type.Object({
    accountId: AccountId,
    start: Instant('ISO-8601 date-time with Z or an offset'),
    end: Instant('ISO-8601 date-time, at most 24 hours after the start'),
  }, { additionalProperties: false }), { maxItems: MAX_ONE_OFF, description: `one-off shifts, at most ${MAX_ONE_OFF}, overlapping no other shift` })),
  absences: Type.Optional(Type.Array(Type.Object({
    from: Type.String({ minLength: 1, maxLength: 20, description: 'YYYY-MM-DD local, inclusive' }),
    to: Type.String({ minLength: 1, maxLength: 20, description: 'YYYY-MM-DD local, inclusive' }),
  }, { additionalProperties: false }), { maxItems: MAX_ABSENCES, description: `local dates on which no weekly slot starts, at most ${MAX_ABSENCES}` })),
}, { additionalProperties: false });

const RosterView = Type.Object({
  chatterId: Type.String(),
  timezone: Type.String(),
  weekly: Type.Array(Type.Object({ accountId: Type.String(), day: Type.String(), start: Type.String(), end: Type.String() })),
  oneOff: Type.Array(Type.Object({ accountId: Type.String(), start: Time, end: Time })),
  absences: Type.Array(Type.Object({ from: Type.String(), to: Type.String() })),
  updatedAt: Time,
  updatedBy: Type.String(),
});

/** What the chatter did while clocked in on the shift's account (docs/api.md, "Shifts"). */
const WorkFields = {
  fansWaited: Type.Integer({ minimum: 0, description: 'sessions of the account whose fan began waiting while the chatter was clocked in' }),
  sessionsAnswered: Type.Integer({ minimum: 0, description: 'of them, first answered by this chatter' }),
  withinThresholdPct: Nullable(Type.Number({ minimum: 0, maximum: 100 }), 'of the sessions they answered, answered within thresholdSec; null: none answered'),
  medianFirstResponseSec: Nullable(Type.Integer({ minimum: 0 }), 'of the sessions they answered (nearest rank)'),
  p90FirstResponseSec: Nullable(Type.Integer({ minimum: 0 })),
  revenueCents: Type.Integer({ minimum: 0, description: 'payments paid while they were clocked in on the account, credited to them under `model`' }),
};

export const ShiftSchema = Type.Object({
  shiftId: Type.String({ description: 'stable: the chatter, the weekly slot and its local date, or the one-off\'s start' }),
  chatterId: Type.String(),
  displayName: Nullable(Type.String()),
  accountId: Type.String(),
  kind: Type.Union([Type.Literal('weekly'), Type.Literal('one-off')]),
  plannedStart: Time,
  plannedEnd: Time,
  plannedSec: Type.Integer({ minimum: 0 }),
  clockedSec: Type.Integer({ minimum: 0, description: 'clocked seconds on the shift\'s account inside the planned shift (until now while on)' }),
  lateStartSec: Nullable(Type.Integer({ minimum: 0 }), 'planned start to the first clock-in inside the shift; null: on time, or never clocked in'),
  earlyEndSec: Nullable(Type.Integer({ minimum: 0 }), 'last clocked moment inside the shift to the planned end, once the shift is over; null: to the end, or never clocked in'),
  noShow: Type.Boolean({ description: 'SHIFT_NO_SHOW_GRACE_SEC after the planned start, still not clocked in on the account' }),
  status: Type.Union([Type.Literal('upcoming'), Type.Literal('on'), Type.Literal('off'), Type.Literal('done'), Type.Literal('missed')], {
    description: 'upcoming: not started; on: clocked in now; off: started, not over, not clocked in now; done: over, clocked in for some of it; missed: over, never clocked in',
  }),
  ...WorkFields,
});

const ChatterShiftSummary = Type.Object({
  chatterId: Type.String(),
  displayName: Nullable(Type.String()),
  shifts: Type.Integer({ minimum: 0 }),
  plannedSec: Type.Integer({ minimum: 0, description: 'planned seconds inside the window' }),
  clockedInShiftsSec: Type.Integer({ minimum: 0, description: 'clocked seconds inside their planned shifts, inside the window' }),
  clockedSec: Type.Integer({ minimum: 0, description: 'all clocked seconds inside the window, planned or not' }),
  lateStarts: Type.Integer({ minimum: 0 }),
  earlyEnds: Type.Integer({ minimum: 0 }),
  noShows: Type.Integer({ minimum: 0 }),
  fansWaited: Type.Integer({ minimum: 0, description: 'over their shifts' }),
  sessionsAnswered: Type.Integer({ minimum: 0 }),
  withinThresholdPct: Nullable(Type.Number({ minimum: 0, maximum: 100 })),
  revenueCents: Type.Integer({ minimum: 0, description: 'credited to them while clocked in on their shifts' }),
});

/** Coverage per account (docs/api.md, "Coverage"). */
export const CoverageSchema = Type.Object({
  accountId: Type.String(),
  waitingSec: Type.Integer({ minimum: 0, description: 'seconds of the window (up to now) in which at least one fan whose wait began in the window was waiting for a first reply' }),
  uncoveredWaitingSec: Type.Integer({ minimum: 0, description: 'of waitingSec, the seconds in which nobody was clocked in on the account' }),
  staffedSec: Type.Integer({ minimum: 0, description: 'seconds of the window (up to now) in which at least one chatter was clocked in on the account' }),
}, { additionalProperties: false });

export const PayRowSchema = Type.Object({
  chatterId: Type.String(),
  displayName: Nullable(Type.String()),
  clockedSec: Type.Integer({ minimum: 0, description: 'clocked seconds inside the window, on any account in scope' }),
  creditedRevenueCents: Type.Integer({ minimum: 0, description: 'payments paid in the window credited to them under `model`, US cents' }),
  commissionPct: Nullable(Type.Number({ minimum: 0, maximum: 100 }), 'their record\'s; null: none agreed'),
  commissionCents: Nullable(Type.Integer({ minimum: 0 }), 'creditedRevenueCents × commissionPct ÷ 100, rounded; null without a commission'),
});

/** GET /api/shifts and shifts.csv take the same query. */
export const ShiftQuery = (slaThresholdSec: number) => Type.Object({
  accountId: Type.Optional(AccountId), chatterId: Type.Optional(ChatterId), ...WindowParams, model: CreditModelParam,
  thresholdSec: Type.Integer({ minimum: 1, maximum: 86_400, default: slaThresholdSec, description: `first-response threshold in seconds (default SLA_THRESHOLD_SEC, ${slaThresholdSec})` }),
}, { additionalProperties: false });

/** The window a shift report reads: as asked, else this local week; a week from a lone bound; at most a quarter. */
export function shiftWindow(q: { from?: string; to?: string }, now: number, tz: string): { from: number; to: number } {
  const asked = parseWindow(q, tz);
  const week = weekOf(now, tz);
  const from = Number.isFinite(asked.from) ? asked.from : Number.isFinite(asked.to) ? asked.to - 7 * DAY_MS : week.from;
  const to = Number.isFinite(asked.to) ? asked.to : q.from !== undefined ? from + 7 * DAY_MS : week.to;
  if (!(to > from)) throw new ApiError('INVALID_INPUT', 'to: must be after from');
  if (to - from > MAX_SHIFT_WINDOW_DAYS * DAY_MS) throw new ApiError('INVALID_INPUT', `from: a shift report spans at most ${MAX_SHIFT_WINDOW_DAYS} days; give a from no earlier than ${MAX_SHIFT_WINDOW_DAYS} days before to`);
  return { from, to };
}

export function shiftView(r: ShiftRow): Static<typeof ShiftSchema> {
  return { ...r, plannedStart: iso(r.plannedStart), plannedEnd: iso(r.plannedEnd) };
}

function rosterView(d: RosterDoc): Static<typeof RosterView> {
  return {
    chatterId: d._id, timezone: d.timezone, weekly: d.weekly.map((s) => ({ ...s })), oneOff: d.oneOff.map((o) => ({ accountId: o.accountId, start: iso(o.start), end: iso(o.end) })),
    absences: d.absences.map((a) => ({ ...a })), updatedAt: iso(d.updatedAt), updatedBy: d.updatedBy,
  };
}

/** The local week (Monday 00:00 to the next Monday) containing `now`. */
function weekOf(now: number, tz: string): { from: number; to: number } {
  let day = localDay(now, tz);
  // Back to Monday: the weekday of the local date at the day's start (noon avoids the edges).
  const weekday = (t: number) => (new Date(t).getUTCDay() + 6) % 7;
  const local = (d: { start: number }) => {
    const parts = new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' }).format(d.start + 12 * 3_600_000);
    return Date.parse(`${parts}T00:00:00Z`);
  };
  for (let i = 0; i < 7 && weekday(local(day)) !== 0; i++) day = localDay(day.start - 1, tz);
  let end = day;
  for (let i = 0; i < 7; i++) end = localDay(end.end, tz);
  return { from: day.start, to: end.start };
}

export const shiftRoutes: FastifyPluginAsyncTypebox<ShiftRouteOptions> = async (app, opts) => {
  // Read at each call, not captured: a clock set for a test (or by a time-travel tool) reaches every route.
  const clock = opts.now ?? ((): number => Date.now());
  const { models, chatters, rosters } = opts.read;

  app.put('/api/admin/chatters/:chatterId/roster', {
    config: { access: 'manager' },
    schema: {
      summary: 'Replace a chatter\'s roster: weekly slots (several a day, across midnight), one-off shifts and absences, on a time zone\'s wall clock. A manager of every account it names',
      security: [{ adminToken: [] }],
      params: Type.Object({ chatterId: ChatterId }),
      body: RosterBody,
      response: { 200: RosterView },
    },
  }, async (request) => {
    const { chatterId } = request.params;
    const b = request.body;
    const oneOff = (b.oneOff ?? []).map((o, i) => ({ accountId: o.accountId, start: parseBound(`oneOff[${i}].start`, o.start, opts.reportTimezone), end: parseBound(`oneOff[${i}].end`, o.end, opts.reportTimezone) }));
    const roster: Roster = { timezone: b.timezone, weekly: b.weekly, oneOff, absences: b.absences ?? [] };
    for (const [i, a] of [...roster.weekly.map((s) => s.accountId), ...oneOff.map((o) => o.accountId)].entries()) {
      const field = i < roster.weekly.length ? `weekly[${i}].accountId` : `oneOff[${i - roster.weekly.length}].accountId`;
      assertVisible(request, a, `${field}: no account ${a}`);
    }
    const issue = rosterIssue(roster);
    if (issue) throw new ApiError('INVALID_INPUT', `${issue.field}: ${issue.reason}`);
    const record = await chatters.get(chatterId);
    if (record) {
      const outside = [...roster.weekly, ...oneOff].map((s) => s.accountId).find((a) => record.accountIds.length > 0 && !record.accountIds.includes(a));
      if (outside !== undefined) throw new ApiError('INVALID_INPUT', `accountId: chatter ${chatterId} does not work account ${outside} (their record names ${record.accountIds.join(', ')})`);
    }
    return rosterView(await rosters.set(chatterId, roster, actorOf(request.principal), clock()));
  });

  app.get('/api/chatters/:chatterId/roster', {
    schema: {
      summary: 'A chatter\'s roster as planned',
      params: Type.Object({ chatterId: ChatterId }),
      response: { 200: RosterView },
    },
  }, async (request) => {
    const doc = await rosters.get(request.params.chatterId);
    if (!doc) throw new ApiError('NOT_FOUND', `chatterId: no roster for ${request.params.chatterId}`);
    const visible = [...doc.weekly, ...doc.oneOff].some((s) => {
      try {
        assertVisible(request, s.accountId, '');
        return true;
      } catch {
        return false;
      }
    });
    if (!visible && [...doc.weekly, ...doc.oneOff].length > 0) throw new ApiError('NOT_FOUND', `chatterId: no roster for ${request.params.chatterId}`);
    return rosterView(doc);
  });

  app.get('/api/shifts', {
    config: { rateClass: 'report' },
    schema: {
      summary: `Planned shifts against clocked time: per shift, clocked seconds, late start, early end, no-show and status, and what the chatter did while clocked in on it (fans whose wait began, sessions answered first and how fast, revenue credited); per chatter, the totals; per account, coverage (time fans waited with nobody clocked in). Default window: this local week (REPORT_TIMEZONE, Monday first); at most ${MAX_SHIFT_WINDOW_DAYS} days`,
      querystring: ShiftQuery(opts.slaThresholdSec),
      response: {
        200: Type.Object({
          shifts: Type.Array(ShiftSchema, { description: 'by planned start' }),
          chatters: Type.Array(ChatterShiftSummary, { description: 'by chatter id' }),
          accounts: Type.Array(CoverageSchema, { description: 'coverage of each account with fans waiting or someone clocked in in the window, by account id: everyone\'s, whatever chatterId asks' }),
          noShowGraceSec: Type.Integer(),
          thresholdSec: Type.Integer(),
          model: CreditModelEcho,
          window: Type.Object({ from: Time, to: Time }),
        }),
      },
    },
  }, async (request) => {
    const now = clock();
    const { from, to } = shiftWindow(request.query, now, opts.reportTimezone);
    const { model, thresholdSec, chatterId } = request.query;
    const report = await shiftReport(await models.active(), rosters, chatters, {
      from, to, inScope: accountFilter(request, request.query.accountId), model, thresholdSec, now,
      clockIdleMs: opts.clockIdleSec * 1000, noShowGraceMs: opts.noShowGraceSec * 1000, ...(chatterId !== undefined ? { chatterId } : {}),
    });
    return {
      shifts: report.shifts.map(shiftView), chatters: report.chatters, accounts: report.accounts,
      noShowGraceSec: opts.noShowGraceSec, thresholdSec, model, window: { from: iso(from), to: iso(to) },
    };
  });

  app.get('/api/chatters/pay', {
    config: { rateClass: 'report' },
    schema: {
      summary: `A pay view per chatter over a window: clocked time, the revenue credited to them under \`model\`, and their commission on it (their record's commissionPct). Default window: this local week; at most ${MAX_SHIFT_WINDOW_DAYS} days`,
      querystring: Type.Object({ accountId: Type.Optional(AccountId), chatterId: Type.Optional(ChatterId), ...WindowParams, model: CreditModelParam }, { additionalProperties: false }),
      response: { 200: Type.Object({ items: Type.Array(PayRowSchema, { description: 'by chatter id' }), model: CreditModelEcho, window: Type.Object({ from: Time, to: Time }) }) },
    },
  }, async (request) => {
    const now = clock();
    const { from, to } = shiftWindow(request.query, now, opts.reportTimezone);
    const { model, chatterId } = request.query;
    const items = await payReport(await models.active(), chatters, {
      from, to, inScope: accountFilter(request, request.query.accountId), model, now, clockIdleMs: opts.clockIdleSec * 1000, ...(chatterId !== undefined ? { chatterId } : {}),
    });
    return { items, model, window: { from: iso(from), to: iso(to) } };
  });
};
