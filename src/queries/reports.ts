// The reports managers read, each one named query over the report buckets (history, summed by
// window) and what is open now. Routes parse, call one of these and shape the answer.
import type { Filter } from '../adapters/store/store.js';
import { gradedWait, waitedSec, type GradedWait } from '../domain/sla.js';
import type { ReadModelCollections } from '../projector/read-model-set.js';
import { slaOf, type Sums } from '../projector/models/report-buckets/figures.js';
import { HistogramSet } from '../projector/models/report-buckets/histogram.js';
import { AccountWindow } from '../projector/models/report-buckets/window-sums.js';
import { chatterIdOf } from '../projector/models/report-buckets/keys.js';
import { ReportQueries, type ReportWindow } from '../projector/models/report-buckets/queries.js';
import { coachPriority, type ScorecardRow } from './scorecard.js';
import type { SlaFigures } from '../domain/sla.js';
import { percent } from '../domain/percentiles.js';
import { UNATTRIBUTED, type SlaReport } from './sla.js';

export async function slaReportOf(rm: ReadModelCollections, w: ReportWindow, inScope: Filter, thresholdSec: number, now: number): Promise<SlaReport> {
  const sums = await new ReportQueries(rm).window(w, inScope, ['sla'], now);
  const all = { frt: new HistogramSet(), wait: new HistogramSet() };
  const byChatterHist = new Map<string, HistogramSet>();
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
      const id = chatterIdOf(key) ?? UNATTRIBUTED;
      const set = byChatterHist.get(id) ?? new HistogramSet();
      set.addAll(c.frt);
      byChatterHist.set(id, set);
    }
  }
  const byChatter = [...byChatterHist]
    .map(([chatterId, h]) => ({ chatterId, ...slaOf(h, new HistogramSet(), [], thresholdSec, now) }))
    .filter((c) => c.responded > 0)
    .sort((a, b) => a.chatterId.localeCompare(b.chatterId));
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
  rm: ReadModelCollections, w: ReportWindow, inScope: Filter, openAlertsByChatter: ReadonlyMap<string, number>, thresholdSec: number, now: number,
): Promise<{ rows: ScorecardRow[]; unattributed: Unattributed }> {
  const sums = await new ReportQueries(rm).window(w, inScope, ['sla', 'payments'], now);
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
      nobody.revenueCents -= c.revenueCents;
      const row = per.get(chatterId) ?? { frt: new HistogramSet(), revenueCents: 0, payments: 0 };
      row.frt.addAll(c.frt);
      row.revenueCents += c.revenueCents;
      row.payments += c.payments;
      per.set(chatterId, row);
    }
  }
  const ids = new Set([...[...per].filter(([, r]) => r.payments > 0 || r.frt.total > 0).map(([id]) => id), ...openAlertsByChatter.keys()]);
  const unattributed = { ...nobody, sessionsPct: percent(nobody.sessions, all.sessions), revenuePct: percent(nobody.revenueCents, all.revenueCents) };
  const rows = [...ids].map((chatterId) => {
    const r = per.get(chatterId);
    const sla = slaOf(r?.frt ?? new HistogramSet(), new HistogramSet(), [], thresholdSec, now);
    const openAlerts = openAlertsByChatter.get(chatterId) ?? 0;
    return {
      chatterId, sessions: sla.sessions, revenueCents: r?.revenueCents ?? 0, paymentCount: r?.payments ?? 0, sla, openAlerts,
      coachPriority: coachPriority(sla, thresholdSec, openAlerts),
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
  const [sums, waiting] = await Promise.all([q.window(w, inScope, ['sessions', 'messages', 'payments'], now), q.awaitingNow(inScope, now)]);
  const awaiting = new Map<string, number>();
  for (const s of waiting) if (s.openedAt >= w.from && s.openedAt < w.to) awaiting.set(s.accountId, (awaiting.get(s.accountId) ?? 0) + 1);
  return [...sums.byAccount].map(([accountId, s]) => ({
    accountId, chats: s.count('chats'), sessionsOpened: s.count('opened'), sessionsClosed: s.count('openedClosed'), awaiting: awaiting.get(accountId) ?? 0,
    messages: s.count('messages'), fanMessages: s.count('fanMessages'), revenueCents: s.count('revenueCents'), paymentCount: s.count('payments'),
  })).filter((t) => t.sessionsOpened + t.messages + t.paymentCount + t.chats > 0).sort((a, b) => a.accountId.localeCompare(b.accountId));
}

/** Who waits now, judged against the threshold. */
export interface WaitingNow extends GradedWait {
  readonly accountId: string;
  readonly chatterId: string | null;
}

export async function waitingNowOf(rm: ReadModelCollections, inScope: Filter, thresholdSec: number, now: number): Promise<WaitingNow[]> {
  return (await new ReportQueries(rm).awaitingNow(inScope, now)).map((s) => {
    return { accountId: s.accountId, chatterId: s.lastHumanChatterId, ...gradedWait(waitedSec(s, now) ?? 0, thresholdSec) };
  });
}

/** Sessions open now and awaiting, per account and per chatter (of the latest human reply). */
export async function openNowOf(rm: ReadModelCollections, inScope: Filter, now: number): Promise<Map<string, Sums>> {
  return new ReportQueries(rm).live(inScope, now);
}
