// The one rule for a time from outside (webhook, connector, demo, backfill, admin commands), so
// that a time means the same instant on every machine:
// - ISO 8601 / RFC 3339 with a zone: 2026-06-10T20:59:47Z, +02:00, +0200, a fraction of any length;
// - the platform's own spelling without a zone, "YYYY-MM-DD HH:MM:SS" (its REST `created_at`),
//   which the platform means as UTC;
// - epoch seconds (below 10^10) or milliseconds, as a JSON number or a string of digits.
// Every part is checked against the calendar and the clock: Date.parse would roll 2026-02-30
// over to 2 March, and read "Nov 28 2026 10:00" in the server's own time zone.

/** Shown wherever a time is refused. */
export const TIME_RULE = 'a time: ISO 8601 with a zone (2026-06-10T20:59:47Z), "YYYY-MM-DD HH:MM:SS" in UTC, or epoch seconds or milliseconds';

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})([Tt ])(\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?$/;
const EPOCH_TEXT = /^\d{1,16}(?:\.\d{1,9})?$/;

function epoch(n: number): number | undefined {
  if (!Number.isFinite(n) || n <= 0) return undefined;
  // Epoch seconds until the year 2286; milliseconds beyond.
  return n < 1e10 ? Math.round(n * 1000) : Math.round(n);
}

const daysIn = (year: number, month: number): number => new Date(Date.UTC(year, month, 0)).getUTCDate();

export function parsePlatformTime(v: unknown): number | undefined {
  if (typeof v === 'number') return epoch(v);
  if (typeof v !== 'string' || v.length === 0 || v.length > 64) return undefined;
  const s = v.trim();
  if (EPOCH_TEXT.test(s)) return epoch(Number(s));
  const m = DATE_TIME.exec(s);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = [1, 2, 3, 5, 6, 7].map((i) => Number(m[i] ?? 0)) as [number, number, number, number, number, number];
  const zone = m[9];
  // Without a zone only the platform's "YYYY-MM-DD HH:MM:SS" (a space, seconds) is taken, as UTC;
  // "2026-06-10T20:59" would be local time to one reader and UTC to another.
  if (zone === undefined && (m[4] !== ' ' || m[7] === undefined)) return undefined;
  // Date.UTC reads years 0–99 as 1900–1999; no platform time is that old.
  if (year < 1000 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetMin = 0;
  if (zone !== undefined && zone !== 'Z' && zone !== 'z') {
    const digits = zone.slice(1).replace(':', '');
    const [oh, om] = [Number(digits.slice(0, 2)), Number(digits.slice(2) || 0)];
    if (oh > 23 || om > 59) return undefined;
    offsetMin = (zone[0] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const fraction = m[8] === undefined ? 0 : Math.floor(Number(`0${m[8]}`) * 1000);
  return Date.UTC(year, month - 1, day, hour, minute, second, fraction) - offsetMin * 60_000;
}
