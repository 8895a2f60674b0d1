// Business hours against a reference model written apart from the implementation and its
// library: it steps through time a minute at a time, reads each minute's local date and time
// with plain Intl.DateTimeFormat, and counts the open minutes. Across a weekend, a holiday and
// both daylight-saving changes in Europe/Berlin and America/New_York, by hand and as a
// property over random schedules and spans. A property failure prints fast-check's seed and
// path: rerun with PROPERTY_SEED / PROPERTY_PATH.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ALWAYS_OPEN, BusinessClock, businessMs, businessWaitClock, DAY_KEYS, MAX_HOLIDAYS, MAX_INTERVALS_PER_DAY, validateBusinessHours, type BusinessHours, type DayKey,
} from '../../src/domain/business-hours.js';

const MINUTE = 60_000;
const DAY = 86_400_000;
const at = (iso: string): number => Date.parse(iso);

// ---------------------------------------------------------------------------------------------
// The reference model. The rule it encodes, as docs/api.md states it: an interval of a local
// date opens at the first instant whose local wall time is at or after its start (so a start
// the clocks skip opens at the jump, a start they repeat at its first pass) and closes likewise
// at its end; "24:00" is the next date's 00:00. All zones used here change on whole minutes.

const formats = new Map<string, Intl.DateTimeFormat>();
/** Local wall time of `t` as minutes since 1970-01-01 00:00 on the local calendar. */
function wallMinute(t: number, tz: string): number {
  let f = formats.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric' });
    formats.set(tz, f);
  }
  const p: Record<string, number> = {};
  for (const part of f.formatToParts(new Date(t))) if (part.type !== 'literal') p[part.type] = Number(part.value);
  return Date.UTC(p.year ?? 0, (p.month ?? 1) - 1, p.day ?? 1, p.hour ?? 0, p.minute ?? 0) / MINUTE;
}

const hhmm = (s: string): number => Number(s.slice(0, 2)) * 60 + Number(s.slice(3, 5));
const WEEKDAY: readonly DayKey[] = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

/** Open minutes of [from, to) (both on whole minutes), counted one by one. */
function referenceMinutes(s: BusinessHours, from: number, to: number): number {
  const pad = 2 * DAY;
  const start = from - pad;
  const n = (to + pad - start) / MINUTE;
  const wall: number[] = [];
  for (let i = 0; i < n; i++) wall.push(wallMinute(start + i * MINUTE, s.timezone));
  const firstAtOrAfter = (w: number): number => {
    for (let i = 0; i < n; i++) if ((wall[i] as number) >= w) return i;
    return n;
  };
  const open = new Uint8Array(n);
  const holidays = new Set(s.holidays);
  const dates = new Set(wall.map((w) => Math.floor(w / 1440)));
  for (const date of dates) {
    const d = new Date(date * DAY);
    if (holidays.has(d.toISOString().slice(0, 10))) continue;
    for (const [a, b] of s.weekly[WEEKDAY[d.getUTCDay()] as DayKey] ?? []) {
      const [i, j] = [firstAtOrAfter(date * 1440 + hhmm(a)), firstAtOrAfter(date * 1440 + hhmm(b))];
      for (let k = i; k < j; k++) open[k] = 1;
    }
  }
  let count = 0;
  for (let i = pad / MINUTE; i < n - pad / MINUTE; i++) count += open[i] as number;
  return count;
}

const weekdays = (intervals: [string, string][]): BusinessHours['weekly'] => ({ mon: intervals, tue: intervals, wed: intervals, thu: intervals, fri: intervals });
const office = (timezone: string, holidays: string[] = []): BusinessHours => ({ timezone, weekly: weekdays([['09:00', '17:00']]), holidays });

/** Minutes by the implementation, checked against the reference on the way. */
function minutes(s: BusinessHours, from: string, to: string): number {
  const [a, b] = [at(from), at(to)];
  const mine = businessMs(s, a, b);
  expect(mine / MINUTE, `reference ${from} → ${to}`).toBe(referenceMinutes(s, a, b));
  return mine / MINUTE;
}

