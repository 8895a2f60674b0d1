// The SLA's terms at their edges (exactly 80%, exactly the threshold, a wait that rounds onto
// or past it), and the places that judge many sessions at once (the report buckets) agreeing
// with the one definition session by session.
import { describe, expect, it } from 'vitest';
import { gradeOf, gradeSteps, gradedWait, outcomeOf, waitedSec, wholeSec, withinGradeOf, type JudgedSession } from '../../src/domain/sla.js';
import { sessionIncrements } from '../../src/read-models/report-buckets/contributions.js';
import { slaOf } from '../../src/read-models/report-buckets/figures.js';
import { HistogramSet, sortedCounts } from '../../src/read-models/report-buckets/histogram.js';
import type { SessionDoc } from '../../src/read-models/sessions/projection.js';

const T = 300;
const T0 = Date.UTC(2026, 10, 25, 12);
const waiting = (ms: number) => waitedSec({ awaiting: true, waitingSince: T0 }, T0 + ms);

describe('a wait, in whole seconds', () => {
  it('rounds to the nearest second, halves up; nobody waiting is null; clocks apart count 0', () => {
    expect(waiting(299_600)).toBe(300);
    expect(waiting(300_499)).toBe(300);
    expect(waiting(300_500)).toBe(301);
    expect(waiting(-5_000)).toBe(0);
    expect(wholeSec(1_499)).toBe(1);
    expect(waitedSec({ awaiting: false, waitingSince: T0 }, T0 + 1_000)).toBeNull();
    expect(waitedSec({ awaiting: true, waitingSince: null }, T0 + 1_000)).toBeNull();
  });

  it('is at risk from exactly 80% of the threshold and breached only past it', () => {
    expect(gradeOf(239, T)).toBe('ok');
    expect(gradeOf(240, T)).toBe('at-risk');
    expect(gradeOf(300, T)).toBe('at-risk');
    expect(gradeOf(301, T)).toBe('breached');
    // 80% of 301 s is 240.8 s: 240 whole seconds are not there yet.
    expect(gradeOf(240, 301)).toBe('ok');
    expect(gradeOf(241, 301)).toBe('at-risk');
  });

  it('299.6 s against 300 shows 300 s and is at risk, the figure and the grade from one number', () => {
    expect(gradedWait(waiting(299_600) ?? -1, T)).toEqual({ waitSec: 300, grade: 'at-risk' });
    expect(gradedWait(waiting(300_500) ?? -1, T)).toEqual({ waitSec: 301, grade: 'breached' });
  });

  it('grade steps name the first second of each grade, in agreement with gradeOf for every whole second', () => {
    expect(gradeSteps(T)).toEqual([{ grade: 'at-risk', fromSec: 240 }, { grade: 'breached', fromSec: 301 }]);
    for (const threshold of [1, 2, 3, 7, 59, 60, 299, 300, 301, 86_400]) {
      const steps = gradeSteps(threshold);
      for (let sec = 0; sec <= threshold * 2 + 2; sec += threshold > 1000 ? 97 : 1) {
        const stepped = steps.filter((s) => sec >= s.fromSec).pop()?.grade ?? 'ok';
        expect(stepped, `${sec}s against ${threshold}s`).toBe(gradeOf(sec, threshold));
      }
    }
  });
});

describe("a session's outcome", () => {
  const session = (over: Partial<JudgedSession>): JudgedSession => ({ status: 'open', firstFanMessageAt: T0, firstResponseSec: null, closedAt: null, ...over });

  it('is not judged before its fan writes', () => {
    expect(outcomeOf(session({ firstFanMessageAt: null }), T, T0 + 10_000_000)).toBeNull();
  });

  it('answered: within at exactly the threshold, a breach one second past it', () => {
    expect(outcomeOf(session({ firstResponseSec: 300 }), T, T0)).toBe('within');
    expect(outcomeOf(session({ firstResponseSec: 301 }), T, T0)).toBe('breach');
  });

  it('unanswered and open: pending while the rounded wait is within the threshold, then a breach', () => {
    expect(outcomeOf(session({}), T, T0 + 300_499)).toBe('pending');
    expect(outcomeOf(session({}), T, T0 + 300_500)).toBe('breach');
  });

  it('unanswered and closed: a breach however short the wait, never pending (no reply can come any more)', () => {
    const closed = (ms: number) => session({ status: 'closed', closedAt: T0 + ms });
    expect(outcomeOf(closed(10_000), T, T0 + 20_000)).toBe('breach');
    expect(outcomeOf(closed(300_400), T, T0 + 99_000_000)).toBe('breach');
    expect(outcomeOf(closed(300_600), T, T0 + 99_000_000)).toBe('breach');
  });
});

describe('the report buckets judge as outcomeOf does', () => {
  const doc = (over: Partial<SessionDoc>): SessionDoc => ({
    _id: 'a:f:1', accountId: 'a', chatId: 'f', chatKey: 'a:f', sessionId: 'a:f:1', status: 'closed', openedAt: T0, closedAt: null, closeReason: null,
    lastMessageAt: T0, lastActivityAt: T0, messageCount: 1, fanMessageCount: 1, replyCount: 0, awaiting: true, waitingSince: T0, firstFanMessageAt: T0,
    firstResponseAt: null, firstResponseSec: null, firstResponderId: null, lastHumanChatterId: null, revenueCents: 0, paymentCount: 0,
    fanSpendCents: null, priorityAt: null, lastSeq: 1, ...over,
  } as SessionDoc);

  /** The figures of one session, as a report window would read them from its buckets. */
  function bucketed(d: SessionDoc, now: number) {
    const hist = (prefix: string) => {
      const counts: Record<string, number> = {};
      for (const i of sessionIncrements(d)) if (i.field.startsWith(prefix)) counts[i.field.slice(prefix.length)] = i.amount;
      const set = new HistogramSet();
      set.add(sortedCounts(counts));
      return set;
    };
    const unanswered = d.status === 'open' && d.firstResponseSec === null && d.firstFanMessageAt !== null ? [{ firstFanMessageAt: d.firstFanMessageAt }] : [];
    const f = slaOf(hist('frt.'), hist('wait.'), unanswered, T, now);
    return f.withinThreshold === 1 ? 'within' : f.breaches === 1 ? 'breach' : f.pending === 1 ? 'pending' : null;
  }

  const cases: [string, Partial<SessionDoc>][] = [
    ['answered at the threshold', { firstResponseSec: 300, replyCount: 1, awaiting: false }],
    ['answered past it', { firstResponseSec: 301, replyCount: 1, awaiting: false }],
    ['closed unanswered after 300.4 s', { closedAt: T0 + 300_400 }],
    ['closed unanswered after 300.5 s', { closedAt: T0 + 300_500 }],
    ['closed unanswered after 299.6 s', { closedAt: T0 + 299_600 }],
    ['open unanswered', { status: 'open' }],
  ];
  for (const now of [T0 + 299_600, T0 + 300_400, T0 + 300_500]) {
    for (const [name, over] of cases) {
      it(`${name}, at ${(now - T0) / 1000} s`, () => {
        const d = doc(over);
        expect(bucketed(d, now)).toBe(outcomeOf(d, T, now));
      });
    }
  }
});

describe('% within threshold, graded', () => {
  it('is on target from 90%, below from 75%, missed under it, and no data without a judged session', () => {
    expect([null, 100, 90, 89.9, 75, 74.9, 0].map(withinGradeOf)).toEqual(['no-data', 'on-target', 'on-target', 'below', 'below', 'missed', 'missed']);
  });
});
