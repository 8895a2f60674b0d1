// How figures read in sentences a manager sees (alert reasons, the inbox's priority reasons).

/** Whole seconds as "4 min 5 s", "2 h 10 min". */
export function duration(sec: number): string {
  const s = Math.max(0, Math.round(sec));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

export const dollars = (cents: number): string => `$${(cents / 100).toFixed(2)}`;
