// The floor wallboard's figures, for one view (the public one, or a key's accounts): totals
// (open, awaiting, breached now, longest wait, % answered within the threshold today), rows
// per account and per chatter, and the top open alerts. Shared by GET /api/floor and its
// event stream, so the page and the API cannot disagree.
import type { DocumentStore } from '../adapters/store/store.js';
import { canSee, type Scope } from '../access/access-model.js';
import { localDay } from '../domain/zoned-time.js';
import { mergeAlerts, type MergedAlert } from '../intelligence/alert-merge.js';
import type { IntelligenceSetup } from '../intelligence/index.js';
import * as AccountStats from '../projector/models/account-stats/queries.js';
import { chattersOf } from '../projector/models/report-buckets/figures.js';
import { chatterIdOf } from '../projector/models/report-buckets/keys.js';
import { ReadModelSet } from '../projector/read-model-set.js';
import { openNowOf, slaReportOf, waitingNowOf } from './reports.js';
import { ACCOUNTS_COLLECTION, type AccountDoc } from '../accounts/registry.js';
import type { Collection } from '../adapters/store/store.js';

export interface FloorViewer {
  /** The accounts the viewer may see; null: all. */
  readonly scope: Scope;
  /** A signed-in viewer gets full alerts; the public floor gets no fan ids and no text. */
  readonly signedIn: boolean;
}

const iso = (t: number | null): string | null => (t === null ? null : new Date(t).toISOString());

export function alertView(a: MergedAlert) {
  return {
    id: a._id, ruleId: a.ruleId, ruleVersion: a.ruleVersion, severity: a.severity, status: a.status, reason: a.reason,
    recommendation: a.recommendation, labels: a.labels, sessionId: a.sessionId, accountId: a.accountId, chatId: a.chatId,
    chatterId: a.chatterId, openedAt: iso(a.openedAt), updatedAt: iso(a.updatedAt), ackedAt: iso(a.ackedAt), ackedBy: a.ackedBy,
    resolvedAt: iso(a.resolvedAt), origin: a.origin,
  };
}

/**
 * The floor's public face: it hangs on a wall and may be read by anyone, so it names accounts
 * and chatters but no fan (no chat or session id, no reason, which quotes fans) and no text.
 */
export function publicAlertView(a: MergedAlert) {
  return { ruleId: a.ruleId, severity: a.severity, status: a.status, accountId: a.accountId, chatterId: a.chatterId, openedAt: iso(a.openedAt) };
}

export class FloorView {
  private readonly models: ReadModelSet;
  private readonly registry: Collection<AccountDoc>;

  constructor(store: DocumentStore, private readonly setup: IntelligenceSetup, private readonly timezone: string) {
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
    const [live, waiting, seen, alerts, today, registered] = await Promise.all([
      openNowOf(rm, inScope),
      waitingNowOf(rm, inScope, threshold, now),
      AccountStats.accountIds(rm, inScope),
      this.alerts(viewer.scope, now, { status: { $in: ['open', 'acked'] } }),
      slaReportOf(rm, { from: day.start, to: day.end }, inScope, threshold, now),
      this.registry.find(viewer.scope === null ? {} : { _id: { $in: [...viewer.scope] } }, { projection: { displayName: 1 }, limit: 10_000 }),
    ]);
    // The agency's own name for an account reads better on a wall than its platform id.
    const names = new Map(registered.map((a) => [a._id, a.displayName]));
    const openAlerts = alerts.filter((a) => a.status === 'open');
    const breached = waiting.filter((x) => x.state === 'breached');
    const longest = (rows: readonly { waitSec: number }[]): number => Math.round(rows.reduce((m, x) => Math.max(m, x.waitSec), 0));
    const accountIds = [...new Set([...seen, ...live.keys()])].sort();
    const accounts = accountIds.map((id) => {
      const l = live.get(id);
      return {
        id, displayName: names.get(id) ?? null, open: l?.open ?? 0, awaiting: l?.awaiting ?? 0, breached: breached.filter((x) => x.accountId === id).length,
        longestWaitSec: longest(waiting.filter((x) => x.accountId === id)), openAlerts: openAlerts.filter((x) => x.accountId === id).length,
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
    const chatters = [...perChatter.keys()].sort().map((id) => ({
      id, openSessions: perChatter.get(id)?.open ?? 0, awaiting: perChatter.get(id)?.awaiting ?? 0,
      breached: breached.filter((x) => x.chatterId === id).length, openAlerts: openAlerts.filter((x) => x.chatterId === id).length,
    }));
    const severity = { critical: 0, warning: 0, info: 0 };
    for (const a of openAlerts) severity[a.severity]++;
    return {
      at: iso(now),
      thresholdSec: threshold,
      totals: {
        open: accounts.reduce((n, a) => n + a.open, 0),
        awaiting: accounts.reduce((n, a) => n + a.awaiting, 0),
        breached: breached.length,
        longestWaitSec: longest(waiting),
        severity,
        today: { since: iso(day.start), timezone: this.timezone, sessions: today.sessions, withinThresholdPct: today.withinThresholdPct },
      },
      accounts,
      chatters,
      topAlerts: viewer.signedIn ? openAlerts.slice(0, 10).map(alertView) : openAlerts.slice(0, 10).map(publicAlertView),
      view: viewer.signedIn ? 'full' : 'public',
    };
  }
}

export type FloorSnapshot = Awaited<ReturnType<FloorView['snapshot']>>;
