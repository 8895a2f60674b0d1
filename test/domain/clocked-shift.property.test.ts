// Clocked time and a shift's figures against a minute-by-minute reference: the chatter is on
// from the clock-in; each minute, a reply of theirs keeps them on, and once the idle time has
// passed since the clock-in or their last reply (or at the clock-out) they are off for good.
// The reference walks the clock a minute at a time and counts; src/ computes ends and overlaps.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clockedEnd } from '../../src/domain/clocked-time.js';
import { shiftFigures } from '../../src/domain/shift-figures.js';
import { propertyRuns } from '../support/property-runs.js';

const MIN = 60_000;

/** The minutes [0, horizon) the chatter is on, by walking the clock. */
function onMinutes(inAt: number, outAt: number | null, replies: ReadonlySet<number>, idle: number, horizon: number): boolean[] {
  const on: boolean[] = new Array<boolean>(horizon).fill(false);
  let last = inAt;
  for (let m = inAt; m < horizon; m++) {
    if (outAt !== null && m >= outAt) break;
    if (replies.has(m)) {
      if (m - last >= idle) break;
      last = m;
    }
    if (m - last >= idle) break;
    on[m] = true;
  }
  return on;
}

describe('clocked time and shift figures', () => {
  it('equal the minute-by-minute reference', () => {
    fc.assert(fc.property(
      fc.integer({ min: 0, max: 100 }), fc.option(fc.integer({ min: 1, max: 200 }), { nil: null }),
      fc.uniqueArray(fc.integer({ min: 0, max: 300 }), { maxLength: 12 }), fc.integer({ min: 5, max: 60 }),
      fc.integer({ min: 0, max: 250 }), fc.integer({ min: 1, max: 120 }), fc.integer({ min: 0, max: 320 }), fc.integer({ min: 0, max: 30 }),
      (inAt, outLen, replyList, idle, shiftStart, shiftLen, now, grace) => {
        // What has happened by now: a clock-in at or before it, a clock-out only if before it.
        fc.pre(inAt <= now);
        const outAt = outLen === null || inAt + outLen > now ? null : inAt + outLen;
        const replies = new Set(replyList);
        const sorted = [...replies].sort((a, b) => a - b).filter((m) => m <= now);
        const ended = clockedEnd(inAt * MIN, outAt === null ? null : outAt * MIN, sorted.map((m) => m * MIN), idle * MIN, now * MIN);
        // The reference sees only what has happened by now.
        const on = onMinutes(inAt, outAt, new Set(sorted), idle, now);
        const lastOn = on.lastIndexOf(true);
        const stillOn = lastOn === now - 1 && (outAt === null || outAt > now) && (ended.end === null);
        if (ended.end === null) {
          expect(stillOn || now <= inAt, `on now at ${now}`).toBe(true);
        } else {
          // Minutes on before the end, none after.
          const endMin = ended.end / MIN;
          expect(on.slice(inAt, Math.min(endMin, now)).every(Boolean), 'on until the end').toBe(true);
          expect(on.slice(Math.ceil(endMin)).some(Boolean), 'off after the end').toBe(false);
          expect(ended.automatic).toBe(outAt === null || endMin < outAt);
        }
        const shift = { id: 's', accountId: 'a', start: shiftStart * MIN, end: (shiftStart + shiftLen) * MIN, kind: 'one-off' as const };
        const f = shiftFigures(shift, [{ accountId: 'a', inAt: inAt * MIN, end: ended.end }], now * MIN, grace * MIN);
        const inShift = on.map((x, m) => x && m >= shiftStart && m < shiftStart + shiftLen);
        const first = inShift.indexOf(true);
        const last = inShift.lastIndexOf(true);
        expect(f.clockedSec, 'clocked seconds').toBe(inShift.filter(Boolean).length * 60);
        expect(f.lateStartSec, 'late start').toBe(first > shiftStart ? (first - shiftStart) * 60 : null);
        const over = now >= shiftStart + shiftLen;
        expect(f.earlyEndSec, 'early end').toBe(over && last >= 0 && last + 1 < shiftStart + shiftLen ? (shiftStart + shiftLen - last - 1) * 60 : null);
        expect(f.noShow, 'no-show').toBe(first < 0 && now >= shiftStart + grace);
      },
    ), propertyRuns(500));
  });

  // A reader that walked an open interval up to a reply before (clock-intervals/queries.ts keeps
  // where) goes on from there with the replies after it: the end must be the whole walk's.
  it('walked on from a reply up to which no idle gap lies, end as the whole walk', () => {
    fc.assert(fc.property(
      fc.integer({ min: 0, max: 100 }), fc.uniqueArray(fc.integer({ min: 0, max: 400 }), { maxLength: 20 }), fc.integer({ min: 5, max: 60 }), fc.integer({ min: 0, max: 450 }),
      (inAt, replyList, idle, now) => {
        fc.pre(inAt <= now);
        const sorted = replyList.filter((m) => m >= inAt && m <= now).sort((a, b) => a - b).map((m) => m * MIN);
        const whole = clockedEnd(inAt * MIN, null, sorted, idle * MIN, now * MIN);
        let last = inAt * MIN;
        for (const [k, t] of sorted.entries()) {
          if (t - last >= idle * MIN) break;
          last = t;
          expect(clockedEnd(inAt * MIN, null, sorted.slice(k + 1), idle * MIN, now * MIN, t), `walked to ${t / MIN}`).toEqual(whole);
        }
      },
    ), propertyRuns(300));
  });
});
