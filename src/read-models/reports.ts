// The reports managers read, each one named query over the report buckets (history, summed by
// window) and what is open now. Routes parse, call one of these and shape the answer.
import type { Filter } from '../adapters/store/store.js';
import type { BusinessClocks, BusinessHoursStore } from '../accounts/business-hours-store.js';
import { gradedWait, wholeSec, type GradedWait } from '../domain/sla.js';
import { businessWaitClock, WALL_CLOCK } from '../domain/business-hours.js';
import type { ReadModelCollections } from './read-model-set.js';
import { slaOf, type Sums } from './report-buckets/figures.js';
import { pastDeadlineFilter } from '../domain/session-deadline.js';
import { HistogramSet } from './report-buckets/histogram.js';
import { AccountWindow } from './report-buckets/window-sums.js';
import { chatterIdOf } from './report-buckets/keys.js';
import type { Part } from './report-buckets/edges.js';
import { ReportQueries, type ReportWindow, type WindowSums } from './report-buckets/queries.js';
import { coaching, type MoneyFigures, type ScorecardRow } from './scorecard.js';
import { conversionOf, shiftCreditFor, type Attribution } from './conversion.js';
import type { SlaFigures } from '../domain/sla.js';
import { percent } from '../domain/percentiles.js';
import type { SlaReport } from './sla-report.js';

/**
 * How a report measures waits: `wall`, in wall-clock seconds; or `business`, in the seconds
 * inside each account's open hours (both from the report buckets; see windowSums)
 * (an account without a schedule in `clocks` measures wall-clock seconds there too).
 */
export type ReportClock = { readonly kind: 'wall' } | { readonly kind: 'business'; readonly clocks: BusinessClocks };
export const WALL: ReportClock = { kind: 'wall' };

/** The clock a report asked for (`clock`): wall, or the business hours of the accounts `inScope` selects. */
export async function reportClockOf(schedules: BusinessHoursStore, kind: ReportClock['kind'], inScope: Filter): Promise<ReportClock> {
  return kind === 'business' ? { kind, clocks: await schedules.clocks(inScope) } : WALL;
}

/**
 * The window's sums with the first responses and waits measured by `clock`. Both come from the
 * report buckets, which fold each session's figures in open hours as the processor measured them
 * (domain/session-business-time.ts): a report costs the same on either clock, over any window.
 * What is still open and unanswered is judged live, on the business clock by the account's
 * schedule now: placed as far before `now` as it has waited in open hours, so slaOf judges it as
 * it judges the wall clock's (pending within the threshold, a breach past it).
 */
async function windowSums(rm: ReadModelCollections, w: ReportWindow, inScope: Filter, parts: readonly Part[], now: number, clock: ReportClock): Promise<WindowSums> {
  const q = new ReportQueries(rm);
  if (clock.kind === 'wall') return q.window(w, inScope, parts, now);
  const sums = await q.window(w, inScope, parts, now, 'business');
  if (clock.clocks.size === 0) return sums;
  const unanswered = sums.unanswered.map((u) => {
    const c = clock.clocks.get(u.accountId);
    return c === undefined || u.closedAs !== undefined ? u : { ...u, firstFanMessageAt: now - wholeSec(c.businessMs(u.firstFanMessageAt, now)) * 1000 };
  });
  return { byAccount: sums.byAccount, unanswered };
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
