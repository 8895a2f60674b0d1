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
  const ms = Date.parse(s);
  return Number.isFinite(ms) ? ms : undefined;
}
