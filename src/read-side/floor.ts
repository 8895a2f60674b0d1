// The floor wallboard's figures, for one view (a key's accounts, the public one, or totals
// only): totals (open, awaiting, breached now, longest wait, % answered within the threshold
// today), rows per account and per chatter, and the open alerts. Shared by GET /api/floor
// and its event stream, so the page and the API cannot disagree. Every coloured figure comes
// with its grade: the page shows it and decides none.
import type { DocumentStore } from '../adapters/store/store.js';
import { canSee, type ReadAuth, type Scope } from '../access/access-model.js';
import { gradeOf, withinGradeOf } from '../domain/sla.js';
import { localDay } from '../domain/zoned-time.js';
import { mergeAlerts, type MergedAlert } from '../intelligence/alert-merge.js';
import type { IntelligenceSetup } from '../intelligence/index.js';
import * as AccountStats from '../read-models/account-stats/queries.js';
import { chattersOf } from '../read-models/report-buckets/figures.js';
import { chatterIdOf } from '../read-models/report-buckets/keys.js';
import { ReadModelSet } from '../read-models/read-model-set.js';
import { openNowOf, slaReportOf, waitingNowOf } from '../read-models/reports.js';
import { ACCOUNTS_COLLECTION, type AccountDoc } from '../accounts/registry.js';
import { onNow } from '../read-models/clock-intervals/queries.js';
import type { Collection } from '../adapters/store/store.js';

/**
 * - `full`: a caller with a key: rows and full alerts of the key's accounts;
 * - `public`: no key while reads are open: rows per account and chatter, alerts without fan
 *   ids or text (the wall is read by anyone walking past, and so is every other read);
 * - `aggregate`: no key while reads need one (READ_AUTH=required): totals only, no account,
 *   display name or chatter, so nobody learns from the wall which accounts the agency runs.
 */
export type FloorViewKind = 'full' | 'public' | 'aggregate';

export interface FloorViewer {
  /** The accounts the viewer may see; null: all. */
  readonly scope: Scope;
  readonly view: FloorViewKind;
}

/** The floor a caller gets: a key's own accounts in full; without one, what READ_AUTH allows. */
export function floorViewer(scope: Scope, signedIn: boolean, readAuth: ReadAuth): FloorViewer {
  if (signedIn) return { scope, view: 'full' };
  return { scope: null, view: readAuth === 'required' ? 'aggregate' : 'public' };
}

const iso = (t: number | null): string | null => (t === null || !Number.isFinite(new Date(t).getTime()) ? null : new Date(t).toISOString());

/** How many fans are over the threshold, as the wall colours it: a few can be caught up, three or more cannot. */
export type BreachedGrade = 'none' | 'some' | 'high';
export const breachedGradeOf = (n: number): BreachedGrade => (n >= 3 ? 'high' : n >= 1 ? 'some' : 'none');

/** The worst open alert. */
export type AlertGrade = 'clear' | 'warning' | 'critical';
export const alertGradeOf = (s: { critical: number; warning: number }): AlertGrade => (s.critical > 0 ? 'critical' : s.warning > 0 ? 'warning' : 'clear');

export class FloorView {
  private readonly models: ReadModelSet;
  private readonly registry: Collection<AccountDoc>;

  constructor(store: DocumentStore, private readonly setup: IntelligenceSetup, private readonly timezone: string, private readonly clockIdleMs = 1_800_000) {
    this.models = new ReadModelSet(store);
    this.registry = store.collection<AccountDoc>(ACCOUNTS_COLLECTION);
  }

  /** Stored alerts merged with live findings, only of the accounts the viewer may see. */
  async alerts(scope: Scope, now: number, storedFilter: Record<string, unknown>): Promise<MergedAlert[]> {
    const inScope = scope === null ? {} : { accountId: { $in: [...scope] } };
    const { intelligence } = this.setup;
    const [stored, live] = await Promise.all([
      intelligence.alerts.find({ ...storedFilter, ...inScope }, { sort: { openedAt: -1 }, limit: 5000 }),
      intelligence.liveFindings(now, inScope),
    ]);
    return mergeAlerts(stored, live, now).filter((a) => canSee(scope, a.accountId));
  }

