// Rosters: what a roster may not be (each refusal names the field), and the planned shifts it
// makes, against a reference that finds wall-clock instants by scanning the zone minute by minute
// (test/support/roster-reference.ts), over random weekly slots around daylight-saving changes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plannedShifts, rosterIssue, type Roster, type WeeklySlot } from '../../src/domain/roster.js';
import { referenceShifts } from '../support/roster-reference.js';
import { propertyRuns } from '../support/property-runs.js';

const base: Roster = { timezone: 'Europe/Berlin', weekly: [], oneOff: [], absences: [] };
const slot = (day: WeeklySlot['day'], start: string, end: string, accountId = 'a'): WeeklySlot => ({ accountId, day, start, end });
const at = (s: string): number => Date.parse(s);

describe('rosterIssue', () => {
  it('takes several slots a day and slots across midnight', () => {
    expect(rosterIssue({ ...base, weekly: [slot('mon', '08:00', '12:00'), slot('mon', '13:00', '17:00'), slot('mon', '22:00', '06:00'), slot('tue', '06:00', '10:00')] })).toBeNull();
  });

  it('refuses overlapping slots, a night slot running into the next morning\'s, and Sunday night into Monday', () => {
    expect(rosterIssue({ ...base, weekly: [slot('mon', '08:00', '12:00'), slot('mon', '11:00', '14:00')] })).toMatchObject({ field: 'weekly[1]', reason: expect.stringMatching(/overlaps mon 08:00–12:00/) });
    expect(rosterIssue({ ...base, weekly: [slot('mon', '22:00', '06:00'), slot('tue', '05:00', '09:00')] })).toMatchObject({ field: 'weekly[1]' });
    expect(rosterIssue({ ...base, weekly: [slot('mon', '01:00', '05:00'), slot('sun', '22:00', '02:00')] })).toMatchObject({ field: 'weekly[1]', reason: expect.stringMatching(/overlaps mon 01:00–05:00/) });
  });

  it('refuses a shift of 24 hours or more, an unknown zone, bad times and dates, a one-off over another shift', () => {
    expect(rosterIssue({ ...base, weekly: [slot('mon', '08:00', '08:00')] })).toMatchObject({ field: 'weekly[0].end' });
    expect(rosterIssue({ ...base, timezone: 'Mars/Olympus' })).toMatchObject({ field: 'timezone' });
    expect(rosterIssue({ ...base, weekly: [slot('mon', '25:00', '08:00')] })).toMatchObject({ field: 'weekly[0].start' });
    expect(rosterIssue({ ...base, oneOff: [{ accountId: 'a', start: at('2026-03-01T08:00:00Z'), end: at('2026-03-02T08:00:01Z') }] })).toMatchObject({ field: 'oneOff[0].end', reason: expect.stringMatching(/24 hours/) });
    expect(rosterIssue({ ...base, oneOff: [{ accountId: 'a', start: 10, end: 5 }] })).toMatchObject({ field: 'oneOff[0].end' });
    expect(rosterIssue({ ...base, absences: [{ from: '2026-02-30', to: '2026-03-01' }] })).toMatchObject({ field: 'absences[0].from' });
    expect(rosterIssue({ ...base, absences: [{ from: '2026-03-02', to: '2026-03-01' }] })).toMatchObject({ field: 'absences[0].to' });
    // 2026-03-02 is a Monday: 09:00 Berlin is 08:00Z, inside the weekly 08:00–12:00.
    expect(rosterIssue({ ...base, weekly: [slot('mon', '08:00', '12:00')], oneOff: [{ accountId: 'a', start: at('2026-03-02T10:00:00Z'), end: at('2026-03-02T12:00:00Z') }] })).toMatchObject({ field: 'oneOff[0]', reason: expect.stringMatching(/weekly slot mon 08:00–12:00/) });
    const many = Array.from({ length: 101 }, (_, i) => slot('mon', `${String(Math.floor(i / 5)).padStart(2, '0')}:${String((i % 5) * 10).padStart(2, '0')}`, '23:59'));
    expect(rosterIssue({ ...base, weekly: many })).toMatchObject({ field: 'weekly' });
  });
});

describe('plannedShifts', () => {
  it('makes a night slot as long as the wall clock shows it on the nights the clocks change', () => {
    const r: Roster = { ...base, weekly: [slot('sat', '22:00', '06:00')] };
    // Berlin springs forward on Sunday 2026-03-29 (02:00 → 03:00) and falls back on 2026-10-25 (03:00 → 02:00).
    const spring = plannedShifts(r, at('2026-03-28T00:00:00Z'), at('2026-03-30T00:00:00Z'), 'ann');
    expect(spring.map((s) => (s.end - s.start) / 3_600_000)).toEqual([7]);
    const autumn = plannedShifts(r, at('2026-10-24T00:00:00Z'), at('2026-10-26T00:00:00Z'), 'ann');
    expect(autumn.map((s) => (s.end - s.start) / 3_600_000)).toEqual([9]);
    expect(spring[0]?.id).toBe('ann|0|2026-03-28');
  });

  it('leaves out the slots of absent days and keeps one-off shifts', () => {
    const r: Roster = { ...base, weekly: [slot('mon', '09:00', '17:00'), slot('tue', '09:00', '17:00')], oneOff: [{ accountId: 'b', start: at('2026-03-04T10:00:00Z'), end: at('2026-03-04T12:00:00Z') }], absences: [{ from: '2026-03-03', to: '2026-03-03' }] };
    const got = plannedShifts(r, at('2026-03-02T00:00:00Z'), at('2026-03-05T00:00:00Z'), 'ann');
    expect(got.map((s) => [s.accountId, new Date(s.start).toISOString(), s.kind])).toEqual([
      ['a', '2026-03-02T08:00:00.000Z', 'weekly'],
      ['b', '2026-03-04T10:00:00.000Z', 'one-off'],
    ]);
  });

  it('equals the reference over random slots, zones and windows around daylight-saving changes', () => {
    const zones = ['Europe/Berlin', 'America/New_York', 'Australia/Sydney', 'Asia/Kolkata', 'UTC', 'America/Santiago'];
    const days = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
    const hhmm = fc.tuple(fc.integer({ min: 0, max: 23 }), fc.constantFrom(0, 15, 30, 45)).map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);
    // Windows of up to nine days starting near the year's changes (March, April, October, November).
    const starts = ['2026-03-26', '2026-03-05', '2026-04-02', '2026-10-22', '2026-10-31', '2026-09-03'].map((d) => at(`${d}T00:00:00Z`));
    fc.assert(fc.property(
      fc.constantFrom(...zones),
      fc.array(fc.tuple(fc.constantFrom(...days), hhmm, hhmm, fc.constantFrom('a', 'b')), { maxLength: 4 }),
      fc.constantFrom(...starts), fc.integer({ min: -720, max: 720 }), fc.integer({ min: 60, max: 9 * 1440 }),
      (timezone, raw, start, shiftMin, lenMin) => {
        const weekly = raw.map(([day, s, e, accountId]) => slot(day, s, e, accountId));
        const r: Roster = { timezone, weekly, oneOff: [], absences: [] };
        fc.pre(rosterIssue(r) === null);
        const from = start + shiftMin * 60_000;
        const to = from + lenMin * 60_000;
        const got = plannedShifts(r, from, to, 'c').map((s) => ({ accountId: s.accountId, start: s.start, end: s.end }));
        got.sort((x, y) => x.start - y.start || x.accountId.localeCompare(y.accountId) || x.end - y.end);
        expect(got).toEqual(referenceShifts(r, from, to));
      },
    ), propertyRuns(60));
  });
});
