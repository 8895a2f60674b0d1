// The shift report (GET /api/shifts, shifts.csv): each planned shift of the rosters in the window
// against its chatter's clocked time on its account (late start, early end, no-show), and what they
// did while clocked in on it (fans whose wait began then, sessions they answered first and how
// fast, revenue credited to them); and per chatter, the totals. Sessions are placed by their first
// fan message and payments by when they were paid, as the SLA and money reports place them.
import type { Filter } from '../adapters/store/store.js';
import type { ChatterStore } from '../accounts/chatter-store.js';
import type { RosterDoc, RosterStore } from '../accounts/roster-store.js';
import { percent } from '../domain/percentiles.js';
import { byCodeUnits } from '../support/code-unit-order.js';
import { plannedShifts, type PlannedShift } from '../domain/roster.js';
import { shiftFigures, type ShiftStatus } from '../domain/shift-figures.js';
import { shiftWork, type WorkPayment, type WorkSession } from '../domain/shift-work.js';
import { shiftShares, type CreditSpan, type Shares } from '../domain/shift-credit.js';
import { coverageOf, union, type Span } from '../domain/coverage.js';
import type { AttributionModel } from '../read-models/payments/projection.js';
import { workIn, type WorkInterval, type WorkInWindow, type WorkPaymentFacts, type WorkSessionFacts } from '../read-models/report-buckets/work-digest.js';
import { MAX_CLOCKED_MS } from '../domain/clocked-time.js';
import type { ReadModelCollections } from '../read-models/read-model-set.js';
import { accountTest } from '../read-models/account-test.js';
import { sameObjects } from '../read-models/report-buckets/edges.js';
import { clockedSpans } from '../read-models/clock-intervals/queries.js';

export interface ShiftRow {
  readonly shiftId: string;
  readonly chatterId: string;
  readonly displayName: string | null;
  readonly accountId: string;
  readonly kind: 'weekly' | 'one-off';
  readonly plannedStart: number;
  readonly plannedEnd: number;
  readonly plannedSec: number;
  readonly clockedSec: number;
  readonly lateStartSec: number | null;
  readonly earlyEndSec: number | null;
  readonly noShow: boolean;
  readonly status: ShiftStatus;
  readonly fansWaited: number;
  readonly sessionsAnswered: number;
  readonly withinThresholdPct: number | null;
  readonly medianFirstResponseSec: number | null;
  readonly p90FirstResponseSec: number | null;
  readonly revenueCents: number;
}

export interface ChatterShifts {
  readonly chatterId: string;
  readonly displayName: string | null;
  shifts: number;
  plannedSec: number;
  clockedInShiftsSec: number;
  clockedSec: number;
  lateStarts: number;
  earlyEnds: number;
  noShows: number;
  fansWaited: number;
  sessionsAnswered: number;
  withinThresholdPct: number | null;
  revenueCents: number;
}

/** Per account: the time fans waited and, of it, the time nobody was clocked in there (docs/api.md, "Coverage"). */
export interface AccountCoverage {
  readonly accountId: string;
  /** Seconds in the window in which at least one fan whose wait began in it was waiting. */
  readonly waitingSec: number;
  /** Of them, the seconds nobody was clocked in on the account. */
  readonly uncoveredWaitingSec: number;
  /** Seconds in the window someone was clocked in on the account (up to now). */
  readonly staffedSec: number;
}

export interface ShiftReportQuery {
  readonly from: number;
  readonly to: number;
  readonly inScope: Filter;
  readonly chatterId?: string;
  readonly model: AttributionModel;
  readonly thresholdSec: number;
  readonly clockIdleMs: number;
  readonly noShowGraceMs: number;
  readonly now: number;
}

