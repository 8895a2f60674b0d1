// Coverage against a minute-by-minute reference: a minute counts as waiting when some fan's wait
// holds it, and as uncovered when, besides, no chatter's clocked span does. src/ merges and
// intersects spans instead of walking the clock.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { coverageOf, type Span } from '../../src/domain/coverage.js';
import { propertyRuns } from '../support/property-runs.js';

const MIN = 60_000;
const spans = fc.array(fc.tuple(fc.integer({ min: 0, max: 200 }), fc.integer({ min: 0, max: 80 })).map(([a, n]): Span => [a, a + n]), { maxLength: 10 });

describe('coverage', () => {
  it('equals the minute-by-minute reference', () => {
    fc.assert(fc.property(spans, spans, fc.integer({ min: 0, max: 150 }), fc.integer({ min: 1, max: 150 }), (waits, clocked, from, length) => {
      const to = from + length;
      const holds = (list: readonly Span[], m: number) => list.some(([a, b]) => m >= a && m < b);
      let waiting = 0;
      let uncovered = 0;
      for (let m = from; m < to; m++) {
        if (!holds(waits, m)) continue;
        waiting++;
        if (!holds(clocked, m)) uncovered++;
      }
      const ms = (list: readonly Span[]) => list.map(([a, b]): Span => [a * MIN, b * MIN]);
      expect(coverageOf(ms(waits), ms(clocked), from * MIN, to * MIN)).toEqual({ waitingSec: waiting * 60, uncoveredSec: uncovered * 60 });
    }), propertyRuns(500));
  });

  it('counts a minute once however many fans wait in it or chatters are on', () => {
    const waits: Span[] = [[0, 10 * MIN], [5 * MIN, 20 * MIN]];
    const clocked: Span[] = [[8 * MIN, 12 * MIN], [9 * MIN, 11 * MIN]];
    expect(coverageOf(waits, clocked, 0, 60 * MIN)).toEqual({ waitingSec: 20 * 60, uncoveredSec: 16 * 60 });
  });
});
