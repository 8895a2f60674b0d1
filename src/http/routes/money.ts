// The money view (issue 50): which messages make money. The conversion report per chatter, per
// account and per campaign over a window, with the reports' query (window, accountId) and the
// caller's key scope. Its exports are in exports.ts.
import type { DefinitionsStore } from '../../definitions/definitions-store.js';
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { conversionByDay, conversionOf, type Attribution } from '../../read-models/conversion.js';
import type { AttributionModel } from '../../read-models/payments/projection.js';
import { localDay } from '../../domain/zoned-time.js';
import { ApiError } from '../errors.js';
import type { ReadModelSet } from '../../read-models/read-model-set.js';
import { assertCreditable, parseWindow, WindowParams, WindowSchema, windowOut } from '../report-window.js';
import { accountFilter } from '../scope.js';
import { iso, Nullable, Time } from '../views.js';

export interface MoneyRouteOptions {
  readonly models: ReadModelSet;
  /** The definitions versions the window's figures were decided under. */
  readonly definitions: DefinitionsStore;
  readonly reportTimezone: string;
  /** CLOCK_IDLE_SEC: where a clocked interval ends under the `shift` model. */
  readonly clockIdleSec: number;
  readonly now?: () => number;
}

const MODEL_TEXT = '`session` (default): the chatter of the last human message before the payment in its session; `sender`: the chatter who sent the PPV a purchase bought (named by the unlock nearest the payment), for other earnings the converter\'s; `converter`: the chatter of the last human message to the fan before the payment, across sessions, within ATTRIBUTION_LOOKBACK_SEC (a day). `shift`: the chatters clocked in on the payment\'s account when it was paid, shared equally (worked out at read time from the window\'s payments and clock intervals: a window of at most 92 days, `from` required). A manager\'s reassignment overrides every model';

/** How revenue is credited to chatters (docs/api.md, "Money"): a query value, never another route. */
export const CreditModelParam = Type.Union([Type.Literal('session'), Type.Literal('sender'), Type.Literal('converter'), Type.Literal('shift')], { default: 'session', description: MODEL_TEXT });

/** The model a report is asked under, as the read models take it: `shift` needs the idle time that ends a clocked interval. */
export const attribution = (model: AttributionModel, clockIdleSec: number): Attribution => (model === 'shift' ? { model, idleMs: clockIdleSec * 1000 } : model);

/** The model an answer's figures were credited under, as asked for. */
export const CreditModelEcho = Type.Union([Type.Literal('session'), Type.Literal('sender'), Type.Literal('converter'), Type.Literal('shift')], { description: 'the attribution model revenue was credited under (the `model` asked for)' });

const Pct = (description: string) => Nullable(Type.Number({ minimum: 0 }), description);

/** The figures every conversion row carries (docs/api.md defines each). */
export const ConversionFiguresSchema = {
  directMessages: Type.Integer({ minimum: 0, description: 'human sends not from a queue (mass, automated and welcome messages are not direct), PPVs included, sent in the window' }),
  fansChatted: Type.Integer({ minimum: 0, description: 'distinct fans those direct messages went to (a fan of two accounts counts once per account)' }),
  directPpvsSent: Type.Integer({ minimum: 0, description: 'direct sends that are PPVs (priced, or said not free), sent in the window' }),
  goldenRatioPct: Pct('direct PPVs sent ÷ direct messages, percent with one decimal; null without a direct message'),
  ppvsUnlocked: Type.Integer({ minimum: 0, description: 'direct PPVs unlocked in the window (each once, however often the platform said so)' }),
  unlockRatioPct: Pct('PPVs unlocked ÷ direct PPVs sent in the window, percent; null with none sent (may pass 100 when older PPVs sell)'),
  ppvRevenueCents: Type.Integer({ minimum: 0, description: 'the prices of the direct PPVs unlocked in the window, as their sends said, US cents' }),
  revenueCents: Type.Integer({ minimum: 0, description: 'revenue credited (transactions paid in the window, credited as the scorecard credits), US cents' }),
  revenuePerDirectMessageCents: Nullable(Type.Integer({ minimum: 0 }), 'revenueCents ÷ directMessages, rounded, US cents; null without a direct message'),
  medianPpvPriceCents: Nullable(Type.Integer({ minimum: 0 }), 'median price of the direct PPVs sent, US cents (nearest rank)'),
  medianMinutesToUnlock: Nullable(Type.Integer({ minimum: 0 }), 'median whole minutes from a direct PPV\'s send to its unlock, of those unlocked in the window (nearest rank)'),
};

