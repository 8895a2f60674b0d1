// The `from` / `to` query parameters of the report routes: ISO-8601 instants with a zone
// (`2026-11-23T09:00:00Z`, `...+02:00`) or local dates (`2026-11-23`: midnight in
// REPORT_TIMEZONE). `from` is inclusive, `to` exclusive; an absent bound leaves the window open.
import { Type, type Static } from '@fastify/type-provider-typebox';
import { type DefinitionsStore } from '../definitions/definitions-store.js';
import { startOfLocalDate } from '../domain/zoned-time.js';
import { ALL_TIME, type ReportWindow } from '../read-models/report-buckets/queries.js';
import { ApiError } from './errors.js';
import { iso, Time } from './views.js';

export const WindowParams = {
  from: Type.Optional(Type.String({ minLength: 1, maxLength: 40, description: 'window start, inclusive: an ISO-8601 date-time with Z or an offset, or a date YYYY-MM-DD (midnight in REPORT_TIMEZONE); default: the beginning' })),
  to: Type.Optional(Type.String({ minLength: 1, maxLength: 40, description: 'window end, exclusive, in the same forms; default: no end' })),
};

/** How the reports measure waits (`clock`), with GET /api/sla, the scorecard, stats and their exports. */
export const ClockParam = Type.Union([Type.Literal('wall'), Type.Literal('business')], {
  default: 'wall',
  description: '`wall` (default): waits in wall-clock seconds; `business`: only the seconds inside each account\'s business hours (PUT /api/admin/accounts/:id/business-hours), by the schedule in force when each session last changed (a definitions preview with restateBusinessHours measures history by today\'s), wall-clock seconds for an account without them; any window',
});

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(Z|[+-](\d{2}):(\d{2}))$/;

function realDate(y: number, m: number, d: number): boolean {
  const t = new Date(Date.UTC(y, m - 1, d));
  return y >= 1970 && t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
}

/** Epoch ms of one bound, or a 400 naming the field. */
export function parseBound(field: string, raw: string, timezone: string): number {
  const bad = () => new ApiError('INVALID_INPUT', `${field}: "${raw.slice(0, 40)}" is not an ISO-8601 date (2026-11-23, midnight in ${timezone}) or date-time with Z or an offset (2026-11-23T09:00:00Z)`);
  const d = DATE.exec(raw);
  if (d) {
    const [y, m, day] = [Number(d[1]), Number(d[2]), Number(d[3])];
    if (!realDate(y, m, day)) throw bad();
    return startOfLocalDate(y, m, day, timezone);
  }
  const t = DATE_TIME.exec(raw);
  if (!t) throw bad();
  const [y, m, day, h, mi, s] = [Number(t[1]), Number(t[2]), Number(t[3]), Number(t[4]), Number(t[5]), Number(t[6] ?? 0)];
  if (!realDate(y, m, day) || h > 23 || mi > 59 || s > 59 || (t[9] !== undefined && (Number(t[9]) > 23 || Number(t[10]) > 59))) throw bad();
  const at = Date.parse(raw);
  if (!Number.isFinite(at)) throw bad();
  return at;
}

export function parseWindow(q: { from?: string; to?: string }, timezone: string): ReportWindow {
  const from = q.from === undefined ? ALL_TIME.from : parseBound('from', q.from, timezone);
  const to = q.to === undefined ? ALL_TIME.to : parseBound('to', q.to, timezone);
  if (!(to > from)) throw new ApiError('INVALID_INPUT', `to: must be after from (${q.from} → ${q.to})`);
  return { from, to };
}

/**
 * The longest window the `shift` attribution model credits: it joins the window's payments with
 * its clock intervals at read time (a payment and the clock are facts of different chats, and no
 * bucket can hold a credit that a later clock event would change), so it is bounded like the
 * shift report.
 */
export const MAX_SHIFT_CREDIT_WINDOW_DAYS = 92;

/** A 400 naming `from` when `model=shift` is asked over an open-ended or longer window (an open to counts up to now). */
export function assertCreditable(w: ReportWindow, model: string, now: number): void {
  if (model !== 'shift') return;
  const end = Number.isFinite(w.to) ? w.to : now;
  if (!Number.isFinite(w.from) || end - w.from > MAX_SHIFT_CREDIT_WINDOW_DAYS * 86_400_000) {
    throw new ApiError('INVALID_INPUT', `from: with model=shift the window may span at most ${MAX_SHIFT_CREDIT_WINDOW_DAYS} days (an open to counts up to now), because shift credit joins the window's payments with the clock intervals when it is asked; give a from no earlier than ${MAX_SHIFT_CREDIT_WINDOW_DAYS} days before to`);
  }
}

/** The definitions versions in force over a window, as report answers name them (with the window). */
export const DefinitionsInForceSchema = Type.Array(Type.Object({
  version: Type.Integer({ minimum: 1 }),
  since: Type.String({ format: 'date-time', description: 'when a processor first decided under it' }),
  until: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'when the next version took over for chats first seen from then; null: in force now' }),
  values: Type.Object({
    sessionIdleSec: Type.Integer(), allowedLatenessSec: Type.Integer(), unansweredCloseSec: Type.Integer(), attributionLookbackSec: Type.Integer(),
  }),
}), { description: 'the definitions versions the window\'s figures may have been decided under, oldest first: every version begun before the window\'s end, since a chat keeps the version it was first seen under (GET /api/sessions/:id/explain names a chat\'s own). Empty before any processor has run' });

export const WindowSchema = Type.Object({ from: Time, to: Time, definitions: DefinitionsInForceSchema }, { description: 'the report window; null for an open end' });

/** The window as answers name it, with the definitions versions in force over it. */
export async function windowOut(w: ReportWindow, definitions: DefinitionsStore): Promise<Static<typeof WindowSchema>> {
  const versions = await definitions.inForceUntil(w.to);
  return { ...windowView(w), definitions: versions.map((v) => ({ version: v.version, since: new Date(v.since).toISOString(), until: v.until === null ? null : new Date(v.until).toISOString(), values: v.values })) };
}

export function windowView(w: ReportWindow): { from: string | null; to: string | null } {
  return { from: Number.isFinite(w.from) ? iso(w.from) : null, to: Number.isFinite(w.to) ? iso(w.to) : null };
}

export const isAllTime = (w: ReportWindow): boolean => w.from === -Infinity && w.to === Infinity;
