// The automatic clock-out: idle CLOCK_IDLE_SEC without a reply (from the clock-in, then from each
// reply), a chatter's interval ends; a clock-out ends it sooner.
import { describe, expect, it } from 'vitest';
import { clockedEnd, overlapMs } from '../../src/domain/clocked-time.js';

const MIN = 60_000;
const IDLE = 30 * MIN;

describe('clockedEnd', () => {
  it('keeps a chatter on while they reply within the idle time', () => {
    expect(clockedEnd(0, null, [10 * MIN, 35 * MIN, 60 * MIN], IDLE, 80 * MIN)).toEqual({ end: null, automatic: false });
  });
  it('ends the interval the idle time after the last reply before a gap, whatever came after', () => {
    expect(clockedEnd(0, null, [10 * MIN, 50 * MIN, 55 * MIN], IDLE, 60 * MIN)).toEqual({ end: 40 * MIN, automatic: true });
    // A reply exactly at the idle time is too late.
    expect(clockedEnd(0, null, [30 * MIN], IDLE, 31 * MIN)).toEqual({ end: 30 * MIN, automatic: true });
  });
  it('counts the idle time from the clock-in when nothing was replied', () => {
    expect(clockedEnd(5 * MIN, null, [], IDLE, 60 * MIN)).toEqual({ end: 35 * MIN, automatic: true });
    expect(clockedEnd(5 * MIN, null, [], IDLE, 20 * MIN)).toEqual({ end: null, automatic: false });
  });
  it('ends at the clock-out unless idling ended it first; replies after it do not count', () => {
    expect(clockedEnd(0, 20 * MIN, [], IDLE, 90 * MIN)).toEqual({ end: 20 * MIN, automatic: false });
    expect(clockedEnd(0, 90 * MIN, [10 * MIN], IDLE, 95 * MIN)).toEqual({ end: 40 * MIN, automatic: true });
    expect(clockedEnd(0, 30 * MIN, [29 * MIN, 31 * MIN], IDLE, 95 * MIN)).toEqual({ end: 30 * MIN, automatic: false });
  });
  it('ignores replies before the clock-in', () => {
    expect(clockedEnd(10 * MIN, null, [0, 5 * MIN, 20 * MIN], IDLE, 45 * MIN)).toEqual({ end: null, automatic: false });
  });
});

describe('the longest clock-in', () => {
  it('ends a day after the clock-in however busy the chatter stayed', () => {
    const replies = Array.from({ length: 100 }, (_, i) => i * 20 * MIN);
    expect(clockedEnd(0, null, replies, IDLE, 30 * 3_600_000)).toEqual({ end: 86_400_000, automatic: true });
    expect(clockedEnd(0, 25 * 3_600_000, replies, IDLE, 30 * 3_600_000)).toEqual({ end: 86_400_000, automatic: true });
    expect(clockedEnd(0, null, replies, IDLE, 20 * 3_600_000)).toEqual({ end: null, automatic: false });
  });
});

describe('overlapMs', () => {
  it('is the part of an interval inside a window', () => {
    expect(overlapMs(0, 10, 5, 20)).toBe(5);
    expect(overlapMs(0, 10, 10, 20)).toBe(0);
    expect(overlapMs(0, 10, -Infinity, Infinity)).toBe(10);
  });
});
