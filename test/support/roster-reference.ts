// Planned shifts as plain arithmetic over the wall clock, for the roster's property test: a wall
// time on a local date is the first UTC minute whose local wall time (by Intl, minute by minute)
// is at or after it. That is the rule docs/api.md states (a repeated time is its first instant,
// a skipped one is the jump), found by scanning, not by Temporal's disambiguation as src/ does.

const DAY = 86_400_000;
const MIN = 60_000;
const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

export interface RefSlot { accountId: string; day: string; start: string; end: string }
export interface RefRoster { timezone: string; weekly: readonly RefSlot[]; oneOff: readonly { accountId: string; start: number; end: number }[]; absences: readonly { from: string; to: string }[] }
export interface RefShift { accountId: string; start: number; end: number }

class WallTable {
  private readonly fmt: Intl.DateTimeFormat;
  private readonly cache = new Map<number, number>();
  constructor(tz: string) {
    this.fmt = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric' });
  }
  /** The local wall time of UTC minute t, as minutes since 1970-01-01 00:00 of the local calendar. */
  wall(t: number): number {
    const known = this.cache.get(t);
    if (known !== undefined) return known;
    const p: Record<string, number> = {};
    for (const part of this.fmt.formatToParts(new Date(t))) if (part.type !== 'literal') p[part.type] = Number(part.value);
    const w = Date.UTC(p.year ?? 0, (p.month ?? 1) - 1, p.day ?? 1, p.hour ?? 0, p.minute ?? 0) / MIN;
    this.cache.set(t, w);
    return w;
  }
  /** The first UTC minute at or after which the wall clock reads `target` (local minutes) or later. */
  instant(target: number): number {
    // Start well before (no zone is 15 hours ahead) and walk forward by the minute.
    for (let t = target * MIN - 15 * 3_600_000; ; t += MIN) if (this.wall(t) >= target) return t;
  }
}

const minutesOf = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
const dateNumber = (ymd: string): number => Date.parse(`${ymd}T00:00:00Z`) / DAY;

export function referenceShifts(r: RefRoster, from: number, to: number): RefShift[] {
  const table = new WallTable(r.timezone);
  const absent = new Set<number>();
  for (const a of r.absences) for (let d = dateNumber(a.from); d <= dateNumber(a.to); d++) absent.add(d);
  const out: RefShift[] = [];
  for (let day = Math.floor(from / DAY) - 2; day <= Math.floor((to - 1) / DAY) + 1; day++) {
    if (absent.has(day)) continue;
    const weekday = DAYS[(((day + 3) % 7) + 7) % 7];
    for (const s of r.weekly) {
      if (s.day !== weekday) continue;
      const a = minutesOf(s.start);
      const b = minutesOf(s.end);
      const startWall = day * 1440 + a;
      const endWall = day * 1440 + (b > a ? b : b + 1440);
      const start = table.instant(startWall);
      const end = table.instant(endWall);
      if (end > start && start < to && end > from) out.push({ accountId: s.accountId, start, end });
    }
  }
  for (const o of r.oneOff) if (o.start < to && o.end > from) out.push({ ...o });
  return out.sort((x, y) => x.start - y.start || x.accountId.localeCompare(y.accountId) || x.end - y.end);
}
