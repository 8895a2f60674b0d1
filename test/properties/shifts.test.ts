// The shift report against a reference written apart, over random histories on the night a
// daylight-saving change (Europe/Berlin, 2026-10-25) falls in: random rosters (a night slot across
// midnight, slots in the repeated hour, one-off shifts), clock-ins and clock-outs as the route
// appends them, fans writing, chatters replying, tips. Every record but the clock commands arrives
// in any order within the lateness, some twice; the clock commands arrive in their chat's order,
// some twice. The records go through the processor's round and the projector's folds onto the
// embedded store in random batches, and shiftReport answers as the reference does: clocked time
// (the automatic clock-out found by walking the replies), each planned shift's figures, the
// revenue of the clocked time under the session and shift models, and each account's coverage
// (walked second by second). A failure prints fast-check's seed: rerun with PROPERTY_SEED /
// PROPERTY_PATH.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AppendRecord } from '../../src/adapters/log/log.js';
import { EmbeddedStore } from '../../src/adapters/store/embedded-store.js';
import { ChatterStore } from '../../src/accounts/chatter-store.js';
import { RosterStore } from '../../src/accounts/roster-store.js';
import { inboundRecord } from '../../src/domain/inbound-record.js';
import { CLOCK_CHATTER, clockChatOf } from '../../src/domain/normalise.js';
import { percent } from '../../src/domain/percentiles.js';
import { rosterIssue, type Roster, type WeeklySlot } from '../../src/domain/roster.js';
import { tickRecords } from '../../src/processor/ticker.js';
import { applyEvents } from '../../src/projector/runner.js';
import { ReadModelSet } from '../../src/read-models/read-model-set.js';
import { shiftReport } from '../../src/read-side/shift-report.js';
import { factRecord } from '../support/inbound-records.js';
import type { Fact } from '../support/reference-model.js';
import { reportData } from '../support/report-reference.js';
import { referenceShifts } from '../support/roster-reference.js';
import { runRecords } from '../support/run-chats.js';
import { tempDir } from '../support/temp-dirs.js';
import { propertyRuns } from '../support/property-runs.js';

const SESSION_IDLE_MS = 1_800_000;
const CLOCK_IDLE_MS = 1_800_000;
const LATE_MS = 300_000;
const GRACE_MS = 600_000;
const THRESHOLD_SEC = 300;
const MIN = 60_000;
// Saturday 2026-10-24 20:00 in Berlin (CEST); the clocks go back at 03:00 CEST that night.
const T0 = Date.UTC(2026, 9, 24, 18, 0);
const ACCOUNT = 'acct_night';
const CHATTERS = ['ann', 'bob'] as const;
const TZ = 'Europe/Berlin';

/** Minutes to the next step: any, and often just under or at the idle time (the step adds a second). */
const gapArb = fc.oneof(fc.integer({ min: 0, max: 40 }), fc.constantFrom(29, 30));

type Step =
  | { kind: 'fan'; chat: number; gapMin: number }
  | { kind: 'reply'; chat: number; gapMin: number; chatter: number }
  | { kind: 'tip'; chat: number; gapMin: number; cents: number }
  | { kind: 'clock'; gapMin: number; chatter: number; action: 'in' | 'out' };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('fan' as const), chat: fc.integer({ min: 0, max: 2 }), gapMin: gapArb }),
  fc.record({ kind: fc.constant('reply' as const), chat: fc.integer({ min: 0, max: 2 }), gapMin: gapArb, chatter: fc.integer({ min: 0, max: 1 }) }),
  fc.record({ kind: fc.constant('tip' as const), chat: fc.integer({ min: 0, max: 2 }), gapMin: gapArb, cents: fc.integer({ min: 1, max: 5_000 }) }),
  fc.record({ kind: fc.constant('clock' as const), gapMin: gapArb, chatter: fc.integer({ min: 0, max: 1 }), action: fc.constantFrom('in' as const, 'out' as const) }),
);

