// Coverage: per account, the time fans spent waiting while nobody was clocked in on it. A fan
// waits from their session's first message until its first human reply (or its close without
// one, or now): the wait the SLA measures. Time counts once however many fans wait in it, and
// once however many chatters are on. Pure: waits and clocked spans come read.

export type Span = readonly [from: number, to: number];

export interface Coverage {
  /** Seconds in which at least one fan of the account waited. */
  readonly waitingSec: number;
  /** Of those, the seconds in which nobody was clocked in on the account. */
  readonly uncoveredSec: number;
}

/** The spans merged where they overlap or touch, clipped to [from, to), in time order. */
export function union(spans: readonly Span[], from: number, to: number): Span[] {
  const clipped = spans.map(([a, b]): Span => [Math.max(a, from), Math.min(b, to)]).filter(([a, b]) => b > a).sort((x, y) => x[0] - y[0]);
  const out: [number, number][] = [];
  for (const [a, b] of clipped) {
    const last = out.at(-1);
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

const length = (spans: readonly Span[]): number => spans.reduce((n, [a, b]) => n + (b - a), 0);

/** Waiting and uncovered time of one account over [from, to): both span lists in epoch ms. */
export function coverageOf(waits: readonly Span[], clocked: readonly Span[], from: number, to: number): Coverage {
  const waiting = union(waits, from, to);
  const on = union(clocked, from, to);
  // Walk both merged lists together: the waiting time that no clocked span covers.
  let covered = 0;
  let j = 0;
  for (const [a, b] of waiting) {
    while (j < on.length && (on[j] as Span)[1] <= a) j++;
    for (let k = j; k < on.length && (on[k] as Span)[0] < b; k++) {
      const [c, d] = on[k] as Span;
      covered += Math.max(0, Math.min(b, d) - Math.max(a, c));
    }
  }
  const waitingMs = length(waiting);
  return { waitingSec: Math.floor(waitingMs / 1000), uncoveredSec: Math.floor((waitingMs - covered) / 1000) };
}
