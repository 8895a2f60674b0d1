// A chatter's roster: planned shifts on the wall clock of a time zone. Weekly slots (several a
// day; an end at or before the start crosses midnight into the next day), one-off shifts, and
// absences (local dates on which no weekly slot starts). Wall times become instants by the rule
// business hours use (a repeated time is its first instant; a skipped one is the jump itself),
// so a slot on a daylight-saving day is as long as the wall clock shows it.
import { canonicalZone, DAY_KEYS, dayNumberOf, MAX_TIMEZONE_LENGTH, wallInstant, wallMinutes, weekdayOf, type DayKey } from './business-hours.js';

export interface WeeklySlot {
  readonly accountId: string;
  readonly day: DayKey;
  /** "HH:MM" local; the end at or before the start is on the next day. */
  readonly start: string;
  readonly end: string;
}

export interface OneOffShift {
  readonly accountId: string;
  readonly start: number;
  readonly end: number;
}

/** Local dates [from, to], inclusive, YYYY-MM-DD. */
export interface Absence {
  readonly from: string;
  readonly to: string;
}

export interface Roster {
  readonly timezone: string;
  readonly weekly: readonly WeeklySlot[];
  readonly oneOff: readonly OneOffShift[];
  readonly absences: readonly Absence[];
}

export interface PlannedShift {
  /** Stable: the chatter's weekly slot on a local date, or the one-off's start. */
  readonly id: string;
  readonly accountId: string;
  readonly start: number;
  readonly end: number;
  readonly kind: 'weekly' | 'one-off';
}

export const MAX_WEEKLY_SLOTS = 100;
export const MAX_ONE_OFF = 200;
export const MAX_ABSENCES = 200;
const MAX_SHIFT_MS = 86_400_000;
const DAY_MS = 86_400_000;
const WEEK_MIN = 7 * 1440;

export interface RosterIssue {
  readonly field: string;
  readonly reason: string;
}

/** A weekly slot's place in the week: minutes from Monday 00:00 (wall), and its length. */
function weekSpan(s: WeeklySlot): { at: number; len: number } {
  const start = wallMinutes(s.start) ?? 0;
  const end = wallMinutes(s.end) ?? 0;
  return { at: DAY_KEYS.indexOf(s.day) * 1440 + start, len: end > start ? end - start : end + 1440 - start };
}

const fmt = (s: WeeklySlot): string => `${s.day} ${s.start}–${s.end}`;