export async function shiftReport(rm: ReadModelCollections, rosters: RosterStore, chatters: ChatterStore, q: ShiftReportQuery): Promise<{ shifts: ShiftRow[]; chatters: ChatterShifts[]; accounts: AccountCoverage[] }> {
  const { from, to, inScope, now } = q;
  const visible = accountTest(inScope);
  // The window's sessions, payments and clock intervals as their day documents hold what the
  // figures need (work-digest.ts): a few documents per account and day, not each one's own.
  const [docs, records, work] = await Promise.all([
    rosters.find(q.chatterId === undefined ? undefined : [q.chatterId]),
    chatters.all(),
    workIn(rm, inScope, from, to),
  ]);
  const sessions: readonly WorkSession[] = work.sessions;
  // Coverage, and a payment's shares under `shift`, are everyone's on the account, not only the
  // chatter asked about.
  const everyone = await clockedSpans(rm, work.intervals, from, q.clockIdleMs, now);
  const intervals = q.chatterId === undefined ? everyone : everyone.filter((i) => i.chatterId === q.chatterId);
  const names = new Map(records.map((r) => [r._id, r.displayName]));
  // What a shift's row is worked out from, built only if some row is not kept (below).
  let inputs: { sessionsOf: Map<string, Sorted<WorkSession>>; paymentsOf: Map<string, Sorted<WorkPayment>> } | null = null;
  const inputsOf = () => {
    if (inputs) return inputs;
    const credits = creditsOf(work.payments, everyone, q.model);
    const payments: WorkPayment[] = work.payments.map((d, i) => ({ accountId: d.accountId, paidAt: d.paidAt, grossCents: d.grossCents, credit: credits[i] ?? [] }));
    // Per account, in time order, so a shift takes the slice of its own time (binary search).
    return (inputs = { sessionsOf: groupSorted(sessions, (s) => s.firstFanMessageAt), paymentsOf: groupSorted(payments, (p) => p.paidAt) });
  };
  const spansOf = new Map<string, typeof intervals>();
  for (const i of intervals) {
    const list = spansOf.get(i.chatterId);
    if (list) list.push(i);
    else spansOf.set(i.chatterId, [i]);
  }
  // Per account, the intervals not clocked out (anyone's, whether idling has ended them for now or not).
  const openOf = new Map<string, WorkInterval[]>();
  for (const i of work.intervals) {
    if (i.outAt !== null) continue;
    const list = openOf.get(i.accountId);
    if (list) list.push(i);
    else openOf.set(i.accountId, [i]);
  }
  const params = `${q.model}|${q.thresholdSec}|${q.noShowGraceMs}`;
  const rows: ShiftRow[] = [];
  const summary = new Map<string, ChatterShifts>();
  const within = new Map<string, number>();
  const sumOf = (id: string): ChatterShifts => {
    let s = summary.get(id);
    if (!s) {
      s = { chatterId: id, displayName: names.get(id) ?? null, shifts: 0, plannedSec: 0, clockedInShiftsSec: 0, clockedSec: 0, lateStarts: 0, earlyEnds: 0, noShows: 0, fansWaited: 0, sessionsAnswered: 0, withinThresholdPct: null, revenueCents: 0 };
      summary.set(id, s);
    }
    return s;
  };
  for (const doc of docs) {
    // A roster with no shift on the accounts in scope is not expanded at all.
    if (![...doc.weekly, ...doc.oneOff].some((s) => visible(s.accountId))) continue;
    const spans = spansOf.get(doc._id) ?? [];
    for (const p of plannedShiftsOf(doc, from, to)) {
      if (!visible(p.accountId)) continue;
      const displayName = names.get(doc._id) ?? null;
      const deps = settled(p, now, q.noShowGraceMs, openOf.get(p.accountId)) ? depsOf(work, p) : null;
      // A shift the window cuts counts only what the window holds: kept for that window.
      const kept = deps === null ? undefined : keptRows(doc, params, p.start >= from && p.end <= to ? null : `${from}|${to}`);
      const memo = kept?.get(p.id);
      let row: ShiftRow;
      let withinThreshold: number;
      if (memo && deps && memo.row.displayName === displayName && sameObjects(memo.deps, deps)) {
        ({ row, withinThreshold } = memo);
      } else {
        const f = shiftFigures(p, spans, now, q.noShowGraceMs);
        // The chatter's clocked time on the shift's account inside the shift.
        const on: [number, number][] = [];
        for (const s of spans) {
          if (s.accountId !== p.accountId) continue;
          const a = Math.max(s.inAt, p.start);
          const b = Math.min(s.end ?? now, p.end);
          if (b > a) on.push([a, b]);
        }
        const { sessionsOf, paymentsOf } = inputsOf();
        const work = shiftWork(doc._id, p.accountId, on, slice(sessionsOf.get(p.accountId), p.start, p.end), slice(paymentsOf.get(p.accountId), p.start, p.end), q.thresholdSec);
        row = {
          shiftId: p.id, chatterId: doc._id, displayName, accountId: p.accountId, kind: p.kind,
          plannedStart: p.start, plannedEnd: p.end, plannedSec: Math.floor((p.end - p.start) / 1000),
          clockedSec: f.clockedSec, lateStartSec: f.lateStartSec, earlyEndSec: f.earlyEndSec, noShow: f.noShow, status: f.status,
          fansWaited: work.fansWaited, sessionsAnswered: work.sessionsAnswered, withinThresholdPct: work.withinThresholdPct,
          medianFirstResponseSec: work.medianFirstResponseSec, p90FirstResponseSec: work.p90FirstResponseSec, revenueCents: work.revenueCents,
        };
        withinThreshold = work.withinThreshold;
        if (deps && kept) {
          if (kept.size >= KEPT_PER_ROSTER) kept.clear();
          kept.set(p.id, { deps, row, withinThreshold });
        }
      }
      rows.push(row);
      const s = sumOf(doc._id);
      s.shifts++;
      s.plannedSec += Math.floor((Math.min(p.end, to) - Math.max(p.start, from)) / 1000);
      s.clockedInShiftsSec += row.clockedSec;
      if (row.lateStartSec !== null) s.lateStarts++;
      if (row.earlyEndSec !== null) s.earlyEnds++;
      if (row.noShow) s.noShows++;
      s.fansWaited += row.fansWaited;
      s.sessionsAnswered += row.sessionsAnswered;
      s.revenueCents += row.revenueCents;
      within.set(doc._id, (within.get(doc._id) ?? 0) + withinThreshold);
    }
  }
  for (const i of intervals) sumOf(i.chatterId).clockedSec += Math.floor(Math.max(0, Math.min(i.end ?? now, to) - Math.max(i.inAt, from)) / 1000);
  for (const s of summary.values()) s.withinThresholdPct = percent(within.get(s.chatterId) ?? 0, s.sessionsAnswered);
  rows.sort((a, b) => a.plannedStart - b.plannedStart || byCodeUnits(a.shiftId, b.shiftId));
  return { shifts: rows, chatters: [...summary.values()].sort((a, b) => byCodeUnits(a.chatterId, b.chatterId)), accounts: coverageByAccount(work.sessions, everyone, from, to, now) };
}

