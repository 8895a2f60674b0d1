// Business hours: an account's weekly opening hours in its own time zone, less its holidays,
// and how many milliseconds of a span fall inside them. Pure: no I/O, no clock.
//
// The calendar arithmetic (which instant is 09:00 on a local date, across daylight-saving
// changes) is Temporal's, from the `temporal-polyfill` package, not hand-written Intl code.
// Chosen over @date-fns/tz and @js-temporal/polyfill: Temporal says what to do with a wall
// time that is skipped or repeated in so many words (`disambiguation`, and the transition
// instant from `getTimeZoneTransition`), so the rule below is two calls, where a Date-based
// TZDate leaves it to be reconstructed from offsets; @js-temporal/polyfill is the proposal's
// reference implementation (BigInt arithmetic through jsbi, built for exactness, several
// times larger); temporal-polyfill is the small spec-complete one, and code written against
// Temporal runs on the native one once Node ships it. About 27 µs a conversion here, asked
// once per account and local date: a day's open intervals are kept as epoch-ms pairs, and a
// span is then measured with integer arithmetic only (100,000 spans in about 50 ms).
//
// Wall times that do not map to exactly one instant:
// - a time that does not exist (the clocks jump forward over it, spring) means the instant
//   of the jump: "open 02:30" on a day Berlin jumps from 02:00 to 03:00 opens at 03:00;
// - a time that exists twice (the clocks fall back, autumn) means the earlier instant, the
//   first time the clock shows it: "open 02:30" opens at 02:30 summer time, and "close
//   02:30" closes then too (the repeated half hour after it is closed).
// An end of "24:00" is the start of the next local date (by the same rules). Every other
// wall time maps to its one instant, so a day's intervals never run backwards.
import { Temporal } from 'temporal-polyfill';
import { waitedSec, wholeSec } from './sla.js';

export const DAY_KEYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type DayKey = (typeof DAY_KEYS)[number];

/** [start, end) as "HH:MM" wall times; end may be "24:00". */
export type WallInterval = readonly [string, string];

export interface BusinessHours {
  /** An IANA time zone (Europe/Berlin) or a fixed offset (+01:00). */
  readonly timezone: string;
  /** Open intervals per weekday; a day left out, or with no interval, is closed. */
  readonly weekly: Readonly<Partial<Record<DayKey, readonly WallInterval[]>>>;
  /** Local dates (YYYY-MM-DD) closed all day. */
  readonly holidays: readonly string[];
}

/** Bounds a schedule is held to: enough for split shifts and every holiday of a decade or so. */
export const MAX_INTERVALS_PER_DAY = 6;
export const MAX_HOLIDAYS = 400;
export const MAX_TIMEZONE_LENGTH = 64;
const EARLIEST_HOLIDAY_YEAR = 2000;
const LATEST_HOLIDAY_YEAR = 2100;

export interface ScheduleIssue {
  /** Where in the schedule: `timezone`, `weekly.mon[1][0]`, `holidays[3]`. */
  readonly field: string;
  readonly reason: string;
}

export type Validated = { readonly ok: true; readonly schedule: BusinessHours } | { readonly ok: false; readonly issue: ScheduleIssue };

const TIME = /^([01]\d|2[0-4]):([0-5]\d)$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Minutes after local midnight of "HH:MM" (24:00 is 1440), or null when it is no such time. */
export function wallMinutes(text: string): number | null {
  const m = TIME.exec(text);
  if (!m) return null;
  const minutes = Number(m[1]) * 60 + Number(m[2]);
  return minutes > 1440 ? null : minutes;
}

/** The zone's canonical id, or null when Temporal knows no such zone. */
export function canonicalZone(tz: string): string | null {
  if (tz.length === 0 || tz.length > MAX_TIMEZONE_LENGTH) return null;
  try {
    return Temporal.Instant.fromEpochMilliseconds(0).toZonedDateTimeISO(tz).timeZoneId;
  } catch {
    return null;
  }
}

/** Days since 1970-01-01 of a real calendar date YYYY-MM-DD in the holiday range, else null. */
export function dayNumberOf(text: string): number | null {
  const m = DATE.exec(text);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = Date.UTC(y, mo - 1, d);
  const back = new Date(t);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) return null;
  return t / DAY_MS;
}

/**
 * Checks a schedule as a caller sent it and returns it normalised (zone canonical, each day's
 * intervals in order, holidays sorted), or the first problem, naming the field and the reason.
 */
