// The reports managers read, each one named query over the report buckets (history, summed by
// window) and what is open now. Routes parse, call one of these and shape the answer.
import type { Filter } from '../adapters/store/store.js';
import type { BusinessClocks, BusinessHoursStore } from '../accounts/business-hours-store.js';
import { gradedWait, unansweredSec, wholeSec, type GradedWait } from '../domain/sla.js';
import { businessWaitClock, WALL_CLOCK } from '../domain/business-hours.js';
import type { ReadModelCollections } from './read-model-set.js';
import type { BucketCounters, Histogram } from './report-buckets/document.js';
import { slaOf, type Sums, type Unanswered } from './report-buckets/figures.js';
import { pastDeadline, pastDeadlineFilter, shownClose } from '../domain/session-deadline.js';
import { HistogramSet } from './report-buckets/histogram.js';
import { AccountWindow, decodeBucket } from './report-buckets/window-sums.js';
import { chatterIdOf, chatterKey, secKey } from './report-buckets/keys.js';
import type { Part } from './report-buckets/edges.js';
import { ReportQueries, type ReportWindow, type WindowSums } from './report-buckets/queries.js';
import type { SessionDoc } from './sessions/projection.js';
import { coaching, type MoneyFigures, type ScorecardRow } from './scorecard.js';
import { conversionOf, shiftCreditFor, type Attribution } from './conversion.js';
import type { SlaFigures } from '../domain/sla.js';
import { percent } from '../domain/percentiles.js';
import type { SlaReport } from './sla-report.js';

/**
 * How a report measures waits: `wall`, in wall-clock seconds from the report buckets; or
 * `business`, in the seconds inside each account's open hours, from the window's sessions
 * (an account without a schedule in `clocks` measures wall-clock seconds there too).
 */
export type ReportClock = { readonly kind: 'wall' } | { readonly kind: 'business'; readonly clocks: BusinessClocks };
export const WALL: ReportClock = { kind: 'wall' };

/** The clock a report asked for (`clock`): wall, or the business hours of the accounts `inScope` selects. */
export async function reportClockOf(schedules: BusinessHoursStore, kind: ReportClock['kind'], inScope: Filter): Promise<ReportClock> {
  return kind === 'business' ? { kind, clocks: await schedules.clocks(inScope) } : WALL;
}

type SlaSessionFields = Pick<SessionDoc, 'accountId' | 'status' | 'firstFanMessageAt' | 'firstResponseAt' | 'firstResponseSec' | 'firstResponderId' | 'closedAt' | 'lastActivityAt' | 'closeReason' | 'closesAt' | 'closesAs' | 'awaiting'>;

interface SlaCounters {
  frt: Histogram;
  wait: Histogram;
  missed: number;
  chatters: Record<string, { frt: Histogram }>;
}

const bump = (h: Histogram, sec: number): void => {
  const k = secKey(sec);
  h[k] = (h[k] ?? 0) + 1;
};

/**
 * The first-response part of the report buckets, computed from the sessions whose first fan
 * message is in the window, with each wait measured by `clocks`: the same terms as the buckets
 * (contributions.ts) and the live unanswered (queries.ts), so a schedule open around the clock
 * gives the wall-clock figures. An open session still unanswered is one of `open`, placed as far
 * before `now` as it has waited in open hours, so slaOf judges it as it judges the live
 * unanswered (pending within the threshold, a breach past it); a closed one goes into `wait`
 * (a breach).
 */
