// The floor wallboard's figures, for one view (a key's accounts, the public one, or totals
// only): totals (open, awaiting, breached now, longest wait, % answered within the threshold
// today), rows per account and per chatter, and the top open alerts. Shared by GET /api/floor
// and its event stream, so the page and the API cannot disagree. Every coloured figure comes
// with its grade: the page shows it and decides none.
import { Type, type Static, type TSchema } from '@fastify/type-provider-typebox';
import type { DocumentStore } from '../adapters/store/store.js';
import { canSee, type ReadAuth, type Scope } from '../access/access-model.js';
import { gradeOf, withinGradeOf } from '../domain/sla.js';
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

/** An alert as GET /api/alerts and a keyed floor show it. */
export const AlertSchema = Type.Object({
  id: Type.String(),
  ruleId: Type.String(),
  ruleVersion: Type.Integer(),
  severity: Type.Union([Type.Literal('critical'), Type.Literal('warning'), Type.Literal('info')]),
  status: Type.Union([Type.Literal('open'), Type.Literal('acked'), Type.Literal('resolved')]),
  reason: Type.String(),
  recommendation: Type.String(),
  labels: Type.Array(Type.String()),
  sessionId: Type.Union([Type.String(), Type.Null()]),
  accountId: Type.Union([Type.String(), Type.Null()]),
  chatId: Type.Union([Type.String(), Type.Null()]),
  chatterId: Type.Union([Type.String(), Type.Null()]),
  openedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  updatedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  ackedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  ackedBy: Type.Union([Type.String(), Type.Null()]),
  resolvedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  resolvedBecause: Type.Union([Type.String({ description: 'why it resolved: `replied`, `closed-idle`, `closed-unanswered`, `closed-forced`, `session-removed` or `condition-cleared`' }), Type.Null()]),
  origin: Type.Union([Type.Literal('stored'), Type.Literal('live')], { description: 'stored, or found by the live evaluation and not stored yet' }),
});

export function alertView(a: MergedAlert): Static<typeof AlertSchema> {
  return {
    id: a._id, ruleId: a.ruleId, ruleVersion: a.ruleVersion, severity: a.severity, status: a.status, reason: a.reason,
    recommendation: a.recommendation, labels: [...a.labels], sessionId: a.sessionId, accountId: a.accountId, chatId: a.chatId,
    chatterId: a.chatterId, openedAt: iso(a.openedAt), updatedAt: iso(a.updatedAt), ackedAt: iso(a.ackedAt), ackedBy: a.ackedBy,
    resolvedAt: iso(a.resolvedAt), resolvedBecause: a.resolvedBecause ?? null, origin: a.origin,
  };
}

/**
 * The floor's public face: it hangs on a wall and may be read by anyone, so it names accounts
 * and chatters but no fan (no chat or session id, no reason, which quotes fans) and no text.
 */
export function publicAlertView(a: MergedAlert) {
  return { ruleId: a.ruleId, severity: a.severity, status: a.status, accountId: a.accountId, chatterId: a.chatterId, openedAt: iso(a.openedAt) };
}

/** Totals only (READ_AUTH=required without a key): which rule fired, how bad, since when; no account, no chatter. */
export function aggregateAlertView(a: MergedAlert) {
  return { ruleId: a.ruleId, severity: a.severity, status: a.status, openedAt: iso(a.openedAt) };
}

const alertViewOf = { full: alertView, public: publicAlertView, aggregate: aggregateAlertView } as const;

/**
 * The ten worst open alerts as the view shows them. Without a key, alerts about different fans
 * look the same (rule, severity, account, chatter): those collapse into one line with a count,
 * dated by the oldest, so the wall does not repeat itself.
 */
export function topAlertsOf(open: readonly MergedAlert[], view: FloorViewKind) {
  const shown: (ReturnType<(typeof alertViewOf)[FloorViewKind]> & { count: number })[] = [];
  const byLook = new Map<string, { count: number }>();
  for (const a of open) {
    const v = alertViewOf[view](a);
    if (view === 'full') {
      shown.push({ ...v, count: 1 });
      continue;
    }
    const look = JSON.stringify({ ...v, openedAt: null });
    const same = byLook.get(look);
    if (same) {
      same.count++;
      continue;
    }
    const line = { ...v, count: 1 };
    byLook.set(look, line);
    shown.push(line);
  }
  return shown.slice(0, 10);
}

/** How many fans are over the threshold, as the wall colours it: a few can be caught up, three or more cannot. */
export type BreachedGrade = 'none' | 'some' | 'high';
export const breachedGradeOf = (n: number): BreachedGrade => (n >= 3 ? 'high' : n >= 1 ? 'some' : 'none');