export function validateBusinessHours(input: unknown): Validated {
  const fail = (field: string, reason: string): Validated => ({ ok: false, issue: { field, reason } });
  if (!isRecord(input)) return fail('body', 'must be a JSON object');
  for (const key of Object.keys(input)) {
    if (key !== 'timezone' && key !== 'weekly' && key !== 'holidays') return fail(key, 'is not a known field (timezone, weekly, holidays)');
  }
  const { timezone, weekly, holidays = [] } = input;
  if (typeof timezone !== 'string') return fail('timezone', 'must be an IANA time zone such as Europe/Berlin');
  const zone = canonicalZone(timezone);
  if (zone === null) return fail('timezone', `"${timezone.slice(0, MAX_TIMEZONE_LENGTH)}" is not a known time zone (an IANA name such as Europe/Berlin, or an offset such as +01:00)`);
  if (!isRecord(weekly)) return fail('weekly', 'must be an object of days (mon … sun), each a list of ["HH:MM", "HH:MM"] intervals');
  const days: Partial<Record<DayKey, WallInterval[]>> = {};
  for (const [day, list] of Object.entries(weekly)) {
    if (!(DAY_KEYS as readonly string[]).includes(day)) return fail(`weekly.${day}`, `is not a day (one of ${DAY_KEYS.join(', ')})`);
    if (!Array.isArray(list)) return fail(`weekly.${day}`, 'must be a list of ["HH:MM", "HH:MM"] intervals ([] for closed)');
    if (list.length > MAX_INTERVALS_PER_DAY) return fail(`weekly.${day}`, `has ${list.length} intervals; at most ${MAX_INTERVALS_PER_DAY} a day`);
    const parsed: { start: number; end: number; raw: WallInterval; at: number }[] = [];
    for (const [i, pair] of list.entries()) {
      const here = `weekly.${day}[${i}]`;
      if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string' || typeof pair[1] !== 'string') return fail(here, 'must be a pair ["HH:MM", "HH:MM"]');
      const start = wallMinutes(pair[0]);
      const end = wallMinutes(pair[1]);
      if (start === null || start >= 1440) return fail(`${here}[0]`, `"${pair[0].slice(0, 10)}" is not a time of day from 00:00 to 23:59`);
      if (end === null) return fail(`${here}[1]`, `"${pair[1].slice(0, 10)}" is not a time of day from 00:00 to 24:00`);
      if (end <= start) return fail(`${here}[1]`, `must be after the start ${pair[0]} (use 24:00 for midnight at the end of the day)`);
      parsed.push({ start, end, raw: [pair[0], pair[1]], at: i });
    }
    parsed.sort((a, b) => a.start - b.start);
    for (let i = 1; i < parsed.length; i++) {
      const [prev, cur] = [parsed[i - 1], parsed[i]];
      if (prev && cur && cur.start < prev.end) return fail(`weekly.${day}[${cur.at}]`, `overlaps ${prev.raw[0]}–${prev.raw[1]}`);
    }
    days[day as DayKey] = parsed.map((p) => p.raw);
  }
  if (!Array.isArray(holidays)) return fail('holidays', 'must be a list of dates YYYY-MM-DD');
  if (holidays.length > MAX_HOLIDAYS) return fail('holidays', `has ${holidays.length} dates; at most ${MAX_HOLIDAYS}`);
  const seen = new Set<string>();
  for (const [i, h] of holidays.entries()) {
    if (typeof h !== 'string') return fail(`holidays[${i}]`, 'must be a date YYYY-MM-DD');
    const day = dayNumberOf(h);
    if (day === null) return fail(`holidays[${i}]`, `"${h.slice(0, 20)}" is not a calendar date YYYY-MM-DD`);
    const year = Number(h.slice(0, 4));
    if (year < EARLIEST_HOLIDAY_YEAR || year > LATEST_HOLIDAY_YEAR) return fail(`holidays[${i}]`, `must be from ${EARLIEST_HOLIDAY_YEAR} to ${LATEST_HOLIDAY_YEAR}`);
    if (seen.has(h)) return fail(`holidays[${i}]`, `${h} is listed twice`);
    seen.add(h);
  }
  return { ok: true, schedule: { timezone: zone, weekly: days, holidays: [...seen].sort() } };
}

const DAY_MS = 86_400_000;
/** Per schedule, days kept (local dates and UTC days each): decades of history, a few MB at most. */
const KEPT_DAYS = 40_000;
const NO_INTERVALS = new Float64Array(0);

/** Monday 0 … Sunday 6 of the date `day` days after 1970-01-01 (a Thursday). */
export const weekdayOf = (day: number): number => (((day + 3) % 7) + 7) % 7;