/** Weekly slots to pick from: across midnight, inside and across the repeated hour, an evening. */
const SLOTS: readonly Omit<WeeklySlot, 'accountId'>[] = [
  { day: 'sat', start: '22:00', end: '06:00' },
  { day: 'sun', start: '02:15', end: '02:45' },
  { day: 'sun', start: '01:30', end: '04:00' },
  { day: 'sat', start: '19:00', end: '23:30' },
  { day: 'sun', start: '06:00', end: '12:00' },
];

const rosterArb = fc.record({
  slots: fc.uniqueArray(fc.integer({ min: 0, max: SLOTS.length - 1 }), { maxLength: 2 }),
  oneOff: fc.option(fc.tuple(fc.integer({ min: 0, max: 20 * 60 }), fc.integer({ min: 10, max: 6 * 60 })), { nil: null }),
});

const caseArb = fc.record({
  steps: fc.array(stepArb, { minLength: 10, maxLength: 50, size: 'max' }),
  rosters: fc.tuple(rosterArb, rosterArb),
  jitter: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 20 }),
  redeliver: fc.integer({ min: 0, max: 5 }),
  cuts: fc.array(fc.integer({ min: 1, max: 30 }), { minLength: 1, maxLength: 6 }),
  /** Whether the report is read after every batch too (its settled rows are kept; what comes after must still count). */
  peek: fc.boolean(),
});

const iso = (ms: number): string => new Date(ms).toISOString();
const fanOf = (chat: number): string => String(401 + chat);

interface Interval { chatter: string; inAt: number; end: number | null }

/**
 * When an interval begun at `inAt` ended by idling, as of `at`: counting from the clock-in and
 * then from each reply, the first gap of the idle time without a reply; null: still on at `at`.
 */
function idleEnd(inAt: number, replies: readonly number[], at: number): number | null {
  let last = inAt;
  for (const r of replies) {
    if (r < inAt || r > at) continue;
    if (r - last >= CLOCK_IDLE_MS) return last + CLOCK_IDLE_MS;
    last = Math.max(last, r);
  }
  return at - last >= CLOCK_IDLE_MS ? last + CLOCK_IDLE_MS : null;
}

interface History {
  facts: Fact[];
  /** Records that may arrive in any order within the lateness. */
  loose: { at: number; record: AppendRecord }[];
  /** Clock commands, in their chat's order. */
  clocks: { at: number; record: AppendRecord }[];
  intervals: Interval[];
  maxAt: number;
}

function historyOf(steps: readonly Step[]): History {
  const h: History = { facts: [], loose: [], clocks: [], intervals: [], maxAt: T0 };
  const replies = new Map<string, number[]>(CHATTERS.map((c) => [c, []]));
  const open = new Map<string, Interval>();
  let t = T0;
  let ids = 0;
  let key = 0;
  const fact = (f: Fact) => {
    h.facts.push(f);
    h.loose.push({ at: f.at, record: factRecord(f, `evt_night_${++key}`, f.at) });
  };
  const clock = (chatter: string, action: 'in' | 'out', idleSince: number | null) => {
    const body = { chatterId: chatter, action, requestedBy: 'lead', requestedAt: iso(t), ...(idleSince !== null ? { idleSince: iso(idleSince) } : {}) };
    h.clocks.push({ at: t, record: inboundRecord({ source: 'command', event: CLOCK_CHATTER, accountId: ACCOUNT, chatId: clockChatOf(chatter), dedupeKey: `clock:${chatter}:${action}:${t}`, receivedAt: t }, Buffer.from(JSON.stringify(body))) });
  };
  for (const s of steps) {
    t += s.gapMin * MIN + 1_000;
    h.maxAt = t;
    if (s.kind === 'fan') fact({ kind: 'message', account: ACCOUNT, chat: fanOf(s.chat), id: String(70_000 + ++ids), at: t, sender: 'fan', chatter: null });
    else if (s.kind === 'reply') {
      const chatter = CHATTERS[s.chatter] as string;
      replies.get(chatter)?.push(t);
      fact({ kind: 'message', account: ACCOUNT, chat: fanOf(s.chat), id: String(70_000 + ++ids), at: t, sender: 'human', chatter });
    } else if (s.kind === 'tip') fact({ kind: 'payment', account: ACCOUNT, chat: fanOf(s.chat), id: `${70_000 + ++ids}${'0'.repeat(27)}`, at: t, cents: s.cents });
    else {
      // As the route decides: refuse a clock-in while on and a clock-out with nothing open; an
      // interval that idling has ended is closed where it ended, by this command.
      const chatter = CHATTERS[s.chatter] as string;
      const current = open.get(chatter);
      const ended = current ? idleEnd(current.inAt, replies.get(chatter) ?? [], t) : null;
      if (s.action === 'in' && current && ended === null) continue;
      if (s.action === 'out' && !current) continue;
      if (current) {
        current.end = ended ?? t;
        open.delete(chatter);
      }
      clock(chatter, s.action, ended);
      if (s.action === 'in') {
        const i: Interval = { chatter, inAt: t, end: null };
        h.intervals.push(i);
        open.set(chatter, i);
      }
    }
  }
  // What is still open at the report's time ends by idling by then (the report looks later).
  for (const i of open.values()) i.end = idleEnd(i.inAt, replies.get(i.chatter) ?? [], Number.MAX_SAFE_INTEGER);
  return h;
}