  async snapshot(viewer: FloorViewer, now: number) {
    const rm = await this.models.active();
    const inScope = viewer.scope === null ? {} : { accountId: { $in: [...viewer.scope] } };
    const threshold = this.setup.settings.thresholdSec;
    const day = localDay(now, this.timezone);
    const named = viewer.view !== 'aggregate';
    const [live, waiting, seen, alerts, today, registered, clockedIn] = await Promise.all([
      openNowOf(rm, inScope, now),
      waitingNowOf(rm, inScope, threshold, now),
      AccountStats.accountIds(rm, inScope),
      this.alerts(viewer.scope, now, { status: { $in: ['open', 'acked'] } }),
      slaReportOf(rm, { from: day.start, to: day.end }, inScope, threshold, now),
      named ? this.registry.find(viewer.scope === null ? {} : { _id: { $in: [...viewer.scope] } }, { projection: { displayName: 1 }, limit: 10_000 }) : [],
      named ? onNow(rm, inScope, this.clockIdleMs, now) : [],
    ]);
    // The agency's own name for an account reads better on a wall than its platform id.
    const names = new Map(registered.map((a) => [a._id, a.displayName]));
    const openAlerts = alerts.filter((a) => a.status === 'open');
    const breached = waiting.filter((x) => x.grade === 'breached');
    const longest = (rows: readonly { waitSec: number }[]): number => rows.reduce((m, x) => Math.max(m, x.waitSec), 0);
    const accountIds = [...new Set([...seen, ...live.keys(), ...clockedIn.map((i) => i.accountId)])].sort();
    const accounts = accountIds.map((id) => {
      const l = live.get(id);
      const over = breached.filter((x) => x.accountId === id).length;
      const longestWaitSec = longest(waiting.filter((x) => x.accountId === id));
      const on = [...new Set(clockedIn.filter((i) => i.accountId === id).map((i) => i.chatterId))].sort();
      const awaiting = l?.awaiting ?? 0;
      return {
        id, displayName: names.get(id) ?? null, open: l?.open ?? 0, awaiting, breached: over, breachedGrade: breachedGradeOf(over),
        longestWaitSec, longestWaitGrade: gradeOf(longestWaitSec, threshold), openAlerts: openAlerts.filter((x) => x.accountId === id).length,
        // Who is clocked in on it now; fans waiting with nobody on is what a floor manager acts on first.
        onNow: on, waitingWithNobodyOn: on.length === 0 ? awaiting : 0,
      };
    });
    // Chatters with open sessions (by the latest human reply), summed over accounts.
    const perChatter = new Map<string, { open: number; awaiting: number }>();
    for (const l of live.values()) {
      for (const [key, c] of chattersOf(l)) {
        const id = chatterIdOf(key);
        if (id === null || (c.open ?? 0) <= 0) continue;
        const row = perChatter.get(id) ?? { open: 0, awaiting: 0 };
        row.open += c.open ?? 0;
        row.awaiting += c.awaiting ?? 0;
        perChatter.set(id, row);
      }
    }
    const chatters = [...perChatter.keys()].sort().map((id) => {
      const over = breached.filter((x) => x.chatterId === id).length;
      return {
        id, openSessions: perChatter.get(id)?.open ?? 0, awaiting: perChatter.get(id)?.awaiting ?? 0,
        breached: over, breachedGrade: breachedGradeOf(over), openAlerts: openAlerts.filter((x) => x.chatterId === id).length,
      };
    });
    const severity = { critical: 0, warning: 0, info: 0 };
    for (const a of openAlerts) severity[a.severity]++;
    const longestWaitSec = longest(waiting);
    return {
      at: new Date(now).toISOString(),
      thresholdSec: threshold,
      totals: {
        open: accounts.reduce((n, a) => n + a.open, 0),
        awaiting: accounts.reduce((n, a) => n + a.awaiting, 0),
        breached: breached.length,
        breachedGrade: breachedGradeOf(breached.length),
        longestWaitSec,
        longestWaitGrade: gradeOf(longestWaitSec, threshold),
        severity,
        // Alerts count rules; a manager counts fans (a VIP past the SLA raises two).
        alertedFans: new Set(openAlerts.filter((a) => a.chatId !== null).map((a) => `${a.accountId}:${a.chatId}`)).size,
        alertGrade: alertGradeOf(severity),
        today: {
          since: iso(day.start), timezone: this.timezone, sessions: today.sessions, withinThresholdPct: today.withinThresholdPct,
          withinThresholdGrade: withinGradeOf(today.withinThresholdPct),
        },
      },
      // Totals only: the rows would name the accounts and chatters.
      accounts: named ? accounts : [],
      chatters: named ? chatters : [],
      // Newest first, as stored and live merge them; the HTTP answer picks and shapes the top ones.
      openAlerts,
      view: viewer.view,
    };
  }
}

/** The floor's figures for one viewer; src/http/floor-answer.ts shapes them into the answer. */
export type FloorFigures = Awaited<ReturnType<FloorView['snapshot']>>;
