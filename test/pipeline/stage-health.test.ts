// A stage whose rounds keep failing is reported (which stage, why, since when) and stops being
// reported once a round goes through; one failed round (a fence) is routine and not reported.
import { describe, expect, it } from 'vitest';
import { FAILING_AFTER_ROUNDS, StageHealth } from '../../src/pipeline/stage-health.js';

describe('StageHealth', () => {
  it('reports a stage from its third consecutive failure, with the first failure time and the last reason', () => {
    const h = new StageHealth('projector');
    h.failed(new Error('fenced'), Date.UTC(2026, 10, 25, 12));
    expect(h.problem()).toBeNull();
    for (let i = 1; i < FAILING_AFTER_ROUNDS; i++) h.failed(new TypeError(`key too long ${i}`), Date.UTC(2026, 10, 25, 12, i));
    expect(h.problem()).toEqual({ stage: 'projector', reason: `its rounds keep failing: TypeError: key too long ${FAILING_AFTER_ROUNDS - 1}`, since: '2026-11-25T12:00:00.000Z', consecutiveFailures: FAILING_AFTER_ROUNDS });
    h.succeeded();
    expect(h.problem()).toBeNull();
    h.failed('x'.repeat(2000));
    h.failed('x'.repeat(2000));
    h.failed('x'.repeat(2000));
    expect(h.problem()?.reason.length).toBeLessThan(600);
  });
});
