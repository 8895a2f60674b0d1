// A planned shift against clocked time: late start, early end, no-show and status.
import { describe, expect, it } from 'vitest';
import type { PlannedShift } from '../../src/domain/roster.js';
import { shiftFigures } from '../../src/domain/shift-figures.js';

const MIN = 60_000;
const shift: PlannedShift = { id: 's', accountId: 'a', start: 60 * MIN, end: 180 * MIN, kind: 'weekly' };
const GRACE = 10 * MIN;

describe('shiftFigures', () => {
  it('is upcoming before the start, and a no-show once the grace has passed with nobody clocked in', () => {
    expect(shiftFigures(shift, [], 30 * MIN, GRACE)).toMatchObject({ status: 'upcoming', noShow: false, clockedSec: 0 });
    expect(shiftFigures(shift, [], 65 * MIN, GRACE)).toMatchObject({ status: 'off', noShow: false });
    expect(shiftFigures(shift, [], 70 * MIN, GRACE)).toMatchObject({ status: 'off', noShow: true });
    expect(shiftFigures(shift, [], 200 * MIN, GRACE)).toMatchObject({ status: 'missed', noShow: true, lateStartSec: null, earlyEndSec: null });
  });

  it('counts only the clocked time on the shift\'s account inside the shift', () => {
    const f = shiftFigures(shift, [{ accountId: 'a', inAt: 50 * MIN, end: 100 * MIN }, { accountId: 'b', inAt: 100 * MIN, end: 170 * MIN }, { accountId: 'a', inAt: 120 * MIN, end: 200 * MIN }], 300 * MIN, GRACE);
    expect(f).toEqual({ clockedSec: (40 + 60) * 60, lateStartSec: null, earlyEndSec: null, noShow: false, status: 'done' });
  });

  it('says how late it started and how early it ended, once over', () => {
    const spans = [{ accountId: 'a', inAt: 75 * MIN, end: 150 * MIN }];
    expect(shiftFigures(shift, spans, 160 * MIN, GRACE)).toMatchObject({ lateStartSec: 15 * 60, earlyEndSec: null, status: 'off' });
    expect(shiftFigures(shift, spans, 190 * MIN, GRACE)).toMatchObject({ lateStartSec: 15 * 60, earlyEndSec: 30 * 60, status: 'done', clockedSec: 75 * 60 });
  });

  it('is on while the chatter is clocked in, counting until now', () => {
    expect(shiftFigures(shift, [{ accountId: 'a', inAt: 55 * MIN, end: null }], 90 * MIN, GRACE)).toEqual({ clockedSec: 30 * 60, lateStartSec: null, earlyEndSec: null, noShow: false, status: 'on' });
  });
});