/**
 * A schedule ready to measure with. Keeps, per local date, its open intervals as epoch-ms pairs
 * and, per UTC day, the union of the local dates' intervals that touch it; a span is then
 * summed over its UTC days (a full day in one addition). Not shared across threads; cheap to
 * keep per account while the schedule is unchanged.
 */
export class BusinessClock {
  private readonly zone: string;
  /** Wall minutes [start, end) per weekday, Monday first. */
  private readonly week: readonly (readonly (readonly [number, number])[])[];
  private readonly holidays: ReadonlySet<number>;
  private readonly localDays = new Map<number, Float64Array>();
  private readonly utcDays = new Map<number, { readonly pairs: Float64Array; readonly total: number }>();

  constructor(readonly schedule: BusinessHours) {
    this.zone = schedule.timezone;
    this.week = DAY_KEYS.map((k) => (schedule.weekly[k] ?? []).map(([s, e]) => [wallMinutes(s) ?? 0, wallMinutes(e) ?? 0] as const));
    this.holidays = new Set(schedule.holidays.map((h) => dayNumberOf(h)).filter((d): d is number => d !== null));
  }

  /** Milliseconds of [fromMs, toMs) inside open hours; 0 for an empty or reversed span. */
  businessMs(fromMs: number, toMs: number): number {
    if (!(toMs > fromMs)) return 0;
    let total = 0;
    const last = Math.floor((toMs - 1) / DAY_MS);
    for (let d = Math.floor(fromMs / DAY_MS); d <= last; d++) {
      const day = this.utcDay(d);
      if (day.total === 0) continue;
      const [lo, hi] = [d * DAY_MS, (d + 1) * DAY_MS];
      if (fromMs <= lo && toMs >= hi) {
        total += day.total;
        continue;
      }
      const p = day.pairs;
      for (let i = 0; i < p.length; i += 2) {
        const a = Math.max(p[i] as number, fromMs);
        const b = Math.min(p[i + 1] as number, toMs);
        if (b > a) total += b - a;
      }
    }
    return total;
  }

  /**
   * The instant by which `ms` of open hours have passed since `fromMs` (the earliest such
   * instant, so an end that falls on a closing is that closing); `fromMs` itself for 0. Null
   * when the schedule has not that much open time in the `horizonDays` after `fromMs` (by
   * default 800 days, or ten times the span in days: a week open a tenth of the time or more
   * reaches any span; a schedule closed for longer does not).
   */
  instantAfter(fromMs: number, ms: number, horizonDays = Math.max(800, Math.ceil(ms / DAY_MS) * 10)): number | null {
    if (!(ms > 0)) return fromMs;
    let left = ms;
    const first = Math.floor(fromMs / DAY_MS);
    for (let d = first; d <= first + horizonDays; d++) {
      const day = this.utcDay(d);
      if (day.total === 0) continue;
      // A whole day after the start that does not finish the count: one subtraction.
      if (d * DAY_MS >= fromMs && day.total < left) {
        left -= day.total;
        continue;
      }
      const p = day.pairs;
      for (let i = 0; i < p.length; i += 2) {
        const a = Math.max(p[i] as number, fromMs);
        const b = p[i + 1] as number;
        if (b <= a) continue;
        if (b - a >= left) return a + left;
        left -= b - a;
      }
    }
    return null;
  }

  /** Open hours at an instant. */
  isOpen(atMs: number): boolean {
    return this.businessMs(atMs, atMs + 1) === 1;
  }

  /** The open intervals of a local date (days since 1970-01-01) as epoch-ms pairs, in order. */
  localDateIntervals(day: number): Float64Array {
    let pairs = this.localDays.get(day);
    if (pairs) return pairs;
    const wall = this.holidays.has(day) ? [] : (this.week[weekdayOf(day)] ?? []);
    if (wall.length === 0) pairs = NO_INTERVALS;
    else {
      const out: number[] = [];
      for (const [s, e] of wall) {
        const a = this.instantOf(day, s);
        const b = this.instantOf(day, e);
        if (b > a) out.push(a, b);
      }
      pairs = out.length === 0 ? NO_INTERVALS : Float64Array.from(out);
    }
    remember(this.localDays, day, pairs);
    return pairs;
  }