describe('business hours against the reference model', () => {
  it('a weekend: Friday 16:55 to Monday 09:03 is 8 open minutes (Berlin office hours)', () => {
    expect(minutes(office('Europe/Berlin'), '2026-11-13T15:55:00Z', '2026-11-16T08:03:00Z')).toBe(8);
    // Starting and ending while closed: only Monday's opening counts.
    expect(minutes(office('Europe/Berlin'), '2026-11-14T10:00:00Z', '2026-11-16T08:30:00Z')).toBe(30);
  });

  it('a holiday is closed all day: Christmas Friday in Berlin', () => {
    const s = office('Europe/Berlin', ['2026-12-25']);
    // Thursday 16:00–17:00 local, then Monday 09:00–09:30.
    expect(minutes(s, '2026-12-24T15:00:00Z', '2026-12-28T08:30:00Z')).toBe(90);
    expect(minutes(office('Europe/Berlin'), '2026-12-24T15:00:00Z', '2026-12-28T08:30:00Z')).toBe(90 + 8 * 60);
  });

  it('spring forward in Berlin (2026-03-29): a day of 23 hours; an opening the clocks skip opens at the jump', () => {
    // 01:00 CET is 00:00Z; 05:00 CEST is 03:00Z: three real hours.
    expect(minutes({ timezone: 'Europe/Berlin', weekly: { sun: [['01:00', '05:00']] }, holidays: [] }, '2026-03-28T12:00:00Z', '2026-03-30T12:00:00Z')).toBe(180);
    // 02:30 does not exist: open from the jump (03:00 CEST, 01:00Z) to 04:00 CEST (02:00Z).
    expect(minutes({ timezone: 'Europe/Berlin', weekly: { sun: [['02:30', '04:00']] }, holidays: [] }, '2026-03-28T12:00:00Z', '2026-03-30T12:00:00Z')).toBe(60);
    // Open all day: 23 hours.
    expect(minutes({ timezone: 'Europe/Berlin', weekly: { sun: [['00:00', '24:00']] }, holidays: [] }, '2026-03-28T12:00:00Z', '2026-03-30T12:00:00Z')).toBe(23 * 60);
    // Closing inside the gap closes at the jump too.
    expect(minutes({ timezone: 'Europe/Berlin', weekly: { sun: [['01:00', '02:30']] }, holidays: [] }, '2026-03-28T12:00:00Z', '2026-03-30T12:00:00Z')).toBe(60);
  });

  it('fall back in Berlin (2026-10-25): a day of 25 hours; a time the clocks repeat means its first pass', () => {
    // 01:00 CEST (23:00Z) to 05:00 CET (04:00Z): five real hours.
    expect(minutes({ timezone: 'Europe/Berlin', weekly: { sun: [['01:00', '05:00']] }, holidays: [] }, '2026-10-24T12:00:00Z', '2026-10-26T12:00:00Z')).toBe(300);
    // Opening at 02:30 opens at 02:30 CEST (00:30Z), the first pass, until 04:00 CET (03:00Z).
    expect(minutes({ timezone: 'Europe/Berlin', weekly: { sun: [['02:30', '04:00']] }, holidays: [] }, '2026-10-24T12:00:00Z', '2026-10-26T12:00:00Z')).toBe(150);
    // Closing at 02:30 closes at the first pass too: 00:00 CEST (22:00Z) to 00:30Z.
    expect(minutes({ timezone: 'Europe/Berlin', weekly: { sun: [['00:00', '02:30']] }, holidays: [] }, '2026-10-24T12:00:00Z', '2026-10-26T12:00:00Z')).toBe(150);
    expect(minutes({ timezone: 'Europe/Berlin', weekly: { sun: [['00:00', '24:00']] }, holidays: [] }, '2026-10-24T12:00:00Z', '2026-10-26T12:00:00Z')).toBe(25 * 60);
  });

  it('New York: both changes (2026-03-08 and 2026-11-01), and office hours across them', () => {
    const sunday = (a: string, b: string): BusinessHours => ({ timezone: 'America/New_York', weekly: { sun: [[a, b]] }, holidays: [] });
    expect(minutes(sunday('00:00', '24:00'), '2026-03-07T12:00:00Z', '2026-03-09T12:00:00Z')).toBe(23 * 60);
    expect(minutes(sunday('02:15', '03:30'), '2026-03-07T12:00:00Z', '2026-03-09T12:00:00Z')).toBe(30);
    expect(minutes(sunday('00:00', '24:00'), '2026-10-31T12:00:00Z', '2026-11-02T12:00:00Z')).toBe(25 * 60);
    expect(minutes(sunday('01:30', '03:00'), '2026-10-31T12:00:00Z', '2026-11-02T12:00:00Z')).toBe(150);
    // Friday 16:00 EST before the spring change to Monday 10:00 EDT: 60 + 60 minutes.
    expect(minutes(office('America/New_York'), '2026-03-06T21:00:00Z', '2026-03-09T14:00:00Z')).toBe(120);
    expect(minutes(office('America/New_York'), '2026-10-30T20:00:00Z', '2026-11-02T15:00:00Z')).toBe(60 + 60);
  });

  it('open around the clock, business time is wall time, to the millisecond, across both changes', () => {
    const always = { ...ALWAYS_OPEN, timezone: 'Europe/Berlin' };
    for (const [a, b] of [['2026-03-27T23:59:59.250Z', '2026-03-30T00:00:00.750Z'], ['2026-10-24T10:00:00.001Z', '2026-10-26T10:00:01.500Z'], ['2026-06-01T00:00:00Z', '2026-06-01T00:00:00.001Z']] as const) {
      expect(businessMs(always, at(a), at(b))).toBe(at(b) - at(a));
    }
    expect(businessMs(ALWAYS_OPEN, at('2025-01-01T00:00:00Z'), at('2027-01-01T00:00:00Z'))).toBe(at('2027-01-01T00:00:00Z') - at('2025-01-01T00:00:00Z'));
  });

  it('an end of 24:00 runs to the next midnight, and touching intervals make one', () => {
    const s: BusinessHours = { timezone: 'UTC', weekly: { mon: [['22:00', '24:00']], tue: [['00:00', '01:00']] }, holidays: [] };
    expect(minutes(s, '2026-11-23T21:00:00Z', '2026-11-24T02:00:00Z')).toBe(180);
    expect(businessMs(s, at('2026-11-24T00:00:00Z'), at('2026-11-23T00:00:00Z')), 'a reversed span').toBe(0);
  });

  it('live waits: in open hours where the account has a schedule, wall-clock elsewhere', () => {
    const clocks = new Map([['acct_b', new BusinessClock(office('Europe/Berlin'))]]);
    const waits = businessWaitClock(clocks);
    const since = at('2026-11-13T15:55:00Z');
    const now = at('2026-11-16T08:03:00Z');
    expect(waits.waitedSec({ accountId: 'acct_b', awaiting: true, waitingSince: since }, now)).toBe(480);
    expect(waits.waitedSec({ accountId: 'acct_w', awaiting: true, waitingSince: since }, now)).toBe((now - since) / 1000);
    expect(waits.waitedSec({ accountId: 'acct_b', awaiting: false, waitingSince: null }, now)).toBeNull();
    expect([waits.inBusinessHours('acct_b'), waits.inBusinessHours('acct_w')]).toEqual([true, false]);
  });
});