/**
 * A roster's planned shifts in [from, to), kept by the roster document: the embedded store hands
 * out the same document while it is unchanged (RosterStore.find), and a dashboard asks for the
 * same week again and again. Expanding 200 rosters' weeks on the wall clock is a tenth of a
 * report otherwise. A new document (any change, or every read on MongoDB) starts afresh.
 */
const expanded = new WeakMap<RosterDoc, Map<string, readonly PlannedShift[]>>();

function plannedShiftsOf(doc: RosterDoc, from: number, to: number): readonly PlannedShift[] {
  let byWindow = expanded.get(doc);
  if (!byWindow) expanded.set(doc, (byWindow = new Map()));
  const key = `${from}|${to}`;
  let shifts = byWindow.get(key);
  if (!shifts) {
    // A few windows per document at most (this week, last week...): the oldest goes first.
    if (byWindow.size >= 8) byWindow.delete(byWindow.keys().next().value as string);
    byWindow.set(key, (shifts = plannedShifts(doc, from, to, doc._id)));
  }
  return shifts;
}

/**
 * A shift's row once nothing can change it but its inputs: it is over (and past the no-show
 * grace; one the window cuts is kept for that window, as it counts only what the window holds), and no
 * interval on its account that could reach it is still open (an open interval's end follows from
 * replies and the clock, and a late reply can move it; under `shift` anyone's moves a payment's
 * shares). Such a row is kept with the day documents it was worked out from (its account's days,
 * and the day before for the intervals begun then), and given again while the store hands out the
 * same objects for them: any fact of those days that changes (a late session, a payment
 * reassigned, a clock-out) rewrites its day's document. A week's report then works out only the
 * shifts still on or begun today, not a thousand rows a request (issue 51).
 */
