// How figures read in sentences a manager sees (alert reasons, the inbox's priority reasons).
// One way everywhere: the pages format durations and money the same (web/common.js; a test
// holds the two to the same output).

/** Whole seconds as "45s", "4m 05s", "2h 10m", "3d 4h". */
export function duration(sec: number): string {
  const s = Math.max(0, Math.round(sec));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  return `${Math.floor(s / 86400)}d ${Math.floor((s % 86400) / 3600)}h`;
}

const USD = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

/** Cents as "$1,771.00". */
export const dollars = (cents: number): string => USD.format(cents / 100);