// ---------------------------------------------------------------------------------------------
// The property: random schedules and spans, near the daylight-saving changes half the time.

/** Zones, each with the instants its clocks change in 2026 (Lord Howe by half an hour). */
const ZONES: Record<string, number[]> = {
  'Europe/Berlin': ['2026-03-29T01:00:00Z', '2026-10-25T01:00:00Z'].map(at),
  'America/New_York': ['2026-03-08T07:00:00Z', '2026-11-01T06:00:00Z'].map(at),
  'Australia/Lord_Howe': ['2026-04-04T15:00:00Z', '2026-10-03T15:30:00Z'].map(at),
  'UTC': [],
  'Asia/Kolkata': [],
};
const QUARTER = 15;

// Quarter hours, often between 01:00 and 03:30, where the clocks change in these zones.
const markArb = fc.oneof(fc.integer({ min: 0, max: 96 }), fc.integer({ min: 4, max: 14 }));
const dayArb = fc.uniqueArray(markArb, { minLength: 0, maxLength: 6 }).map((marks) => {
  const sorted = [...marks].sort((a, b) => a - b);
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < sorted.length; i += 2) {
    const clock = (q: number) => `${String(Math.floor((q * QUARTER) / 60)).padStart(2, '0')}:${String((q * QUARTER) % 60).padStart(2, '0')}`;
    out.push([clock(sorted[i] as number), clock(sorted[i + 1] as number)]);
  }
  return out;
});
const scheduleArb = (timezone: string): fc.Arbitrary<BusinessHours> => fc.record({
  timezone: fc.constant(timezone),
  weekly: fc.record(Object.fromEntries(DAY_KEYS.map((d) => [d, dayArb])) as Record<DayKey, typeof dayArb>, { requiredKeys: [] }),
  holidays: fc.constant([] as string[]),
});
/** Holidays on the dates around a span (days from its start), so they matter. */
const holidaysArb = fc.uniqueArray(fc.integer({ min: -1, max: 5 }), { maxLength: 3 });
const holidaysNear = (from: number, offsets: readonly number[]): string[] => offsets.map((d) => new Date(from + d * DAY).toISOString().slice(0, 10));
const spanArb = (changes: readonly number[]) => fc.tuple(
  fc.oneof(...(changes.length > 0 ? [fc.constantFrom(...changes)] : []), fc.integer({ min: at('2026-01-01T00:00:00Z') / MINUTE, max: at('2026-12-20T00:00:00Z') / MINUTE }).map((m) => m * MINUTE)),
  fc.integer({ min: -3 * 1440, max: 1440 }),
  fc.integer({ min: 0, max: 4 * 1440 }),
).map(([anchor, offset, length]) => [anchor + offset * MINUTE, anchor + (offset + length) * MINUTE] as const);