/** The worst open alert. */
export type AlertGrade = 'clear' | 'warning' | 'critical';
export const alertGradeOf = (s: { critical: number; warning: number }): AlertGrade => (s.critical > 0 ? 'critical' : s.warning > 0 ? 'warning' : 'clear');

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
    const named = viewer.view !== 'aggregate';
    const [live, waiting, seen, alerts, today, registered] = await Promise.all([
      openNowOf(rm, inScope, now),
      waitingNowOf(rm, inScope, threshold, now),
      AccountStats.accountIds(rm, inScope),
      this.alerts(viewer.scope, now, { status: { $in: ['open', 'acked'] } }),
      slaReportOf(rm, { from: day.start, to: day.end }, inScope, threshold, now),
      named ? this.registry.find(viewer.scope === null ? {} : { _id: { $in: [...viewer.scope] } }, { projection: { displayName: 1 }, limit: 10_000 }) : [],
    ]);
    // The agency's own name for an account reads better on a wall than its platform id.
    const names = new Map(registered.map((a) => [a._id, a.displayName]));
    const openAlerts = alerts.filter((a) => a.status === 'open');
    const breached = waiting.filter((x) => x.grade === 'breached');
    const longest = (rows: readonly { waitSec: number }[]): number => rows.reduce((m, x) => Math.max(m, x.waitSec), 0);
    const accountIds = [...new Set([...seen, ...live.keys()])].sort();
    const accounts = accountIds.map((id) => {
      const l = live.get(id);
      const over = breached.filter((x) => x.accountId === id).length;
      const longestWaitSec = longest(waiting.filter((x) => x.accountId === id));
      return {
        id, displayName: names.get(id) ?? null, open: l?.open ?? 0, awaiting: l?.awaiting ?? 0, breached: over, breachedGrade: breachedGradeOf(over),
        longestWaitSec, longestWaitGrade: gradeOf(longestWaitSec, threshold), openAlerts: openAlerts.filter((x) => x.accountId === id).length,
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
        alertGrade: alertGradeOf(severity),
        today: {
          since: iso(day.start), timezone: this.timezone, sessions: today.sessions, withinThresholdPct: today.withinThresholdPct,
          withinThresholdGrade: withinGradeOf(today.withinThresholdPct),
        },
      },
      // Totals only: the rows would name the accounts and chatters.
      accounts: named ? accounts : [],
      chatters: named ? chatters : [],
      topAlerts: topAlertsOf(openAlerts, viewer.view),
      view: viewer.view,
    };
  }
}

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const Time = Nullable(Type.String({ format: 'date-time' }));
const Count = Type.Integer({ minimum: 0 });
const L = Type.Literal;
const WaitGrade = Type.Union([L('ok'), L('at-risk'), L('breached')], { description: 'the wait beside it against the threshold: `breached` over it, `at-risk` from 80% of it (in whole seconds, to the nearest)' });
const BreachedGrade = Type.Union([L('none'), L('some'), L('high')], { description: 'fans over the threshold: `none` 0, `some` 1–2, `high` 3 or more' });

/**
 * The floor's answer as the OpenAPI document declares it. A route that declares it serialises
 * only these fields, so a field added to the snapshot but not here never reaches a caller.
 * Alerts carry the fields of their view: all of them with a key; rule, severity, status and
 * time (plus account and chatter in the public view) without one.
 */
export const FloorSnapshotSchema = Type.Object({
  at: Type.String({ format: 'date-time' }),
  thresholdSec: Count,
  totals: Type.Object({
    open: Count,
    awaiting: Count,
    breached: Count,
    breachedGrade: BreachedGrade,
    longestWaitSec: Count,
    longestWaitGrade: WaitGrade,
    severity: Type.Object({ critical: Count, warning: Count, info: Count }),
    alertGrade: Type.Union([L('clear'), L('warning'), L('critical')], { description: 'the worst open alert' }),
    today: Type.Object({
      since: Time, timezone: Type.String(), sessions: Count, withinThresholdPct: Type.Union([Type.Number(), Type.Null()]),
      withinThresholdGrade: Type.Union([L('no-data'), L('on-target'), L('below'), L('missed')], { description: '`on-target` 90% or more, `below` from 75%, `missed` under it, `no-data` no session judged yet' }),
    }),
  }),
  accounts: Type.Array(Type.Object({
    id: Type.String(), displayName: Nullable(Type.String()), open: Count, awaiting: Count, breached: Count, breachedGrade: BreachedGrade,
    longestWaitSec: Count, longestWaitGrade: WaitGrade, openAlerts: Count,
  }), { description: 'empty in the `aggregate` view' }),
  chatters: Type.Array(Type.Object({
    id: Type.String(), openSessions: Count, awaiting: Count, breached: Count, breachedGrade: BreachedGrade, openAlerts: Count,
  }), { description: 'empty in the `aggregate` view' }),
  topAlerts: Type.Array(Type.Object({
    count: Type.Integer({ minimum: 1, description: 'alerts this line stands for: without a key, alerts that look the same (rule, severity, account, chatter) are one line' }),
    ruleId: Type.String(),
    severity: Type.Union([Type.Literal('critical'), Type.Literal('warning'), Type.Literal('info')]),
    status: Type.String(),
    openedAt: Time,
    // The public view adds these two; the full view all the rest.
    accountId: Type.Optional(Nullable(Type.String())),
    chatterId: Type.Optional(Nullable(Type.String())),
    id: Type.Optional(Type.String()),
    ruleVersion: Type.Optional(Type.Integer()),
    reason: Type.Optional(Type.String()),
    recommendation: Type.Optional(Type.String()),
    labels: Type.Optional(Type.Array(Type.String())),
    sessionId: Type.Optional(Nullable(Type.String())),
    chatId: Type.Optional(Nullable(Type.String())),
    updatedAt: Type.Optional(Time),
    ackedAt: Type.Optional(Time),
    ackedBy: Type.Optional(Nullable(Type.String())),
    resolvedAt: Type.Optional(Time),
    resolvedBecause: Type.Optional(Nullable(Type.String({ description: 'Why it resolved: `replied`, `closed-idle`, `closed-unanswered`, `closed-forced`, `session-removed` or `condition-cleared`; null while open' }))),
    origin: Type.Optional(Type.Union([Type.Literal('stored'), Type.Literal('live')])),
  })),
  view: Type.Union([Type.Literal('full'), Type.Literal('public'), Type.Literal('aggregate')], {
    description: '`full`: with a key, its accounts; `public`: no key, reads open; `aggregate`: no key, READ_AUTH=required (totals only)',
  }),
});