function settled(p: PlannedShift, now: number, graceMs: number, open: readonly WorkInterval[] | undefined): boolean {
  if (now < p.end || now < p.start + graceMs) return false;
  // An open interval ends a day after its clock-in at the latest (clocked-time.ts).
  for (const i of open ?? []) if (i.inAt < p.end && i.inAt + MAX_CLOCKED_MS > p.start) return false;
  return true;
}

const DAY_MS = 86_400_000;

function depsOf(work: WorkInWindow, p: PlannedShift): (object | undefined)[] {
  const out: (object | undefined)[] = [];
  for (let day = Math.floor((p.start - MAX_CLOCKED_MS) / DAY_MS) * DAY_MS; day < p.end; day += DAY_MS) out.push(work.dayDoc(p.accountId, day));
  return out;
}

interface KeptRow { readonly deps: readonly (object | undefined)[]; readonly row: ShiftRow; readonly withinThreshold: number }

/**
 * Per roster document (a changed roster is a new document), per model and thresholds, per shift;
 * the rows of shifts a window cuts apart, for one window only: a rolling window is a new one on
 * every request, and its rows would pile up.
 */
const kept = new WeakMap<RosterDoc, Map<string, { whole: Map<string, KeptRow>; cut: { window: string; rows: Map<string, KeptRow> } }>>();
/** Shifts kept per roster document and parameters: a year of a roster's shifts with room to spare. */
const KEPT_PER_ROSTER = 2_000;

/** The kept rows of whole shifts (`window` null) or of the shifts `window` cuts. */
function keptRows(doc: RosterDoc, params: string, window: string | null): Map<string, KeptRow> {
  let byParams = kept.get(doc);
  if (!byParams) kept.set(doc, (byParams = new Map()));
  let rows = byParams.get(params);
  if (!rows) {
    if (byParams.size >= 8) byParams.delete(byParams.keys().next().value as string);
    byParams.set(params, (rows = { whole: new Map(), cut: { window: '', rows: new Map() } }));
  }
  if (window === null) return rows.whole;
  if (rows.cut.window !== window) rows.cut = { window, rows: new Map() };
  return rows.cut.rows;
}

/** Coverage alone over [from, to) (coverage.csv): the two reads it needs, not a whole shift report. */
export async function coverageReport(rm: ReadModelCollections, q: { from: number; to: number; inScope: Filter; clockIdleMs: number; now: number }): Promise<AccountCoverage[]> {
  const work = await workIn(rm, q.inScope, q.from, q.to);
  return coverageByAccount(work.sessions, await clockedSpans(rm, work.intervals, q.from, q.clockIdleMs, q.now), q.from, q.to, q.now);
}

/** Per account with fans waiting or someone on in the window: waiting, uncovered and staffed time up to now. */
function coverageByAccount(sessions: readonly WorkSessionFacts[], intervals: readonly CreditSpan[], from: number, to: number, now: number): AccountCoverage[] {
  const end = Math.min(to, now);
  const waits = new Map<string, Span[]>();
  const clocked = new Map<string, Span[]>();
  const push = (m: Map<string, Span[]>, id: string, span: Span) => {
    const list = m.get(id);
    if (list) list.push(span);
    else m.set(id, [span]);
  };
  // Waiting until the first reply, or the close without one, or now.
  for (const s of sessions) push(waits, s.accountId, [s.firstFanMessageAt, s.waitEnd ?? now]);
  for (const i of intervals) push(clocked, i.accountId, [i.inAt, i.end ?? now]);
  return [...new Set([...waits.keys(), ...clocked.keys()])].sort().map((accountId) => {
    const c = coverageOf(waits.get(accountId) ?? [], clocked.get(accountId) ?? [], from, end);
    const staffedMs = union(clocked.get(accountId) ?? [], from, end).reduce((n, [a, b]) => n + (b - a), 0);
    return { accountId, waitingSec: c.waitingSec, uncoveredWaitingSec: c.uncoveredSec, staffedSec: Math.floor(staffedMs / 1000) };
  });
}