  private utcDay(d: number): { readonly pairs: Float64Array; readonly total: number } {
    const known = this.utcDays.get(d);
    if (known) return known;
    const [lo, hi] = [d * DAY_MS, (d + 1) * DAY_MS];
    // Every zone's offset is under a day, so only the local dates either side can touch UTC day d.
    const clipped: [number, number][] = [];
    for (const local of [d - 1, d, d + 1]) {
      const p = this.localDateIntervals(local);
      for (let i = 0; i < p.length; i += 2) {
        const a = Math.max(p[i] as number, lo);
        const b = Math.min(p[i + 1] as number, hi);
        if (b > a) clipped.push([a, b]);
      }
    }
    clipped.sort((x, y) => x[0] - y[0]);
    const merged: number[] = [];
    let total = 0;
    for (const [a, b] of clipped) {
      const end = merged.length - 1;
      if (end > 0 && a <= (merged[end] as number)) merged[end] = Math.max(merged[end] as number, b);
      else merged.push(a, b);
    }
    for (let i = 0; i < merged.length; i += 2) total += (merged[i + 1] as number) - (merged[i] as number);
    const day = { pairs: Float64Array.from(merged), total };
    remember(this.utcDays, d, day);
    return day;
  }

  private instantOf(day: number, minutes: number): number {
    return wallInstant(this.zone, day, minutes);
  }
}

/** The instant of wall time `minutes` (0 and up; past 1440 runs into the next days) on local date `day` in `zone`, by the rules at the top of this file. */
export function wallInstant(zone: string, day: number, minutes: number): number {
  if (minutes >= 1440) return wallInstant(zone, day + Math.floor(minutes / 1440), minutes % 1440);
  // Temporal's zone arithmetic costs tens of microseconds; rosters ask for the same few wall
  // times of the same days again and again.
  const key = `${zone}|${day}|${minutes}`;
  const known = instants.get(key);
  if (known !== undefined) return known;
  const at = instantOfWall(zone, day, minutes);
  if (instants.size >= KEPT_INSTANTS) instants.clear();
  instants.set(key, at);
  return at;
}

const KEPT_INSTANTS = 200_000;
const instants = new Map<string, number>();

function instantOfWall(zone: string, day: number, minutes: number): number {
  const date = new Date(day * DAY_MS);
  const wall = new Temporal.PlainDateTime(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate(), Math.floor(minutes / 60), minutes % 60);
  // `earlier`: a repeated time is its first instant; a skipped one lands before the jump…
  const earlier = wall.toZonedDateTime(zone, { disambiguation: 'earlier' });
  if (Temporal.PlainDateTime.compare(earlier.toPlainDateTime(), wall) === 0) return earlier.epochMilliseconds;
  // …and is moved to the jump itself.
  const jump = earlier.getTimeZoneTransition('next');
  return jump ? jump.epochMilliseconds : earlier.epochMilliseconds;
}

function remember<V>(map: Map<number, V>, key: number, value: V): void {
  if (map.size >= KEPT_DAYS) map.clear();
  map.set(key, value);
}

/** Milliseconds of [fromMs, toMs) inside the schedule's open hours. */
export function businessMs(schedule: BusinessHours | BusinessClock, fromMs: number, toMs: number): number {
  return (schedule instanceof BusinessClock ? schedule : new BusinessClock(schedule)).businessMs(fromMs, toMs);
}

/** Open every minute of every day: the schedule under which business time equals wall time. */
export const ALWAYS_OPEN: BusinessHours = {
  timezone: 'UTC',
  weekly: Object.fromEntries(DAY_KEYS.map((k) => [k, [['00:00', '24:00']]])),
  holidays: [],
};

/** A fan who may be waiting, as the live waits read it. */
export interface WaitingFan {
  readonly accountId: string;
  readonly awaiting: boolean;
  readonly waitingSince: number | null;
}

/** How live waits are measured (the wait rules, /api/stats with clock=business). */
export interface WaitClock {
  /** Whole seconds (domain/sla.ts) the fan has waited at `now`; null when nobody waits. */
  waitedSec(s: WaitingFan, now: number): number | null;
  /** Whether the account's waits count open hours only. */
  inBusinessHours(accountId: string): boolean;
}

export const WALL_CLOCK: WaitClock = { waitedSec, inBusinessHours: () => false };

/** Waits in each account's open hours where `clocks` has its schedule, in wall-clock time elsewhere. */
export function businessWaitClock(clocks: ReadonlyMap<string, BusinessClock>): WaitClock {
  if (clocks.size === 0) return WALL_CLOCK;
  return {
    waitedSec(s, now) {
      const clock = clocks.get(s.accountId);
      if (!clock) return waitedSec(s, now);
      return s.awaiting && s.waitingSince !== null ? wholeSec(clock.businessMs(s.waitingSince, now)) : null;
    },
    inBusinessHours: (accountId) => clocks.has(accountId),
  };
}
