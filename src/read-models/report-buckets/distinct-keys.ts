// How many distinct keys several sets hold together, without building their union. A window's
// fans chatted are the fans of its settled buckets (one large set, merged once and kept) and of
// the hour being written and the raw edges (a few small ones): a request should pay for the
// small sets, not copy the large one.

export class DistinctKeys {
  private readonly sets: ReadonlySet<string>[] = [];

  add(set: ReadonlySet<string>): void {
    if (set.size > 0) this.sets.push(set);
  }

  addAll(other: DistinctKeys): void {
    for (const s of other.sets) this.sets.push(s);
  }

  /** The size of the union: the largest set's, plus what the others hold outside it. */
  get size(): number {
    if (this.sets.length === 0) return 0;
    let largest = this.sets[0] as ReadonlySet<string>;
    for (const s of this.sets) if (s.size > largest.size) largest = s;
    if (this.sets.length === 1) return largest.size;
    const extra = new Set<string>();
    for (const s of this.sets) {
      if (s === largest) continue;
      for (const k of s) if (!largest.has(k)) extra.add(k);
    }
    return largest.size + extra.size;
  }
}

/** The keys a histogram holds above zero (a key netted back to zero is no longer there). */
export function keysAboveZero(h: Readonly<Record<string, number>> | undefined): ReadonlySet<string> {
  const out = new Set<string>();
  if (h) for (const k in h) if ((h[k] as number) > 0) out.add(k);
  return out;
}

/** One set of every key of the sets (done once, when settled buckets are merged). */
export function unionOf(sets: readonly ReadonlySet<string>[]): ReadonlySet<string> {
  if (sets.length === 1) return sets[0] as ReadonlySet<string>;
  const out = new Set<string>();
  for (const s of sets) for (const k of s) out.add(k);
  return out;
}