/** A schedule and a span in one zone, the span near that zone's changes half the time. */
const caseArb = fc.constantFrom(...Object.keys(ZONES)).chain((zone) => fc.tuple(scheduleArb(zone), spanArb(ZONES[zone] ?? [])));

const replay = process.env.PROPERTY_SEED ? { seed: Number(process.env.PROPERTY_SEED), path: process.env.PROPERTY_PATH } : {};

describe('business hours, as a property', () => {
  it('random schedules and spans: the implementation counts the reference model\'s open minutes', () => {
    fc.assert(fc.property(caseArb, holidaysArb, ([base, [from, to]], offsets) => {
      const schedule = { ...base, holidays: holidaysNear(from, offsets) };
      const checked = validateBusinessHours(schedule);
      expect(checked.ok).toBe(true);
      expect(businessMs(schedule, from, to)).toBe(referenceMinutes(schedule, from, to) * MINUTE);
    }), { numRuns: 100, ...replay });
  }, 120_000);

  it('additive: a span split anywhere measures the same as the whole', () => {
    fc.assert(fc.property(caseArb, fc.double({ min: 0, max: 1, noNaN: true }), ([schedule, [from, to]], cut) => {
      const clock = new BusinessClock(schedule);
      const mid = Math.round(from + (to - from) * cut);
      expect(clock.businessMs(from, mid) + clock.businessMs(mid, to)).toBe(clock.businessMs(from, to));
      expect(clock.businessMs(from, to)).toBeLessThanOrEqual(to - from);
    }), { numRuns: 300, ...replay });
  });
});

describe('the instant a span of open hours ends (the unanswered limit on business hours)', () => {
  it('a Friday 16:55 wait of 24 open hours ends on Wednesday at 16:55, three office days on (Berlin, 09:00–17:00)', () => {
    const clock = new BusinessClock(office('Europe/Berlin'));
    const from = at('2026-11-27T15:55:00Z'); // Friday 16:55 in Berlin
    const end = clock.instantAfter(from, 24 * 3_600_000);
    expect(end).toBe(at('2026-12-02T15:55:00Z'));
    expect(referenceMinutes(office('Europe/Berlin'), from, end as number)).toBe(24 * 60);
    // Ten minutes: five on Friday, five on Monday.
    expect(clock.instantAfter(from, 10 * MINUTE)).toBe(at('2026-11-30T08:05:00Z'));
    // An end on a closing is that closing, not the next opening.
    expect(clock.instantAfter(from, 5 * MINUTE)).toBe(at('2026-11-27T16:00:00Z'));
    expect(clock.instantAfter(from, 0)).toBe(from);
  });

  it('across the October change, and never on a schedule with no open hours', () => {
    const clock = new BusinessClock(office('Europe/Berlin'));
    // Friday 2026-10-23 16:00 local (summer time) + 9 h: 1 h Friday, 8 h Monday 26th (winter time).
    expect(clock.instantAfter(at('2026-10-23T14:00:00Z'), 9 * 3_600_000)).toBe(at('2026-10-26T16:00:00Z'));
    const closed = new BusinessClock({ timezone: 'UTC', weekly: {}, holidays: [] });
    expect(closed.instantAfter(at('2026-10-23T14:00:00Z'), MINUTE)).toBeNull();
  });

  it('random schedules: the open minutes from the start to the instant are the span, and a minute less does not reach it', () => {
    fc.assert(fc.property(caseArb, fc.integer({ min: 1, max: 24 * 60 }), ([schedule, [from]], spanMinutes) => {
      const clock = new BusinessClock(schedule);
      const end = clock.instantAfter(from, spanMinutes * MINUTE);
      if (end === null) {
        // Only when the schedule has fewer open minutes than that within the horizon.
        expect(clock.businessMs(from, from + 800 * DAY)).toBeLessThan(spanMinutes * MINUTE);
        return;
      }
      expect(referenceMinutes(schedule, from, end)).toBe(spanMinutes);
      expect(referenceMinutes(schedule, from, end - MINUTE)).toBe(spanMinutes - 1);
    }), { numRuns: 12, ...replay });
  }, 120_000);
});