export const ChatterConversionSchema = Type.Object({
  chatterId: Nullable(Type.String(), 'null: human sends no chatter was named for (webhooks name none; the connector does)'),
  ...ConversionFiguresSchema,
  qaFlags: Type.Object({
    offPlatformContact: Type.Integer({ minimum: 0, description: 'direct replies with a link off the platform or a named messaging app' }),
    offPlatformPayment: Type.Integer({ minimum: 0, description: 'direct replies naming a payment app, crypto or a $cashtag' }),
    bannedPhrase: Type.Integer({ minimum: 0, description: 'direct replies with one of the account\'s banned phrases (by the list in force when each was received)' }),
  }, { description: 'direct replies in the window a quality rule fired on (each session lists them in GET /api/sessions/:id/analysis)' }),
});

export const CampaignConversionSchema = Type.Object({
  accountId: Type.String(),
  campaignId: Nullable(Type.String(), 'the platform\'s queue id (queueId); null: automated sends from no queue'),
  fansReached: Type.Integer({ minimum: 0, description: 'sends of the campaign in the window, one per fan reached' }),
  ppvsSent: Type.Integer({ minimum: 0, description: 'of them, PPVs' }),
  unlocks: Type.Integer({ minimum: 0, description: 'its PPVs unlocked in the window' }),
  unlockRatePct: Pct('unlocks ÷ PPVs sent, percent; null with none sent'),
  revenueCents: Type.Integer({ minimum: 0, description: 'the prices of its PPVs unlocked in the window, US cents' }),
});

const AccountConversionSchema = Type.Object({
  accountId: Type.String(),
  ...ConversionFiguresSchema,
  unlinkedUnlocks: Type.Integer({ minimum: 0, description: 'unlocks whose notification names no PPV of its chat (no readable link, or a link to another fan\'s chat): counted here, linked to no send' }),
  unseenSendUnlocks: Type.Integer({ minimum: 0, description: 'unlocks of PPVs convops never saw sent: counted here, linked to no chatter' }),
});

const ConversionSchema = Type.Object({
  chatters: Type.Array(ChatterConversionSchema, { description: 'one row per chatter with direct work in the window, the most revenue per direct message first' }),
  accounts: Type.Array(AccountConversionSchema, { description: 'one row per account, by accountId' }),
  campaigns: Type.Array(CampaignConversionSchema, { description: 'queued and automated sends, per campaign, the most revenue first' }),
  model: CreditModelEcho,
  window: WindowSchema,
});

/** The longest series GET /api/conversion/daily answers: a quarter, a window read per day. */
export const MAX_DAILY_DAYS = 92;
const DEFAULT_DAILY_DAYS = 14;

const DaySchema = Type.Object({
  day: Type.String({ description: 'the local date (YYYY-MM-DD) in REPORT_TIMEZONE' }),
  from: Time, to: Time,
  directMessages: Type.Integer({ minimum: 0 }),
  directPpvsSent: Type.Integer({ minimum: 0 }),
  ppvsUnlocked: Type.Integer({ minimum: 0, description: 'direct PPVs unlocked that day' }),
  ppvRevenueCents: Type.Integer({ minimum: 0, description: 'their prices' }),
  campaignUnlocks: Type.Integer({ minimum: 0, description: 'campaign PPVs unlocked that day' }),
  campaignRevenueCents: Type.Integer({ minimum: 0, description: 'their prices' }),
  revenueCents: Type.Integer({ minimum: 0, description: 'all revenue paid that day' }),
});