/** Each payment's credit under `model`: the chatter the model names, or under `shift` the chatters clocked in then. */
function creditsOf(payments: readonly WorkPaymentFacts[], intervals: readonly CreditSpan[], model: AttributionModel): Shares[] {
  if (model === 'shift') return shiftShares(payments, intervals);
  return payments.map((p) => {
    const c = p.credited[model];
    return c === null ? [] : [[c, p.grossCents]];
  });
}

interface Sorted<T> { readonly items: T[]; readonly times: number[] }

/** Per account, in time order: already so as the work facts come (work-digest.ts workIn), sorted only if not. */
function groupSorted<T extends { readonly accountId: string }>(list: readonly T[], time: (x: T) => number): Map<string, Sorted<T>> {
  const out = new Map<string, Sorted<T>>();
  let sorted = true;
  for (const x of list) {
    let g = out.get(x.accountId);
    if (!g) {
      g = { items: [], times: [] };
      out.set(x.accountId, g);
    }
    const t = time(x);
    if (g.times.length > 0 && t < (g.times[g.times.length - 1] as number)) sorted = false;
    g.items.push(x);
    g.times.push(t);
  }
  if (sorted) return out;
  for (const [accountId, g] of out) {
    const items = [...g.items].sort((a, b) => time(a) - time(b));
    out.set(accountId, { items, times: items.map(time) });
  }
  return out;
}

/** The items with times in [from, to). */
function slice<T>(g: Sorted<T> | undefined, from: number, to: number): T[] {
  if (!g) return [];
  const first = (t: number): number => {
    let [lo, hi] = [0, g.times.length];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((g.times[mid] as number) < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return g.items.slice(first(from), first(to));
}

export interface PayRow {
  readonly chatterId: string;
  readonly displayName: string | null;
  readonly clockedSec: number;
  readonly creditedRevenueCents: number;
  readonly commissionPct: number | null;
  readonly commissionCents: number | null;
}

/** Per chatter over [from, to): clocked time, the revenue credited to them under `model`, and their commission on it. */
export async function payReport(rm: ReadModelCollections, chatters: ChatterStore, q: Omit<ShiftReportQuery, 'noShowGraceMs' | 'thresholdSec'>): Promise<PayRow[]> {
  const [records, work] = await Promise.all([chatters.all(), workIn(rm, q.inScope, q.from, q.to)]);
  const everyone = await clockedSpans(rm, work.intervals, q.from, q.clockIdleMs, q.now);
  const intervals = q.chatterId === undefined ? everyone : everyone.filter((i) => i.chatterId === q.chatterId);
  const rows = new Map<string, { clockedMs: number; cents: number }>();
  const rowOf = (id: string) => {
    let r = rows.get(id);
    if (!r) {
      r = { clockedMs: 0, cents: 0 };
      rows.set(id, r);
    }
    return r;
  };
  for (const i of intervals) rowOf(i.chatterId).clockedMs += Math.max(0, Math.min(i.end ?? q.now, q.to) - Math.max(i.inAt, q.from));
  // Under `shift`, a payment's shares are worked out from everyone's intervals, also when the
  // query names one chatter (as if nobody else was on, they would get it all).
  creditsOf(work.payments, everyone, q.model).forEach((shares) => {
    for (const [c, cents] of shares) if (q.chatterId === undefined || c === q.chatterId) rowOf(c).cents += cents;
  });
  const byId = new Map(records.map((r) => [r._id, r]));
  return [...rows].map(([chatterId, r]) => {
    const pct = byId.get(chatterId)?.commissionPct ?? null;
    return {
      chatterId, displayName: byId.get(chatterId)?.displayName ?? null, clockedSec: Math.floor(r.clockedMs / 1000), creditedRevenueCents: r.cents,
      commissionPct: pct, commissionCents: pct === null ? null : Math.round((r.cents * pct) / 100),
    };
  }).sort((a, b) => byCodeUnits(a.chatterId, b.chatterId));
}