describe('validation names the field and the reason', () => {
  const base = { timezone: 'Europe/Berlin', weekly: { mon: [['09:00', '17:00']] } };
  const issue = (input: unknown) => {
    const v = validateBusinessHours(input);
    return v.ok ? null : v.issue;
  };
  it.each([
    [{ ...base, timezone: 'Europe/Atlantis' }, 'timezone', 'not a known time zone'],
    [{ ...base, weekly: { mon: [['25:00', '26:00']] } }, 'weekly.mon[0][0]', 'not a time of day'],
    [{ ...base, weekly: { mon: [['09:00', '24:01']] } }, 'weekly.mon[0][1]', 'not a time of day'],
    [{ ...base, weekly: { mon: [['24:00', '24:00']] } }, 'weekly.mon[0][0]', 'not a time of day'],
    [{ ...base, weekly: { mon: [['9:00', '17:00']] } }, 'weekly.mon[0][0]', 'not a time of day'],
    [{ ...base, weekly: { mon: [['17:00', '09:00']] } }, 'weekly.mon[0][1]', 'must be after the start'],
    [{ ...base, weekly: { mon: [['09:00', '09:00']] } }, 'weekly.mon[0][1]', 'must be after the start'],
    [{ ...base, weekly: { tue: [['13:00', '18:00'], ['09:00', '13:30']] } }, 'weekly.tue[0]', 'overlaps 09:00–13:30'],
    [{ ...base, weekly: { monday: [] } }, 'weekly.monday', 'is not a day'],
    [{ ...base, weekly: { mon: Array.from({ length: MAX_INTERVALS_PER_DAY + 1 }, (_, i) => [`0${i}:00`, `0${i}:30`]) } }, 'weekly.mon', `at most ${MAX_INTERVALS_PER_DAY}`],
    [{ ...base, holidays: ['2026-02-30'] }, 'holidays[0]', 'not a calendar date'],
    [{ ...base, holidays: ['2026-12-25', '25.12.2026'] }, 'holidays[1]', 'not a calendar date'],
    [{ ...base, holidays: ['2026-12-25', '2026-12-25'] }, 'holidays[1]', 'listed twice'],
    [{ ...base, holidays: ['1999-12-25'] }, 'holidays[0]', 'from 2000'],
    [{ ...base, holidays: Array.from({ length: MAX_HOLIDAYS + 1 }, (_, i) => new Date(at('2026-01-01T00:00:00Z') + i * DAY).toISOString().slice(0, 10)) }, 'holidays', `at most ${MAX_HOLIDAYS}`],
    [{ timezone: 'UTC' }, 'weekly', 'must be an object'],
    [{ ...base, extra: 1 }, 'extra', 'not a known field'],
  ])('%j → %s', (input, field, reason) => {
    const found = issue(input);
    expect(found?.field).toBe(field);
    expect(found?.reason).toContain(reason);
  });

  it('a good schedule comes back normalised: the zone canonical, intervals in order, holidays sorted', () => {
    const v = validateBusinessHours({ timezone: 'europe/berlin', weekly: { mon: [['13:00', '24:00'], ['09:00', '12:00']], sat: [] }, holidays: ['2026-12-26', '2026-12-25'] });
    expect(v).toEqual({ ok: true, schedule: { timezone: 'Europe/Berlin', weekly: { mon: [['09:00', '12:00'], ['13:00', '24:00']], sat: [] }, holidays: ['2026-12-25', '2026-12-26'] } });
  });
});