/** The local days of [from, to) (each whole: a bound inside a day takes that day in). */
function daysOf(from: number, to: number, tz: string): { day: string; from: number; to: number }[] {
  const label = new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' });
  const out: { day: string; from: number; to: number }[] = [];
  for (let d = localDay(from, tz); d.start < to; d = localDay(d.end, tz)) {
    out.push({ day: label.format(d.start), from: d.start, to: d.end });
    if (out.length > MAX_DAILY_DAYS) break;
  }
  return out;
}

export const moneyRoutes: FastifyPluginAsyncTypebox<MoneyRouteOptions> = async (app, opts) => {
  // Read at each call, not captured: a clock set for a test (or by a time-travel tool) reaches every route.
  const clock = opts.now ?? ((): number => Date.now());
  app.get('/api/conversion', {
    config: { rateClass: 'report' },
    schema: {
      summary: 'Which messages make money: per chatter and per account, direct messages, direct PPVs sent (golden ratio), PPVs unlocked (unlock ratio), PPV revenue, credited revenue per direct message, median PPV price and time to unlock; per campaign (queue), fans reached, unlocks, unlock rate and revenue (see docs/api.md, "Money")',
      querystring: Type.Object({ accountId: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'only this account' })), ...WindowParams, model: CreditModelParam }, { additionalProperties: false }),
      response: { 200: ConversionSchema },
    },
  }, async (request) => {
    const w = parseWindow(request.query, opts.reportTimezone);
    const now = clock();
    assertCreditable(w, request.query.model, now);
    const inScope = accountFilter(request, request.query.accountId);
    const report = await conversionOf(await opts.models.active(), w, inScope, now, attribution(request.query.model, opts.clockIdleSec));
    return { ...report, model: request.query.model, window: await windowOut(w, opts.definitions) };
  });

  app.get('/api/conversion/daily', {
    config: { rateClass: 'report' },
    schema: {
      summary: `The money figures per local day (REPORT_TIMEZONE) of the window, summed over the accounts in scope: the console's chart. Default: the last ${DEFAULT_DAILY_DAYS} days up to today; at most ${MAX_DAILY_DAYS} days (400 naming from)`,
      querystring: Type.Object({ accountId: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'only this account' })), ...WindowParams, model: CreditModelParam }, { additionalProperties: false }),
      response: { 200: Type.Object({ days: Type.Array(DaySchema, { description: 'oldest first, one per local day, days without activity included' }), timezone: Type.String(), model: CreditModelEcho, window: Type.Object({ from: Time, to: Time }, { description: 'the whole days the series covers' }) }) },
    },
  }, async (request) => {
    const now = clock();
    const w = parseWindow(request.query, opts.reportTimezone);
    const to = Number.isFinite(w.to) ? w.to : localDay(now, opts.reportTimezone).end;
    const from = Number.isFinite(w.from) ? w.from : localDay(to - 1, opts.reportTimezone).start - (DEFAULT_DAILY_DAYS - 1) * 86_400_000;
    if (!(to > from)) throw new ApiError('INVALID_INPUT', 'to: must be after from');
    const days = daysOf(from, to, opts.reportTimezone);
    if (days.length > MAX_DAILY_DAYS) throw new ApiError('INVALID_INPUT', `from: the daily series spans at most ${MAX_DAILY_DAYS} days (a window read per day); give a from no earlier than ${MAX_DAILY_DAYS} days before to`);
    const inScope = accountFilter(request, request.query.accountId);
    const series = await conversionByDay(await opts.models.active(), days, inScope, now, attribution(request.query.model, opts.clockIdleSec));
    return { days: series.map((d) => ({ ...d, from: iso(d.from), to: iso(d.to) })), timezone: opts.reportTimezone, model: request.query.model, window: { from: iso(days[0]?.from ?? from), to: iso(days[days.length - 1]?.to ?? to) } };
  });
};