function rosterOf(pick: { slots: number[]; oneOff: [number, number] | null }): Roster {
  return {
    timezone: TZ, weekly: pick.slots.map((i) => ({ ...(SLOTS[i] as Omit<WeeklySlot, 'accountId'>), accountId: ACCOUNT })),
    oneOff: pick.oneOff === null ? [] : [{ accountId: ACCOUNT, start: T0 + pick.oneOff[0] * MIN, end: T0 + (pick.oneOff[0] + pick.oneOff[1]) * MIN }],
    absences: [],
  };
}

const within = (spans: readonly [number, number][], t: number) => spans.some(([a, b]) => t >= a && t < b);

/** An empty store whose one roster is ann's one-off shift of the first hour. */
async function annOnOneShift(dirPrefix: string): Promise<{ store: EmbeddedStore; rm: ReturnType<ReadModelSet['at']>; rosters: RosterStore }> {
  const store = new EmbeddedStore(tempDir(dirPrefix));
  const models = new ReadModelSet(store);
  await models.ensureIndexes(1);
  const rosters = new RosterStore(store);
  await rosters.set('ann', rosterOf({ slots: [], oneOff: [0, 60] }), 'lead', T0);
  return { store, rm: models.at(1), rosters };
}

describe('the shift report', () => {
  it('equals the reference on a daylight-saving night, whatever the arrival order, redelivery or batching', async () => {
    await fc.assert(fc.asyncProperty(caseArb, async (c) => {
      const rosters = c.rosters.map(rosterOf);
      fc.pre(rosters.every((r) => rosterIssue(r) === null));
      const h = historyOf(c.steps);
      const tickAt = h.maxAt + 2 * LATE_MS + SESSION_IDLE_MS + CLOCK_IDLE_MS;
      const now = tickAt;
      // Loose records up to half the lateness late, every n-th again; clock commands in order.
      const timed = [...h.loose.map((r, i) => ({ ...r, arrives: r.at + (c.jitter[i % c.jitter.length] ?? 0) * (LATE_MS / 2) })), ...h.clocks.map((r) => ({ ...r, arrives: r.at }))];
      const again = c.redeliver === 0 ? [] : timed.filter((_, i) => i % c.redeliver === 0).map((r) => ({ ...r, arrives: r.arrives + LATE_MS / 4 }));
      const arrivals = [...timed, ...again].sort((a, b) => a.arrives - b.arrives).map((r) => r.record);
      const m = runRecords([...arrivals, ...tickRecords(1, tickAt)], SESSION_IDLE_MS, LATE_MS);

      const store = new EmbeddedStore(tempDir('convops-shifts-prop-'));
      try {
        await new ReadModelSet(store).ensureIndexes(1);
        const rm = new ReadModelSet(store).at(1);
        const rosterStore = new RosterStore(store);
        for (const [i, r] of rosters.entries()) await rosterStore.set(CHATTERS[i] as string, r, 'lead', T0);
        const from = T0 - 3_600_000;
        const to = T0 + 30 * 3_600_000;
        const q = { from, to, inScope: {}, thresholdSec: THRESHOLD_SEC, clockIdleMs: CLOCK_IDLE_MS, noShowGraceMs: GRACE_MS, now };
        for (let start = 0, i = 0; start < m.positioned.length; i++) {
          const batch = m.positioned.slice(start, start + (c.cuts[i % c.cuts.length] ?? 1));
          await applyEvents(rm, batch);
          start += batch.length;
          // Read half way, at the final instant: rows of shifts over by then are kept, and must
          // not be given again once later records change what they were worked out from.
          if (c.peek) for (const model of ['session', 'shift'] as const) await shiftReport(rm, rosterStore, new ChatterStore(store), { ...q, model });
        }
        const [bySession, byShift] = [await shiftReport(rm, rosterStore, new ChatterStore(store), { ...q, model: 'session' }), await shiftReport(rm, rosterStore, new ChatterStore(store), { ...q, model: 'shift' })];

        // The reference: sessions and each payment's session credit from the reference model;
        // a session's first fan message and first reply from its facts.
        const data = reportData(h.facts, SESSION_IDLE_MS, tickAt - LATE_MS);
        const fanTimes = h.facts.filter((f) => f.kind === 'message' && f.sender === 'fan');
        const sessions = data.sessions.map((s) => {
          const first = fanTimes.filter((f) => `${f.account}:${f.chat}` === s.chatKey && f.at >= s.openedAt && (s.closedAt === null || f.at < s.closedAt)).map((f) => f.at).sort((a, b) => a - b)[0] ?? null;
          return { ...s, firstFanMessageAt: first, firstResponseAt: first === null || s.firstResponseSec === null ? null : first + s.firstResponseSec * 1000 };
        });
        const spansOf = (chatter: string): [number, number][] => h.intervals.filter((i) => i.chatter === chatter).map((i) => [i.inAt, Math.min(i.end ?? now, now)]);
        const onAt = (t: number) => CHATTERS.filter((ch) => within(spansOf(ch), t)).sort();
        /** Each payment's cents per chatter under a model: the session's, or dealt round those on. */
        const credit = (p: (typeof data.payments)[number], model: 'session' | 'shift'): Map<string, number> => {
          const out = new Map<string, number>();
          if (model === 'session') return p.chatterId === null ? out : out.set(p.chatterId, p.cents);
          const table = onAt(p.at);
          for (let cent = 0; cent < p.cents && table.length > 0; cent++) out.set(table[cent % table.length] as string, (out.get(table[cent % table.length] as string) ?? 0) + 1);
          return out;
        };

        const want = CHATTERS.flatMap((chatter, ci) => referenceShifts({ ...(rosters[ci] as Roster), weekly: (rosters[ci] as Roster).weekly }, from, to).map((shift) => {
          const on = spansOf(chatter).map(([a, b]): [number, number] => [Math.max(a, shift.start), Math.min(b, shift.end)]).filter(([a, b]) => b > a);
          const clockedMs = on.reduce((n, [a, b]) => n + (b - a), 0);
          const first = on.length === 0 ? null : Math.min(...on.map(([a]) => a));
          const last = on.length === 0 ? null : Math.max(...on.map(([, b]) => b));
          const over = now >= shift.end;
          const waited = sessions.filter((s) => s.firstFanMessageAt !== null && within(on, s.firstFanMessageAt));
          const answered = waited.filter((s) => s.firstResponderId === chatter && s.firstResponseSec !== null).map((s) => s.firstResponseSec as number).sort((a, b) => a - b);
          const rank = (p: number) => (answered.length === 0 ? null : answered[Math.ceil((p / 100) * answered.length) - 1] ?? null);
          const revenue = (model: 'session' | 'shift') => data.payments.filter((p) => within(on, p.at)).reduce((n, p) => n + (credit(p, model).get(chatter) ?? 0), 0);
          return {
            chatterId: chatter, plannedStart: shift.start, plannedEnd: shift.end,
            clockedSec: Math.floor(clockedMs / 1000),
            lateStartSec: first !== null && first > shift.start ? Math.floor((first - shift.start) / 1000) : null,
            earlyEndSec: over && last !== null && last < shift.end ? Math.floor((shift.end - last) / 1000) : null,
            noShow: on.length === 0 && now >= shift.start + GRACE_MS,
            fansWaited: waited.length, sessionsAnswered: answered.length,
            withinThresholdPct: percent(answered.filter((sec) => sec <= THRESHOLD_SEC).length, answered.length),
            medianFirstResponseSec: rank(50), p90FirstResponseSec: rank(90),
            revenue: { session: revenue('session'), shift: revenue('shift') },
          };
        })).sort((a, b) => a.plannedStart - b.plannedStart || a.chatterId.localeCompare(b.chatterId));

        const got = (r: typeof bySession) => r.shifts.map((s) => ({
          chatterId: s.chatterId, plannedStart: s.plannedStart, plannedEnd: s.plannedEnd, clockedSec: s.clockedSec, lateStartSec: s.lateStartSec, earlyEndSec: s.earlyEndSec,
          noShow: s.noShow, fansWaited: s.fansWaited, sessionsAnswered: s.sessionsAnswered, withinThresholdPct: s.withinThresholdPct,
          medianFirstResponseSec: s.medianFirstResponseSec, p90FirstResponseSec: s.p90FirstResponseSec,
        })).sort((a, b) => a.plannedStart - b.plannedStart || a.chatterId.localeCompare(b.chatterId));
        const figures = want.map(({ revenue: _r, ...w }) => w);
        expect(got(bySession), 'shift figures').toEqual(figures);
        const revenueOf = (r: typeof bySession) => [...r.shifts].sort((a, b) => a.plannedStart - b.plannedStart || a.chatterId.localeCompare(b.chatterId)).map((s) => s.revenueCents);
        expect(revenueOf(bySession), 'revenue, session model').toEqual(want.map((w) => w.revenue.session));
        expect(revenueOf(byShift), 'revenue, shift model').toEqual(want.map((w) => w.revenue.shift));

        // Clocked time per chatter inside the window, and the account's coverage, second by second.
        const end = Math.min(to, now);
        for (const s of bySession.chatters) {
          expect(s.clockedSec, `${s.chatterId} clocked`).toBe(Math.floor(spansOf(s.chatterId).reduce((n, [a, b]) => n + Math.max(0, Math.min(b, end) - Math.max(a, from)), 0) / 1000));
        }
        const waits = sessions.filter((s) => s.firstFanMessageAt !== null && s.firstFanMessageAt >= from && s.firstFanMessageAt < to)
          .map((s): [number, number] => [s.firstFanMessageAt as number, s.firstResponseAt ?? (s.status === 'closed' && s.closedAt !== null ? s.closedAt : now)]);
        let [waitingSec, uncoveredSec, staffedSec] = [0, 0, 0];
        for (let t = from; t < end; t += 1000) {
          const staffed = onAt(t).length > 0;
          if (staffed) staffedSec++;
          if (!within(waits, t)) continue;
          waitingSec++;
          if (!staffed) uncoveredSec++;
        }
        const coverage = bySession.accounts.find((a) => a.accountId === ACCOUNT) ?? { waitingSec: 0, uncoveredWaitingSec: 0, staffedSec: 0 };
        expect({ waitingSec: coverage.waitingSec, uncoveredSec: coverage.uncoveredWaitingSec, staffedSec: coverage.staffedSec }, 'coverage').toEqual({ waitingSec, uncoveredSec, staffedSec });
      } finally {
        await store.close();
      }
    }), propertyRuns(20));
  }, 300_000);

  it('works a shift out again once a reply moves the end of a clocked interval not clocked out', async () => {
    // ann clocks in and never out; a fan writes, she answers at 2 min and again at 22 min. Read
    // before the second reply has arrived, her idling ended the interval at 32 min; after it, at
    // 52 min. The shift is over by then at either reading: its row must not be the first one kept.
    const h = historyOf([
      { kind: 'clock', gapMin: 0, chatter: 0, action: 'in' }, { kind: 'fan', chat: 0, gapMin: 1 },
      { kind: 'reply', chat: 0, gapMin: 1, chatter: 0 }, { kind: 'reply', chat: 0, gapMin: 20, chatter: 0 },
    ]);
    const last = h.loose.reduce((a, b) => (b.at > a.at ? b : a));
    const first = [...h.clocks, ...h.loose.filter((r) => r !== last)].sort((a, b) => a.at - b.at);
    const now = h.maxAt + 3 * 3_600_000;
    const m = runRecords([...first.map((r) => r.record), last.record, ...tickRecords(1, now)], SESSION_IDLE_MS, LATE_MS);
    const { store, rm, rosters } = await annOnOneShift('convops-shifts-kept-');
    try {
      const q = { from: T0 - 3_600_000, to: T0 + 3 * 3_600_000, inScope: {}, model: 'session' as const, thresholdSec: THRESHOLD_SEC, clockIdleMs: CLOCK_IDLE_MS, noShowGraceMs: GRACE_MS, now };
      const report = async () => (await shiftReport(rm, rosters, new ChatterStore(store), q)).shifts.map((r) => r.clockedSec);
      // The events of the records before the second reply, then the rest.
      const cut = m.positioned.findIndex((p) => p.event.type === 'MessageRecorded' && p.event.at === last.at);
      expect(cut).toBeGreaterThan(0);
      await applyEvents(rm, m.positioned.slice(0, cut));
      expect(await report()).toEqual([2 * 60 + 2 + 30 * 60]);
      await applyEvents(rm, m.positioned.slice(cut));
      expect(await report()).toEqual([22 * 60 + 3 + 30 * 60]);
    } finally {
      await store.close();
    }
  }, 60_000);

  it('keeps a row the window cuts for that window only', async () => {
    // ann's shift runs 0–60 min; a fan writes at 1 min and she answers at 2. A window that begins
    // before the fan message counts the session in the shift's row, one that begins after it
    // does not, however the two follow each other.
    const h = historyOf([
      { kind: 'clock', gapMin: 0, chatter: 0, action: 'in' }, { kind: 'fan', chat: 0, gapMin: 1 },
      { kind: 'reply', chat: 0, gapMin: 1, chatter: 0 }, { kind: 'clock', gapMin: 50, chatter: 0, action: 'out' },
    ]);
    const now = h.maxAt + 3 * 3_600_000;
    const m = runRecords([...[...h.clocks, ...h.loose].sort((a, b) => a.at - b.at).map((r) => r.record), ...tickRecords(1, now)], SESSION_IDLE_MS, LATE_MS);
    const { store, rm, rosters } = await annOnOneShift('convops-shifts-cut-');
    try {
      await applyEvents(rm, m.positioned);
      const fanAt = Math.min(...h.loose.map((r) => r.at));
      const answered = async (from: number) => (await shiftReport(rm, rosters, new ChatterStore(store), {
        from, to: T0 + 3 * 3_600_000, inScope: {}, model: 'session', thresholdSec: THRESHOLD_SEC, clockIdleMs: CLOCK_IDLE_MS, noShowGraceMs: GRACE_MS, now,
      })).shifts.map((r) => r.sessionsAnswered);
      expect(fanAt).toBeGreaterThan(T0);
      for (const [from, want] of [[T0 - 3_600_000, 1], [fanAt - 1, 1], [fanAt + 1, 0], [fanAt - 1, 1], [fanAt + 1, 0], [T0 - 3_600_000, 1]] as const) {
        expect(await answered(from), `from ${from - T0} ms after the shift's start`).toEqual([want]);
      }
    } finally {
      await store.close();
    }
  }, 60_000);
});
