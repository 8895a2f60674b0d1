// A planned shift against the time its chatter was clocked in on its account: clocked seconds
// inside it, a late start, an early end, a no-show. Pure: intervals come resolved (the automatic
// clock-out applied, read-models/clock-intervals/queries.ts).
import type { PlannedShift } from './roster.js';

export interface ClockedSpan {
  readonly accountId: string;
  readonly inAt: number;
  /** null: on now. */
  readonly end: number | null;
}

export type ShiftStatus = 'upcoming' | 'on' | 'off' | 'done' | 'missed';

export interface ShiftFigures {
  /** Clocked seconds inside the planned shift (until now for a span still on). */
  readonly clockedSec: number;
  /** From the planned start to the first clock-in inside the shift; null: clocked in by the start, or never. */
  readonly lateStartSec: number | null;
  /** From the last clocked end inside the shift to the planned end; null: on until the end, or never clocked, or not over yet. */
  readonly earlyEndSec: number | null;
  /** Planned to have started `graceMs` ago (or more) and not clocked in on its account at all since. */
  readonly noShow: boolean;
  /** upcoming: not started; on: clocked in now; off: started, not over, not clocked in now; done: over, clocked in some of it; missed: over, never clocked in. */
  readonly status: ShiftStatus;
}

const sec = (ms: number): number => Math.floor(ms / 1000);

export function shiftFigures(shift: PlannedShift, spans: readonly ClockedSpan[], now: number, graceMs: number): ShiftFigures {
  let clocked = 0;
  let firstIn: number | null = null;
  let lastEnd: number | null = null;
  let onNow = false;
  for (const s of spans) {
    if (s.accountId !== shift.accountId) continue;
    const end = s.end ?? now;
    const a = Math.max(s.inAt, shift.start);
    const b = Math.min(end, shift.end);
    if (b <= a) continue;
    clocked += b - a;
    firstIn = firstIn === null ? a : Math.min(firstIn, a);
    lastEnd = lastEnd === null ? b : Math.max(lastEnd, b);
    if (s.end === null && now < shift.end) onNow = true;
  }
  const started = now >= shift.start;
  const over = now >= shift.end;
  const noShow = firstIn === null && now >= shift.start + graceMs;
  const lateStartSec = firstIn !== null && firstIn > shift.start ? sec(firstIn - shift.start) : null;
  const earlyEndSec = over && lastEnd !== null && lastEnd < shift.end ? sec(shift.end - lastEnd) : null;
  const status: ShiftStatus = !started ? 'upcoming' : onNow ? 'on' : !over ? 'off' : firstIn === null ? 'missed' : 'done';
  return { clockedSec: sec(clocked), lateStartSec, earlyEndSec, noShow, status };
}
