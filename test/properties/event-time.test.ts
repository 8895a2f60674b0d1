// Property: for any arrival order in which no record is later than the allowed lateness, with
// redeliveries anywhere (thousands of records after the original too), connector copies,
// forced closes and clock ticks, the read models equal the reference model's reading of the
// same facts in time order, deduplicated. The reference shares no code with the system; the
// system here is the processor's own round (src/processor/round.ts) over the records the doors
// write, in rounds of generated sizes over 1 to 3 partitions, and the projector's own folds.
// A failure prints fast-check's seed and path: rerun with PROPERTY_SEED / PROPERTY_PATH.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareWithReference } from '../support/compare-reference.js';
import { conversationArb, type Conversation } from '../support/conversations.js';
import { reference, type LimitEnd } from '../support/reference-model.js';
import { BusinessClock } from '../../src/domain/business-hours.js';
import { runChats, type RunOptions } from '../support/run-chats.js';

const IDLE_MS = 1800_000;
const LATE_MS = 300_000;
const DEFAULT_LIMIT_MS = 86_400_000;
/** With office hours, a limit of two open hours: generated chats span hours, so waits reach it, in open hours and across closings. */
const OFFICE_LIMIT_MS = 2 * 3_600_000;

// An account on office hours with breaks (Monday to Friday, 09:30–10:30, 11:00–12:00 and
// 14:00–17:00 UTC; generated chats start Wednesday 09:00): the system's limit end is the
// processor's (BusinessClock over the schedule); the reference's steps through the minutes with
// nothing but the UTC calendar.
const OFFICE_HOURS: [number, number][] = [[9.5 * 60, 10.5 * 60], [11 * 60, 12 * 60], [14 * 60, 17 * 60]];
const hhmm = (m: number): string => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
const OFFICE = new BusinessClock({ timezone: 'UTC', weekly: Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri'].map((d) => [d, OFFICE_HOURS.map(([a, b]) => [hhmm(a), hhmm(b)])])), holidays: [] });
const businessLimit = (_accountId: string, _receivedAt: number, at: number, limitMs: number): number | undefined => OFFICE.instantAfter(at, limitMs) ?? undefined;
function officeMinutesEnd(_account: string, since: number): number {
  const open = (t: number): boolean => {
    const d = new Date(t);
    const day = d.getUTCDay();
    const minute = d.getUTCHours() * 60 + d.getUTCMinutes();
    return day >= 1 && day <= 5 && OFFICE_HOURS.some(([a, b]) => minute >= a && minute < b);
  };
  // Whole open minutes first, then the part of a minute a start inside one leaves.
  let left = OFFICE_LIMIT_MS;
  let t = since;
  while (left > 0) {
    const next = Math.min(Math.floor(t / 60_000) * 60_000 + 60_000, t + left);
    if (open(t)) left -= next - t;
    t = next;
  }
  return t;
}

/** How the records are cut into rounds and spread over partitions. */
const layoutArb: fc.Arbitrary<RunOptions> = fc.record({ roundSize: fc.integer({ min: 1, max: 12 }), partitions: fc.integer({ min: 1, max: 3 }) });

const params = <T extends unknown[]>(numRuns: number, shrink = true): fc.Parameters<T> => ({
  numRuns: Number(process.env.PROPERTY_RUNS ?? numRuns),
  // Shrinking a case of thousands of records takes longer than the suite may: report it as found.
  endOnFailure: !shrink,
  ...(process.env.PROPERTY_SEED ? { seed: Number(process.env.PROPERTY_SEED), path: process.env.PROPERTY_PATH } : {}),
});

/** Settles everything still waiting, as a clock tick past the last record does. */
function settled(c: Conversation): Conversation {
  return { ...c, arrivals: [...c.arrivals, { kind: 'tick', at: settleAt(c) }] };
}
const settleAt = (c: Conversation): number => c.maxAt + LATE_MS + 1;

function check(c: Conversation, layout: RunOptions = {}, limitEnd?: LimitEnd): void {
  const m = runChats(settled(c).arrivals, IDLE_MS, LATE_MS, limitEnd ? { ...layout, limitEnd: businessLimit, unansweredMs: OFFICE_LIMIT_MS } : layout);
  // The settling tick's clock, less the lateness, is the time by which idle sessions have closed.
  const ref = reference(c.facts, IDLE_MS, c.maxAt + 1, limitEnd ? OFFICE_LIMIT_MS : DEFAULT_LIMIT_MS, limitEnd);
  const problems = compareWithReference(ref, {
    sessions: [...m.sessions.values()], chats: [...m.chats.values()], messages: [...m.messages.values()],
    payments: [...m.payments.values()], account_stats: [...m.accountStats.values()],
  }, 12, settleAt(c));
  for (const [key, s] of m.states) {
    if (s.context.lateCount !== 0) problems.push(`chat ${key}: ${s.context.lateCount} records taken as late`);
    if (s.context.pending.length !== 0) problems.push(`chat ${key}: ${s.context.pending.length} records still waiting`);
  }
  expect(problems).toEqual([]);
}

describe('event time: read models are a function of the set of records', () => {
  it('equal the reference model for generated conversations in any arrival order within the lateness', () => {
    fc.assert(fc.property(conversationArb({ idleMs: IDLE_MS, lateMs: LATE_MS }), layoutArb, (c, layout) => check(c, layout)), params(400));
  });

  it('equal the reference model with the account on office hours: the unanswered limit counts open hours', () => {
    fc.assert(fc.property(conversationArb({ idleMs: IDLE_MS, lateMs: LATE_MS }), layoutArb, (c, layout) => check(c, layout, officeMinutesEnd)), params(150));
  });

  it('equal the reference model for chats of thousands of records, redelivered thousands of records later', () => {
    fc.assert(fc.property(conversationArb({ idleMs: IDLE_MS, lateMs: LATE_MS, minSteps: 2_000, maxSteps: 3_000, withCloses: false }), layoutArb, (c, layout) => {
      // The very first record again, after everything else.
      const first = c.arrivals.find((a) => a.kind === 'fact');
      check(first ? { ...c, arrivals: [...c.arrivals, first] } : c, layout);
    }), params(4, false));
  });

  it('a reply that arrives last answers only the fan messages stamped before it', () => {
    // A fan writes at 09:58 and 10:05; the reply stamped 10:00 arrives last. Read in arrival
    // order, the fan would look answered; the reference (and the system) say they still wait.
    const at = (hhmm: string) => Date.parse(`2026-06-10T${hhmm}:00Z`);
    const facts = [
      { kind: 'message', account: 'acct_x', chat: '1', id: '1', at: at('09:58'), sender: 'fan', chatter: null },
      { kind: 'message', account: 'acct_x', chat: '1', id: '3', at: at('10:05'), sender: 'fan', chatter: null },
      { kind: 'message', account: 'acct_x', chat: '1', id: '2', at: at('10:00'), sender: 'human', chatter: 'ann' },
    ] as const;
    const m = runChats(facts.map((fact, i) => ({ kind: 'fact' as const, fact, key: `k${i}` })), IDLE_MS, LATE_MS);
    const s = m.sessions.get('acct_x:1:1');
    expect(s).toMatchObject({ awaiting: true, waitingSince: at('10:05'), firstResponseSec: 120 });
    expect(reference([...facts], IDLE_MS).sessions.get('acct_x:1:1')).toMatchObject({ awaiting: true, waitingSince: at('10:05'), firstResponseSec: 120 });
  });
});
