// Local days in an IANA time zone, with the platform's Intl data (no zone database of our own).
// An agency's "today" starts at its local midnight, which is rarely a UTC hour, and on a
// daylight-saving day may not exist at all (the day then starts when the clock jumps).

const formats = new Map<string, Intl.DateTimeFormat>();

function format(tz: string): Intl.DateTimeFormat {
  let f = formats.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    formats.set(tz, f);
  }
  return f;
}

export function isTimeZone(tz: string): boolean {
  try {
    format(tz);
    return true;
  } catch {
    return false;
  }
}

interface Wall { y: number; m: number; d: number; h: number; mi: number; s: number }

function wallAt(t: number, tz: string): Wall {
  const p: Record<string, number> = {};
  for (const part of format(tz).formatToParts(new Date(t))) if (part.type !== 'literal') p[part.type] = Number(part.value);
  return { y: p.year ?? 0, m: p.month ?? 1, d: p.day ?? 1, h: p.hour ?? 0, mi: p.minute ?? 0, s: p.second ?? 0 };
}

const wallAsUtc = (w: Wall): number => Date.UTC(w.y, w.m - 1, w.d, w.h, w.mi, w.s);

/** The first instant of local date y-m-d (month 1-12) in `tz`. */
export function startOfLocalDate(y: number, m: number, d: number, tz: string): number {
  const target = Date.UTC(y, m - 1, d);
  // The zone's offset near the target, applied twice so a change of offset that day settles.
  let t = target;
  for (let i = 0; i < 3; i++) t = target - (wallAsUtc(wallAt(t, tz)) - Math.floor(t / 1000) * 1000);
  const onDate = (x: number) => { const w = wallAt(x, tz); return Date.UTC(w.y, w.m - 1, w.d) >= target; };
  if (wallAsUtc(wallAt(t, tz)) === target && !onDate(t - 1000)) return t;
  // Midnight skipped (or the guess landed inside the day): the day starts at the first second on its date.
  let lo = t - 3 * 3_600_000;
  let hi = t + 3 * 3_600_000;
  while (hi - lo > 1000) {
    const mid = Math.floor((lo + hi) / 2000) * 1000;
    if (onDate(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** The local day containing `now`: [start, start of the next day). */
export function localDay(now: number, tz: string): { start: number; end: number } {
  const w = wallAt(now, tz);
  const next = new Date(Date.UTC(w.y, w.m - 1, w.d + 1));
  return { start: startOfLocalDate(w.y, w.m, w.d, tz), end: startOfLocalDate(next.getUTCFullYear(), next.getUTCMonth() + 1, next.getUTCDate(), tz) };
}
