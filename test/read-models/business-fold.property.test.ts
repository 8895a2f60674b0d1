// Business time as a fold (issue 55): the report buckets' first responses and waits in open hours,
// as the processor measures each session (domain/session-business-time.ts) and the projector folds
// it (contributions.ts, corrections of the wall-clock histograms), read back on the business clock
// (window-sums.ts), equal what a reference written apart measures session by session: stepping
// minute by minute through a schedule in a fixed-offset zone, holidays included. Sessions are
// folded as the projector sees them change: some first open and waiting, then answered or closed.
// The wall clock's figures are left as they were, and every field a session adds is one a window's
// partial hours read with the SLA. The seed is printed on failure.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SessionSummary } from '../../machines/session-events.js';
import { BusinessClock, DAY_KEYS, type BusinessHours } from '../../src/domain/business-hours.js';
import { withBusinessTime } from '../../src/domain/session-business-time.js';
import { transitionIncrements } from '../../src/read-models/report-buckets/contributions.js';
import { addAt, type BucketCounters } from '../../src/read-models/report-buckets/document.js';
import type { HistogramSet } from '../../src/read-models/report-buckets/histogram.js';
import { chatterKey, isWorkField } from '../../src/read-models/report-buckets/keys.js';
import { partOf } from '../../src/read-models/report-buckets/edges.js';
import { AccountWindow, decodeBucket } from '../../src/read-models/report-buckets/window-sums.js';
import type { SessionDoc } from '../../src/read-models/sessions/document.js';
import { propertyRuns } from '../support/property-runs.js';

const MINUTE = 60_000;
const OFFSET_H = 3;
/** Monday 2026-03-02 00:00 UTC; sessions start in the three weeks after. */
const START = Date.UTC(2026, 2, 2);
const SCHEDULED = 'acct_fold_scheduled';
const PLAIN = 'acct_fold_plain';
const CHATTERS = ['ana', 'ben', null] as const;

const hhmm = (m: number) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;

/** The reference: minutes of [from, to) open, one minute at a time, in local time at a fixed offset. */
function openMinutes(weekly: readonly (readonly [number, number])[][], holidays: ReadonlySet<string>, from: number, to: number): number {
  let n = 0;
  for (let t = from; t < to; t += MINUTE) {
    const local = new Date(t + OFFSET_H * 3_600_000);
    if (holidays.has(local.toISOString().slice(0, 10))) continue;
    const day = (local.getUTCDay() + 6) % 7; // Monday 0
    const minute = local.getUTCHours() * 60 + local.getUTCMinutes();
    if ((weekly[day] ?? []).some(([a, b]) => minute >= a && minute < b)) n++;
  }
  return n;
}

interface Drawn { readonly account: string; readonly fanMinute: number; readonly outcome: 'answered' | 'unanswered' | 'idle' | 'open'; readonly afterMinutes: number; readonly chatter: string | null; readonly seenOpen: boolean }

const drawn: fc.Arbitrary<Drawn> = fc.record({
  account: fc.constantFrom(SCHEDULED, SCHEDULED, PLAIN),
  fanMinute: fc.integer({ min: 0, max: 21 * 1440 }),
  outcome: fc.constantFrom('answered', 'answered', 'unanswered', 'idle', 'open'),
  afterMinutes: fc.integer({ min: 0, max: 4 * 1440 }),
  chatter: fc.constantFrom(...CHATTERS),
  seenOpen: fc.boolean(),
});

const dayIntervals = fc.array(fc.tuple(fc.integer({ min: 0, max: 1439 }), fc.integer({ min: 1, max: 600 })), { maxLength: 2 })
  .map((list) => {
    // Kept apart and in the day: [start, start + length) clipped, overlaps dropped.
    const out: [number, number][] = [];
    for (const [s, len] of [...list].sort((a, b) => a[0] - b[0])) {
      const e = Math.min(1440, s + len);
      if (out.length === 0 || s >= (out[out.length - 1] as [number, number])[1]) out.push([s, e]);
    }
    return out;
  });

function summaryOf(d: Drawn, i: number, final: boolean): SessionSummary {
  const fanAt = START + d.fanMinute * MINUTE;
  const endAt = fanAt + d.afterMinutes * MINUTE;
  const outcome = final ? d.outcome : 'open';
  const answered = outcome === 'answered';
  const closed = outcome === 'unanswered' || outcome === 'idle';
  return {
    sessionId: `${d.account}:chat${i}:1`, status: closed || (answered && final) ? 'closed' : 'open', openedAt: fanAt, closedAt: closed || answered ? endAt + (answered ? 30 * MINUTE : 0) : null,
    closeReason: closed ? outcome : answered ? 'idle' : null, lastMessageAt: endAt, lastActivityAt: endAt, messageCount: answered ? 2 : 1, fanMessageCount: 1, replyCount: answered ? 1 : 0,
    awaiting: !answered && !closed, waitingSince: !answered && !closed ? fanAt : null, firstFanMessageAt: fanAt, firstResponseAt: answered ? endAt : null,
    firstResponseSec: answered ? d.afterMinutes * 60 : null, firstResponderId: answered ? d.chatter : null, lastHumanChatterId: answered ? d.chatter : null,
    revenueCents: 0, paymentCount: 0, fanSpendCents: null, closesAt: !answered && !closed ? fanAt + 5 * 1440 * MINUTE : null, closesAs: !answered && !closed ? 'unanswered' : null,
  };
}

