// Order statistics by the nearest-rank method: the value at rank ceil(p/100 · n) of the sorted
// sample, so every reported percentile is a value that actually occurred.

export function nearestRank(sortedAsc: readonly number[], p: number): number | null {
  if (sortedAsc.length === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * sortedAsc.length));
  return sortedAsc[Math.min(rank, sortedAsc.length) - 1] ?? null;
}

/** Percentage with one decimal, or null when there is nothing to divide. */
export function percent(part: number, whole: number): number | null {
  return whole === 0 ? null : Math.round((part / whole) * 1000) / 10;
}