export async function slaCountersFromSessions(rm: ReadModelCollections, w: ReportWindow, inScope: Filter, now: number, clocks: BusinessClocks): Promise<{ counters: Map<string, BucketCounters>; open: (Unanswered & { readonly accountId: string })[] }> {
  const range: Record<string, number | null> = { $ne: null };
  if (Number.isFinite(w.from)) range.$gte = w.from;
  if (Number.isFinite(w.to)) range.$lt = w.to;
  // Whole documents: the embedded store evaluates a projection per document in JavaScript, which
  // cost six times the read itself (3.3 s against 0.5 s for 100,000 sessions).
  const docs: readonly SlaSessionFields[] = await rm.sessions.find({ ...inScope, firstFanMessageAt: range });
  const out = new Map<string, SlaCounters>();
  const open: (Unanswered & { readonly accountId: string })[] = [];
  for (const doc of docs) {
    // Past its deadline: closed, as every reader shows it (domain/session-deadline.ts).
    const s = pastDeadline(doc, now) ? { ...doc, ...shownClose(doc, now) } : doc;
    const from = s.firstFanMessageAt;
    if (from === null) continue;
    let c = out.get(s.accountId);
    if (!c) {
      c = { frt: {}, wait: {}, missed: 0, chatters: {} };
      out.set(s.accountId, c);
    }
    const clock = clocks.get(s.accountId);
    if (s.firstResponseSec !== null) {
      const sec = clock ? wholeSec(clock.businessMs(from, s.firstResponseAt ?? from + s.firstResponseSec * 1000)) : s.firstResponseSec;
      bump(c.frt, sec);
      const key = chatterKey(s.firstResponderId);
      bump((c.chatters[key] ??= { frt: {} }).frt, sec);
    } else if (s.status === 'closed') {
      // As contributions.ts: until it closed (or its last activity, for a session without a close time).
      const until = s.closedAt ?? s.lastActivityAt;
      bump(c.wait, clock ? wholeSec(clock.businessMs(from, until)) : unansweredSec(s, s.lastActivityAt));
      if (s.closeReason === 'unanswered') c.missed++;
    } else {
      // Open: pending or a breach by the wait so far, as the live unanswered are judged
      // (slaOf takes `now` minus the time given), here the open seconds of the schedule.
      open.push({ accountId: s.accountId, firstFanMessageAt: now - (clock ? wholeSec(clock.businessMs(from, now)) * 1000 : now - from) });
    }
  }
  return { counters: out as Map<string, BucketCounters>, open };
}

/**
 * The window's sums with the first-response part measured by `clock`. Wall, and every account
 * without business hours: the buckets as they are. An account with business hours: its other
 * parts from the buckets, its first-response part from its sessions in the window.
 */
async function windowSums(rm: ReadModelCollections, w: ReportWindow, inScope: Filter, parts: readonly Part[], now: number, clock: ReportClock): Promise<WindowSums> {
  const q = new ReportQueries(rm);
  if (clock.kind === 'wall' || clock.clocks.size === 0 || !parts.includes('sla')) return q.window(w, inScope, parts, now);
  // The clocks were loaded for the accounts in scope: their sessions are all visible.
  const scheduled = [...clock.clocks.keys()];
  const [fromBuckets, fromSessions] = await Promise.all([
    q.window(w, inScope, parts, now),
    slaCountersFromSessions(rm, w, { accountId: { $in: scheduled } }, now, clock.clocks),
  ]);
  const byAccount = new Map<string, AccountWindow>();
  for (const [accountId, s] of fromBuckets.byAccount) {
    if (!clock.clocks.has(accountId)) {
      byAccount.set(accountId, s);
      continue;
    }
    // Its counts and revenue (the chatters' too) stay; its first-response figures are replaced.
    const kept = new AccountWindow();
    for (const [k, v] of Object.entries(s.counters)) if (k !== 'missed') kept.counters[k] = v;
    for (const [key, c] of s.chatters) kept.chatters.set(key, { frt: new HistogramSet(), credit: c.credit });
    byAccount.set(accountId, kept);
  }
  for (const [accountId, counters] of fromSessions.counters) {
    let s = byAccount.get(accountId);
    if (!s) {
      s = new AccountWindow();
      byAccount.set(accountId, s);
    }
    s.add(decodeBucket(counters));
  }
  return { byAccount, unanswered: [...fromBuckets.unanswered.filter((u) => !clock.clocks.has(u.accountId)), ...fromSessions.open] };
}

export async function slaReportOf(rm: ReadModelCollections, w: ReportWindow, inScope: Filter, thresholdSec: number, now: number, clock: ReportClock = WALL): Promise<SlaReport> {
  const sums = await windowSums(rm, w, inScope, ['sla'], now, clock);
  const all = { frt: new HistogramSet(), wait: new HistogramSet() };
  // Keyed by the chatter's id, null for replies credited to nobody: a chatter whose id reads like
  // a sentinel ("unattributed") stays a chatter of its own.
  const byChatterHist = new Map<string | null, HistogramSet>();
  const byAccount: (SlaFigures & { accountId: string })[] = [];
  const accounts = new Set([...sums.byAccount.keys(), ...sums.unanswered.map((u) => u.accountId)]);
  let missed = 0;
  for (const accountId of [...accounts].sort()) {
    const s = sums.byAccount.get(accountId) ?? new AccountWindow();
    all.frt.addAll(s.frt);
    all.wait.addAll(s.wait);
    missed += s.count('missed');
    const figures = slaOf(s.frt, s.wait, sums.unanswered.filter((u) => u.accountId === accountId), thresholdSec, now, s.count('missed'));
    if (figures.sessions > 0) byAccount.push({ accountId, ...figures });
    for (const [key, c] of s.chatters) {
      const id = chatterIdOf(key);
      const set = byChatterHist.get(id) ?? new HistogramSet();
      set.addAll(c.frt);
      byChatterHist.set(id, set);
    }
  }
  const byChatter = [...byChatterHist]
    .map(([chatterId, h]) => ({ chatterId, ...slaOf(h, new HistogramSet(), [], thresholdSec, now) }))
    .filter((c) => c.responded > 0)
    .sort((a, b) => (a.chatterId === null ? 1 : b.chatterId === null ? -1 : a.chatterId.localeCompare(b.chatterId)));
  return { thresholdSec, ...slaOf(all.frt, all.wait, sums.unanswered, thresholdSec, now, missed), byAccount, byChatter };
}

