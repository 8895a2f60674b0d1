// coachPriority and its reasons (docs/api.md, "How the numbers are defined"): each part a manager
// weighs, its points, and the priority as their sum.
import { describe, expect, it } from 'vitest';
import type { SlaFigures } from '../../src/domain/sla.js';
import { coaching } from '../../src/read-models/scorecard.js';

const sla = (within: number, breaches: number, p90: number | null): SlaFigures => ({
  sessions: within + breaches, responded: within + breaches, withinThreshold: within, breaches, missed: 0, pending: 0,
  withinThresholdPct: within + breaches === 0 ? null : (within / (within + breaches)) * 100, medianFirstResponseSec: p90, p90FirstResponseSec: p90,
});

describe('coaching', () => {
  it('scores nothing for a chatter with nothing judged, no money figure and no alert', () => {
    expect(coaching(sla(0, 0, null), 300, 0)).toEqual({ coachPriority: 0, coachReasons: [] });
  });

  it('adds SLA misses (40), the slow tail (20), money below the team\'s (20 and 10) and open alerts (10), the largest reason first', () => {
    const r = coaching(sla(5, 5, 600), 300, 2, { revenuePerDirectMessageCents: 60, unlockRatioPct: 30 }, { revenuePerDirectMessageCents: 240, unlockRatioPct: 60 });
    expect(r.coachReasons).toEqual([
      { kind: 'sla-misses', points: 20, text: '5 of 10 sessions past the SLA' },
      { kind: 'low-revenue-per-message', points: 15, text: '$0.60 per direct message against the team\'s $2.40' },
      { kind: 'slow-tail', points: 13, text: 'p90 first response 10m 00s against 5m 00s' },
      { kind: 'low-unlock-ratio', points: 5, text: 'unlock ratio 30% against the team\'s 60%' },
      { kind: 'open-alerts', points: 4, text: '2 open alerts' },
    ]);
    expect(r.coachPriority).toBe(57);
  });

  it('gives no money points at or above the team, or without a figure to compare', () => {
    const good = coaching(sla(10, 0, 60), 300, 0, { revenuePerDirectMessageCents: 300, unlockRatioPct: 70 }, { revenuePerDirectMessageCents: 240, unlockRatioPct: 60 });
    expect(good.coachReasons.map((x) => x.kind)).toEqual(['slow-tail']);
    expect(coaching(sla(10, 0, 60), 300, 0, { revenuePerDirectMessageCents: null, unlockRatioPct: null }, { revenuePerDirectMessageCents: 240, unlockRatioPct: 60 }).coachPriority).toBe(1);
    expect(coaching(sla(10, 0, 60), 300, 0, { revenuePerDirectMessageCents: 0, unlockRatioPct: 0 }, { revenuePerDirectMessageCents: 0, unlockRatioPct: null }).coachPriority).toBe(1);
  });

  it('stays within 0–100 at the worst', () => {
    const worst = coaching(sla(0, 9, 99_999), 300, 50, { revenuePerDirectMessageCents: 0, unlockRatioPct: 0 }, { revenuePerDirectMessageCents: 500, unlockRatioPct: 80 });
    expect(worst.coachPriority).toBe(100);
    expect(worst.coachReasons.map((x) => x.points)).toEqual([40, 20, 20, 10, 10]);
  });
});
