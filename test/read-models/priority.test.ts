// The priority inbox's spend head start (src/read-models/sessions/priority.ts): a fan who spends rises
// above fans who have waited longer, by 60 s per $10 of lifetime spend, at most 30 minutes.
// Checked on the order itself, pure: which of two waiting fans comes first. A failure prints
// fast-check's seed: rerun with PROPERTY_SEED / PROPERTY_PATH.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { priorityAt, priorityScore } from '../../src/read-models/sessions/priority.js';
import { propertyRuns } from '../support/property-runs.js';

const params = propertyRuns;

const T0 = Date.parse('2026-06-10T10:00:00Z');
const waiting = (since: number) => ({ status: 'open', awaiting: true, waitingSince: since });
/** Whether fan A comes before fan B in the inbox (ascending priorityAt). */
const before = (a: number | null, b: number | null): boolean => a !== null && b !== null && a < b;

describe('the spend head start', () => {
  it('a spender is ahead of a fan who spent nothing and started waiting up to her head start earlier, and behind one who started waiting longer before', () => {
    // Lifetime spend up to $1,000 (past the cap at $300), the other fan's extra wait up to an hour.
    fc.assert(fc.property(fc.integer({ min: 0, max: 100_000 }), fc.integer({ min: 0, max: 3600 }), (spendCents, earlierSec) => {
      const headStartSec = Math.min(1800, Math.floor((spendCents * 60) / 1000));
      const spender = priorityAt(waiting(T0), spendCents);
      const other = priorityAt(waiting(T0 - earlierSec * 1000), null);
      // The spender's place is a fixed time ahead of when she started waiting, whatever the clock says.
      expect(spender).toBe(T0 - headStartSec * 1000);
      expect(before(spender, other)).toBe(earlierSec < headStartSec);
      expect(before(other, spender)).toBe(earlierSec > headStartSec);
    }), params(500));
  });

  it('more spend never ranks a fan lower, and the same spend keeps the order of who waited longer', () => {
    const spend = fc.oneof(fc.constant(null), fc.integer({ min: -1000, max: 100_000 }));
    fc.assert(fc.property(spend, spend, fc.integer({ min: 0, max: 7200 }), (a, b, sinceSec) => {
      const [less, more] = (a ?? 0) <= (b ?? 0) ? [a, b] : [b, a];
      const since = T0 - sinceSec * 1000;
      expect(priorityAt(waiting(since), more)).toBeLessThanOrEqual(priorityAt(waiting(since), less) ?? Number.NaN);
      // Nobody is ranked as if they had waited less than they have.
      expect(priorityAt(waiting(since), less)).toBeLessThanOrEqual(since);
      expect(priorityAt(waiting(since - 1000), less)).toBeLessThan(priorityAt(waiting(since), less) ?? Number.NaN);
    }), params(500));
  });

  it('reads as its figures: $10 is a minute, $100 ten minutes, $300 and more half an hour; nothing for no spend', () => {
    const ahead = (spendCents: number | null): number => priorityScore(priorityAt(waiting(T0), spendCents), T0);
    expect([null, 0, -500, 10, 1000, 10_000, 30_000, 50_000, 10_000_000].map(ahead)).toEqual([0, 0, 0, 0, 60, 600, 1800, 1800, 1800]);
    // A $500 spender who wrote 20 minutes ago ranks as 50 minutes' wait: above a fan waiting 49, below one waiting 51.
    const whale = priorityAt(waiting(T0 - 20 * 60_000), 50_000);
    expect(before(whale, priorityAt(waiting(T0 - 49 * 60_000), null))).toBe(true);
    expect(before(priorityAt(waiting(T0 - 51 * 60_000), 0), whale)).toBe(true);
  });
});
