// Platform timestamps arrive as ISO-8601 with offsets, "YYYY-MM-DD HH:MM:SS" (UTC),
// microsecond fractions, or epoch numbers. All become epoch milliseconds.

const SQL_STYLE = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}(?::\d{2})?)(\.\d+)?$/;

export function parsePlatformTime(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v) && v > 0) {
    // Epoch seconds until the year 2286; milliseconds beyond.
    return v < 1e10 ? Math.round(v * 1000) : Math.round(v);
  }
  if (typeof v !== 'string' || v.length === 0 || v.length > 64) return undefined;
  let s = v.trim();
  const sql = SQL_STYLE.exec(s);
  if (sql) s = `${sql[1]}T${sql[2]}${sql[3] ?? ''}Z`;
  // Date.parse takes at most millisecond precision reliably.
  s = s.replace(/(\.\d{3})\d+/, '$1');
  if (!isCalendarDate(s)) return undefined;
  const ms = Date.parse(s);
  return Number.isFinite(ms) ? ms : undefined;
}

const DATE_PART = /^(\d{4})-(\d{2})-(\d{2})/;

/**
 * Whether a leading YYYY-MM-DD names a day the calendar has: Date.parse rolls 2026-02-30 over
 * to 2 March and 2026-04-31 to 1 May, which would move a message by days without a word.
 */
function isCalendarDate(s: string): boolean {
  const m = DATE_PART.exec(s);
  if (!m) return true;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return month >= 1 && month <= 12 && day >= 1 && day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}