function docOf(d: Drawn, s: SessionSummary, clock: BusinessClock | null): SessionDoc {
  const t = withBusinessTime(s, d.account === SCHEDULED ? clock : null);
  return {
    ...t, _id: s.sessionId, accountId: d.account, chatId: s.sessionId, chatKey: s.sessionId, fanSpendCents: null, priorityAt: null, closesAt: s.closesAt ?? null,
    closesAs: s.closesAs ?? null, lastSeq: 1, firstResponseBusinessSec: t.firstResponseBusinessSec ?? null, waitBusinessSec: t.waitBusinessSec ?? null,
  };
}

/** Equal as multisets of seconds: the same total and the same count at or below every second either holds. */
function expectSame(h: HistogramSet, want: readonly number[], what: string): void {
  expect(h.total, `${what}: total`).toBe(want.length);
  for (const x of new Set(want.flatMap((v) => [v - 1, v]))) expect(h.atMost(x), `${what}: at most ${x}`).toBe(want.filter((v) => v <= x).length);
  for (const p of [50, 90]) {
    const sorted = [...want].sort((a, b) => a - b);
    expect(h.percentile(p), `${what}: p${p}`).toBe(sorted.length === 0 ? null : sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1]);
  }
}

describe('business time as a fold', () => {
  it('the buckets on the business clock equal a minute-by-minute reference, session by session; the wall clock is untouched', () => {
    fc.assert(fc.property(
      fc.array(dayIntervals, { minLength: 7, maxLength: 7 }), fc.uniqueArray(fc.integer({ min: 0, max: 25 }), { maxLength: 4 }), fc.array(drawn, { minLength: 1, maxLength: 40 }),
      (weekly, holidayDays, sessions) => {
        const holidays = holidayDays.map((d) => new Date(START + d * 86_400_000).toISOString().slice(0, 10));
        const schedule: BusinessHours = { timezone: `+0${OFFSET_H}:00`, weekly: Object.fromEntries(DAY_KEYS.map((k, i) => [k, (weekly[i] ?? []).map(([a, b]) => [hhmm(a), hhmm(b)])])), holidays };
        const clock = new BusinessClock(schedule);
        const sums = new Map<string, Record<string, unknown>>();
        for (const [i, d] of sessions.entries()) {
          const final = docOf(d, summaryOf(d, i, true), clock);
          const steps: [SessionDoc | undefined, SessionDoc][] = d.seenOpen && d.outcome !== 'open' ? [[undefined, docOf(d, summaryOf(d, i, false), clock)]] : [];
          steps.push([steps[0]?.[1], final]);
          for (const [before, after] of steps) {
            for (const inc of transitionIncrements('sessions', before, after)) {
              if (inc.at === null) continue;
              // A window's partial hours read a field only through the part it belongs to (edges.ts).
              if (!isWorkField(inc.field)) expect(partOf(inc.field), inc.field).toBe(/^(opened|openedClosed|chats)$/.test(inc.field) ? 'sessions' : 'sla');
              let acc = sums.get(inc.accountId);
              if (!acc) sums.set(inc.accountId, (acc = {}));
              addAt(acc, inc.field, inc.amount);
            }
          }
        }
        const windows = (kind: 'wall' | 'business') => new Map([...sums].map(([a, acc]) => {
          const w = new AccountWindow(kind);
          w.add(decodeBucket(acc as BucketCounters));
          return [a, w] as const;
        }));
        const [wall, business] = [windows('wall'), windows('business')];
        const week = weekly.map((list) => list as [number, number][]);
        const holidaySet = new Set(holidays);
        for (const account of [SCHEDULED, PLAIN]) {
          const mine = sessions.map((d, i) => ({ d, i })).filter(({ d }) => d.account === account);
          const measured = (d: Drawn, minutes: number) => (account === SCHEDULED ? openMinutes(week, holidaySet, START + d.fanMinute * MINUTE, START + (d.fanMinute + minutes) * MINUTE) * 60 : minutes * 60);
          const answered = mine.filter(({ d }) => d.outcome === 'answered');
          const waited = mine.filter(({ d }) => d.outcome === 'unanswered' || d.outcome === 'idle');
          const [b, w] = [business.get(account), wall.get(account)];
          if (!b || !w) {
            expect(answered.length + waited.length, account).toBe(0);
            continue;
          }
          expectSame(b.frt, answered.map(({ d }) => measured(d, d.afterMinutes)), `${account} business frt`);
          expectSame(b.wait, waited.map(({ d }) => measured(d, d.afterMinutes)), `${account} business wait`);
          expectSame(w.frt, answered.map(({ d }) => d.afterMinutes * 60), `${account} wall frt`);
          expectSame(w.wait, waited.map(({ d }) => d.afterMinutes * 60), `${account} wall wait`);
          for (const c of CHATTERS) {
            const theirs = answered.filter(({ d }) => d.chatter === c);
            const row = b.chatters.get(chatterKey(c));
            if (theirs.length === 0) continue;
            expectSame(row?.frt as HistogramSet, theirs.map(({ d }) => measured(d, d.afterMinutes)), `${account} ${String(c)} business frt`);
          }
        }
      },
    ), propertyRuns(60));
  });
});
