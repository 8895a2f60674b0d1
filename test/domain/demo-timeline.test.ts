// The demo timeline moves every time in a body by one offset and touches nothing else: a
// property over generated times in both of the platform's formats, against a reading of the
// times written apart from the code under test (Date.parse on an ISO form).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEMO_LATEST_AGE_MS, latestTime, recentShift, shiftBody } from '../../src/demo/timeline.js';
import { loadDemoRecords } from '../../src/demo/fixtures.js';

const reference = (s: string): number => Date.parse(s.includes('T') ? s : `${s.replace(' ', 'T')}Z`);
const timesIn = (body: string): string[] => [...body.matchAll(/"(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[+-]\d{2}:\d{2}|Z)?)"/g)].map((m) => m[1] as string);

describe('demo timeline', () => {
  it('moves each time by the shift, keeps its format, and leaves every other byte alone', () => {
    const time = fc.date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2030-01-01T00:00:00Z'), noInvalidDate: true })
      .map((d) => new Date(Math.floor(d.getTime() / 1000) * 1000));
    fc.assert(fc.property(time, time, fc.integer({ min: -400 * 86400, max: 400 * 86400 }), fc.constantFrom('+00:00', 'Z', '+02:00', '-05:30'), (a, b, shiftSec, zone) => {
      const offset = zone === 'Z' ? 0 : (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
      const local = new Date(a.getTime() + offset * 60_000).toISOString().slice(0, 19);
      const iso = `${local}${zone}`;
      const plain = b.toISOString().slice(0, 19).replace('T', ' ');
      const body = `{"id":123456789012345678901,"createdAt":"${iso}","created_at":"${plain}","text":"at 2026-01-01 I said"}`;
      const moved = shiftBody(body, shiftSec * 1000);
      const [movedIso, movedPlain] = timesIn(moved);
      expect(reference(movedIso ?? '')).toBe(a.getTime() + shiftSec * 1000);
      expect(reference(movedPlain ?? '')).toBe(b.getTime() + shiftSec * 1000);
      expect(movedIso?.endsWith(zone)).toBe(true);
      expect(movedPlain).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      expect(moved.replace(movedIso ?? '', 'T1').replace(movedPlain ?? '', 'T2')).toBe(body.replace(iso, 'T1').replace(plain, 'T2'));
    }), { numRuns: 500 });
  });

  it('places the shipped dataset so its latest record is minutes old, with the same spacing every time', () => {
    const bodies = loadDemoRecords().map((r) => r.body);
    const now = Date.parse('2026-11-25T12:00:00Z');
    const shift = recentShift(bodies, now);
    const moved = bodies.map((b) => shiftBody(b, shift));
    const latest = latestTime(moved) ?? 0;
    expect(now - latest).toBeGreaterThanOrEqual(DEMO_LATEST_AGE_MS);
    expect(now - latest).toBeLessThan(DEMO_LATEST_AGE_MS + 1000);
    // Spacing: every time moved by exactly the same amount.
    const before = bodies.flatMap(timesIn).map(reference);
    const after = moved.flatMap(timesIn).map(reference);
    expect(after.map((t, i) => t - (before[i] ?? 0))).toEqual(before.map(() => shift));
  });
});