/** The first problem of a roster (fields as the body names them), or null. Expects it shaped (the route's schema checks types). */
export function rosterIssue(r: Roster): RosterIssue | null {
  if (r.timezone.length > MAX_TIMEZONE_LENGTH || canonicalZone(r.timezone) === null) return { field: 'timezone', reason: `"${r.timezone.slice(0, MAX_TIMEZONE_LENGTH)}" is not a known time zone (an IANA name such as Europe/Berlin, or an offset such as +01:00)` };
  if (r.weekly.length > MAX_WEEKLY_SLOTS) return { field: 'weekly', reason: `has ${r.weekly.length} slots; at most ${MAX_WEEKLY_SLOTS}` };
  if (r.oneOff.length > MAX_ONE_OFF) return { field: 'oneOff', reason: `has ${r.oneOff.length} shifts; at most ${MAX_ONE_OFF}` };
  if (r.absences.length > MAX_ABSENCES) return { field: 'absences', reason: `has ${r.absences.length} absences; at most ${MAX_ABSENCES}` };
  for (const [i, s] of r.weekly.entries()) {
    if (wallMinutes(s.start) === null || (wallMinutes(s.start) ?? 0) >= 1440) return { field: `weekly[${i}].start`, reason: `"${s.start.slice(0, 10)}" is not a time of day from 00:00 to 23:59` };
    if (wallMinutes(s.end) === null) return { field: `weekly[${i}].end`, reason: `"${s.end.slice(0, 10)}" is not a time of day from 00:00 to 24:00` };
    if (wallMinutes(s.start) === (wallMinutes(s.end) ?? 0) % 1440) return { field: `weekly[${i}].end`, reason: 'equals the start: a shift is shorter than 24 hours (an end before the start crosses midnight)' };
  }
  // Weekly slots on a ring of a week's minutes: sorted by start, each must end before the next
  // starts, the last before the first comes round again.
  const ring = r.weekly.map((s, i) => ({ ...weekSpan(s), i })).sort((a, b) => a.at - b.at);
  for (let k = 0; k < ring.length; k++) {
    const cur = ring[k];
    const next = ring[(k + 1) % ring.length];
    if (!cur || !next || ring.length < 2) break;
    const nextAt = k + 1 < ring.length ? next.at : next.at + WEEK_MIN;
    if (cur.at + cur.len > nextAt) {
      const [a, b] = [r.weekly[cur.i] as WeeklySlot, r.weekly[next.i] as WeeklySlot];
      return { field: `weekly[${Math.max(cur.i, next.i)}]`, reason: `overlaps ${fmt(Math.max(cur.i, next.i) === cur.i ? b : a)}: a chatter works one shift at a time` };
    }
  }
  for (const [i, o] of r.oneOff.entries()) {
    if (!(o.end > o.start)) return { field: `oneOff[${i}].end`, reason: 'must be after the start' };
    if (o.end - o.start > MAX_SHIFT_MS) return { field: `oneOff[${i}].end`, reason: 'a shift lasts at most 24 hours' };
  }
  const ones = r.oneOff.map((o, i) => ({ ...o, i })).sort((a, b) => a.start - b.start);
  for (let k = 1; k < ones.length; k++) {
    const [prev, cur] = [ones[k - 1], ones[k]];
    if (prev && cur && cur.start < prev.end) return { field: `oneOff[${Math.max(prev.i, cur.i)}]`, reason: 'overlaps another one-off shift: a chatter works one shift at a time' };
  }
  for (const [i, a] of r.absences.entries()) {
    const [from, to] = [dayNumberOf(a.from), dayNumberOf(a.to)];
    if (from === null) return { field: `absences[${i}].from`, reason: `"${a.from.slice(0, 20)}" is not a calendar date YYYY-MM-DD` };
    if (to === null) return { field: `absences[${i}].to`, reason: `"${a.to.slice(0, 20)}" is not a calendar date YYYY-MM-DD` };
    if (to < from) return { field: `absences[${i}].to`, reason: 'is before from' };
  }
  // A one-off against the weekly slots around it (absences aside: an absence may be lifted).
  const zone = canonicalZone(r.timezone) as string;
  for (const [i, o] of r.oneOff.entries()) {
    const clash = weeklyShifts(r.weekly, zone, new Set(), o.start - DAY_MS, o.end + DAY_MS, 'x').find((w) => w.start < o.end && o.start < w.end);
    if (clash) return { field: `oneOff[${i}]`, reason: `overlaps the weekly slot ${fmt(r.weekly[Number(clash.id.split('|')[1])] as WeeklySlot)}: a chatter works one shift at a time` };
  }
  return null;
}

function absentDays(absences: readonly Absence[]): Set<number> {
  const out = new Set<number>();
  for (const a of absences) {
    const [from, to] = [dayNumberOf(a.from), dayNumberOf(a.to)];
    if (from === null || to === null) continue;
    for (let d = from; d <= to && out.size < 10_000; d++) out.add(d);
  }
  return out;
}

function weeklyShifts(slots: readonly WeeklySlot[], zone: string, absent: ReadonlySet<number>, from: number, to: number, key: string): PlannedShift[] {
  const out: PlannedShift[] = [];
  if (slots.length === 0) return out;
  // Local dates whose slots can touch [from, to): a slot starts on its date and lasts under a day.
  const first = Math.floor(from / DAY_MS) - 2;
  const last = Math.floor((to - 1) / DAY_MS) + 1;
  for (let day = first; day <= last; day++) {
    if (absent.has(day)) continue;
    const weekday = DAY_KEYS[weekdayOf(day)];
    for (const [i, s] of slots.entries()) {
      if (s.day !== weekday) continue;
      const { len } = weekSpan(s);
      const startMin = wallMinutes(s.start) ?? 0;
      const start = wallInstant(zone, day, startMin);
      const end = wallInstant(zone, day, startMin + len);
      if (end > start && start < to && end > from) {
        const date = new Date(day * DAY_MS).toISOString().slice(0, 10);
        out.push({ id: `${key}|${i}|${date}`, accountId: s.accountId, start, end, kind: 'weekly' });
      }
    }
  }
  return out;
}

/** The planned shifts overlapping [from, to), in time order. `key` prefixes their ids (the chatter's id). */
export function plannedShifts(r: Roster, from: number, to: number, key: string): PlannedShift[] {
  const zone = canonicalZone(r.timezone) ?? 'UTC';
  const out = weeklyShifts(r.weekly, zone, absentDays(r.absences), from, to, key);
  for (const o of r.oneOff) {
    if (o.start < to && o.end > from) out.push({ id: `${key}|one-off|${new Date(o.start).toISOString()}`, accountId: o.accountId, start: o.start, end: o.end, kind: 'one-off' });
  }
  return out.sort((a, b) => a.start - b.start || a.id.localeCompare(b.id));
}