/**
 * What of the window nobody is named for: sessions whose first reply came without a chatter
 * (webhooks carry none; the connector does) and revenue credited to no chatter, with their
 * share of all. A scorecard whose unattributed share is high says little about the chatters.
 */
export interface Unattributed {
  readonly sessions: number;
  readonly sessionsPct: number | null;
  readonly revenueCents: number;
  readonly revenuePct: number | null;
}

export async function scorecardOf(
  rm: ReadModelCollections, w: ReportWindow, inScope: Filter, openAlertsByChatter: ReadonlyMap<string, number>, thresholdSec: number, now: number, clock: ReportClock = WALL,
  model: Attribution = 'session',
): Promise<{ rows: ScorecardRow[]; unattributed: Unattributed }> {
  const shiftRead = shiftCreditFor(rm, model, w, inScope, now);
  const [sums, conversion, shift] = await Promise.all([windowSums(rm, w, inScope, ['sla', 'payments'], now, clock), conversionOf(rm, w, inScope, now, model, shiftRead, false), shiftRead]);
  const bucketModel = typeof model === 'string' ? model : null;
  const per = new Map<string, { frt: HistogramSet; revenueCents: number; payments: number }>();
  const all = { sessions: 0, revenueCents: 0 };
  const nobody = { sessions: 0, revenueCents: 0 };
  for (const s of sums.byAccount.values()) {
    // Revenue credited to nobody is in the account's total only (a payment without a chatter
    // adds to no chatter's counters): what the named chatters do not account for.
    const revenue = s.count('revenueCents');
    all.revenueCents += revenue;
    nobody.revenueCents += revenue;
    for (const [key, c] of s.chatters) {
      const chatterId = chatterIdOf(key);
      all.sessions += c.frt.total;
      // Sessions answered without a named chatter have nobody to coach: counted apart.
      if (chatterId === null) {
        nobody.sessions += c.frt.total;
        continue;
      }
      const row = per.get(chatterId) ?? { frt: new HistogramSet(), revenueCents: 0, payments: 0 };
      row.frt.addAll(c.frt);
      if (bucketModel !== null) {
        const credited = c.credit[bucketModel];
        nobody.revenueCents -= credited.revenueCents;
        row.revenueCents += credited.revenueCents;
        row.payments += credited.payments;
      }
      per.set(chatterId, row);
    }
  }
  // The shift model's credit comes from the clock, not the buckets: a chatter on shift is
  // credited whether or not they answered anyone in the window.
  for (const account of shift?.values() ?? []) {
    for (const [chatterId, c] of account) {
      nobody.revenueCents -= c.revenueCents;
      const row = per.get(chatterId) ?? { frt: new HistogramSet(), revenueCents: 0, payments: 0 };
      row.revenueCents += c.revenueCents;
      row.payments += c.payments;
      per.set(chatterId, row);
    }
  }
  const ids = new Set([...[...per].filter(([, r]) => r.payments > 0 || r.frt.total > 0).map(([id]) => id), ...openAlertsByChatter.keys()]);
  const unattributed = { ...nobody, sessionsPct: percent(nobody.sessions, all.sessions), revenuePct: percent(nobody.revenueCents, all.revenueCents) };
  // The money side, from the conversion report of the same window: each named chatter's, and
  // the team's (every named chatter's direct work together) to weigh it against.
  const money = new Map<string, MoneyFigures>();
  const team = { direct: 0, revenue: 0, sent: 0, unlocked: 0 };
  for (const c of conversion.chatters) {
    if (c.chatterId === null) continue;
    money.set(c.chatterId, { revenuePerDirectMessageCents: c.revenuePerDirectMessageCents, unlockRatioPct: c.unlockRatioPct });
    team.direct += c.directMessages;
    team.revenue += c.revenueCents;
    team.sent += c.directPpvsSent;
    team.unlocked += c.ppvsUnlocked;
  }
  const teamMoney: MoneyFigures = { revenuePerDirectMessageCents: team.direct === 0 ? null : Math.round(team.revenue / team.direct), unlockRatioPct: percent(team.unlocked, team.sent) };
  const rows = [...ids].map((chatterId): ScorecardRow => {
    const r = per.get(chatterId);
    const sla = slaOf(r?.frt ?? new HistogramSet(), new HistogramSet(), [], thresholdSec, now);
    const openAlerts = openAlertsByChatter.get(chatterId) ?? 0;
    const m = money.get(chatterId) ?? { revenuePerDirectMessageCents: null, unlockRatioPct: null };
    return {
      chatterId, sessions: sla.sessions, revenueCents: r?.revenueCents ?? 0, paymentCount: r?.payments ?? 0, sla, openAlerts, ...m,
      ...coaching(sla, thresholdSec, openAlerts, m, teamMoney),
    };
  }).sort((a, b) => b.coachPriority - a.coachPriority || a.chatterId.localeCompare(b.chatterId));
  return { rows, unattributed };
}

