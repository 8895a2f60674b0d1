// Places the demo dataset in the present: every time in every body moves by one offset, so
// the latest record is a few minutes old and the spacing between records is what it always
// is. A demo that opens on waits of months and an empty "today" teaches nobody anything.
// The bodies are rewritten as text, not parsed and re-serialised: ids beyond 2^53 and every
// other byte stay exactly as shipped.

/** `createdAt` and the like ("2026-06-03T01:28:58+00:00") and transactions' `created_at` ("2026-06-03 01:28:59", UTC). */
const TIME = /"(\d{4})-(\d{2})-(\d{2})([T ])(\d{2}):(\d{2}):(\d{2})(\.\d{1,3})?(Z|[+-]\d{2}:\d{2})?"/g;

/** How old the latest demo record is once placed. */
export const DEMO_LATEST_AGE_MS = 3 * 60_000;

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

function offsetMinutes(zone: string | undefined): number {
  if (zone === undefined || zone === 'Z') return 0;
  const sign = zone.startsWith('-') ? -1 : 1;
  return sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
}

function instantOf(m: RegExpExecArray | string[]): number {
  const [, y, mo, d, , h, mi, s, frac, zone] = m;
  const local = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), frac ? Math.round(Number(frac) * 1000) : 0);
  return local - offsetMinutes(zone) * 60_000;
}

/** The latest time written in any of the bodies, or null when none has one. */
export function latestTime(bodies: readonly string[]): number | null {
  let latest: number | null = null;
  for (const body of bodies) {
    for (const m of body.matchAll(TIME)) {
      const t = instantOf(m);
      if (latest === null || t > latest) latest = t;
    }
  }
  return latest;
}

/** The body with every time moved by `shiftMs` (whole seconds), written as it was (separator, fraction, zone). */
export function shiftBody(body: string, shiftMs: number): string {
  return body.replace(TIME, (...args: string[]) => {
    const [, , , , sep, , , , frac, zone] = args;
    const t = instantOf(args) + shiftMs;
    // Written back in the original zone, so only the instant changes.
    const local = new Date(t + offsetMinutes(zone) * 60_000);
    const fraction = frac === undefined ? '' : `.${pad(local.getUTCMilliseconds(), 3).slice(0, frac.length - 1)}`;
    return `"${local.getUTCFullYear()}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}${sep}${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}${fraction}${zone ?? ''}"`;
  });
}

/** The shift that makes the latest of `bodies` DEMO_LATEST_AGE_MS old at `now`, in whole seconds. */
export function recentShift(bodies: readonly string[], now: number): number {
  const latest = latestTime(bodies);
  if (latest === null) return 0;
  return Math.floor((now - DEMO_LATEST_AGE_MS - latest) / 1000) * 1000;
}
