// The shift rules, pure: fans waiting with nobody clocked in (coverage.gap), and a planned shift
// whose chatter has not clocked in (shift.no-show).
import { describe, expect, it } from 'vitest';
import { evaluateCoverage, evaluateNoShow } from '../../src/intelligence/shift-rules.js';

const MIN = 60_000;
const T = Date.parse('2026-06-10T12:00:00Z');

describe('coverage.gap', () => {
  const facts = { accountId: 'a', waiting: 2, oldestWaitingSince: T - 20 * MIN, onNow: 0, lastOnAt: T - 8 * MIN };
  it('fires once nobody has been on for the gap while fans wait, counting from whichever came later', () => {
    expect(evaluateCoverage(facts, T, 300)).toEqual([expect.objectContaining({ alertId: `coverage.gap:a:${T - 8 * MIN}`, ruleId: 'coverage.gap', accountId: 'a', chatterId: null, reason: expect.stringMatching(/2 fans are waiting on a and nobody has been clocked in on it for 8m 00s/) })]);
    expect(evaluateCoverage({ ...facts, lastOnAt: T - 4 * MIN }, T, 300)).toEqual([]);
    expect(evaluateCoverage({ ...facts, oldestWaitingSince: T - 2 * MIN, lastOnAt: null }, T, 300)).toEqual([]);
    expect(evaluateCoverage({ ...facts, lastOnAt: null }, T, 300)[0]?.alertId).toBe('coverage.gap:a:never');
  });
  it('stays quiet with somebody on, or nobody waiting', () => {
    expect(evaluateCoverage({ ...facts, onNow: 1 }, T, 300)).toEqual([]);
    expect(evaluateCoverage({ ...facts, waiting: 0 }, T, 300)).toEqual([]);
  });
});

describe('shift.no-show', () => {
  const shift = { shiftId: 's1', chatterId: 'ann', accountId: 'a', start: T - 15 * MIN, end: T + 60 * MIN, clockedIn: false };
  it('fires past the grace while the shift runs and its chatter has not clocked in', () => {
    expect(evaluateNoShow(shift, T, 600)).toEqual([expect.objectContaining({ alertId: 'shift.no-show:s1', chatterId: 'ann', accountId: 'a', reason: expect.stringMatching(/ann has not clocked in on a for the shift that started 15m 00s/) })]);
    expect(evaluateNoShow(shift, T - 6 * MIN, 600)).toEqual([]);
    expect(evaluateNoShow({ ...shift, clockedIn: true }, T, 600)).toEqual([]);
    expect(evaluateNoShow(shift, T + 60 * MIN, 600)).toEqual([]);
  });
});