/** Per account over a window: sessions opened (and of those closed, awaiting now), new chats, messages, revenue. */
export interface WindowTotals {
  readonly accountId: string;
  readonly chats: number;
  readonly sessionsOpened: number;
  readonly sessionsClosed: number;
  readonly awaiting: number;
  readonly messages: number;
  readonly fanMessages: number;
  readonly revenueCents: number;
  readonly paymentCount: number;
}

export async function windowTotalsOf(rm: ReadModelCollections, w: ReportWindow, inScope: Filter, now: number): Promise<WindowTotals[]> {
  const q = new ReportQueries(rm);
  const [sums, waiting, lapsed] = await Promise.all([
    q.window(w, inScope, ['sessions', 'messages', 'payments'], now),
    q.awaitingNow(inScope, now),
    // Past their deadline, closed as every route counts them, though no tick has recorded it (domain/session-deadline.ts).
    rm.sessions.find({ ...inScope, ...pastDeadlineFilter(now) }, { projection: { accountId: 1, openedAt: 1 } }),
  ]);
  const inWindow = (at: number): boolean => at >= w.from && at < w.to;
  const awaiting = new Map<string, number>();
  for (const s of waiting) if (inWindow(s.openedAt)) awaiting.set(s.accountId, (awaiting.get(s.accountId) ?? 0) + 1);
  const closedLate = new Map<string, number>();
  for (const s of lapsed) if (inWindow(s.openedAt)) closedLate.set(s.accountId, (closedLate.get(s.accountId) ?? 0) + 1);
  return [...sums.byAccount].map(([accountId, s]) => ({
    accountId, chats: s.count('chats'), sessionsOpened: s.count('opened'), sessionsClosed: s.count('openedClosed') + (closedLate.get(accountId) ?? 0), awaiting: awaiting.get(accountId) ?? 0,
    messages: s.count('messages'), fanMessages: s.count('fanMessages'), revenueCents: s.count('revenueCents'), paymentCount: s.count('payments'),
  })).filter((t) => t.sessionsOpened + t.messages + t.paymentCount + t.chats > 0).sort((a, b) => a.accountId.localeCompare(b.accountId));
}

/** Who waits now, judged against the threshold. */
export interface WaitingNow extends GradedWait {
  readonly accountId: string;
  readonly chatterId: string | null;
}

export async function waitingNowOf(rm: ReadModelCollections, inScope: Filter, thresholdSec: number, now: number, clock: ReportClock = WALL): Promise<WaitingNow[]> {
  const waits = clock.kind === 'business' ? businessWaitClock(clock.clocks) : WALL_CLOCK;
  return (await new ReportQueries(rm).awaitingNow(inScope, now)).map((s) => {
    return { accountId: s.accountId, chatterId: s.lastHumanChatterId, ...gradedWait(waits.waitedSec(s, now) ?? 0, thresholdSec) };
  });
}

/** Sessions open now and awaiting, per account and per chatter (of the latest human reply). */
export async function openNowOf(rm: ReadModelCollections, inScope: Filter, now: number): Promise<Map<string, Sums>> {
  return new ReportQueries(rm).live(inScope, now);
}
