// What a definitions change does to the figures (issue 55): the same reports over the live read
// models and over a generation's, side by side, overall and per account, and revenue per chatter.
import { Type, type Static } from '@sinclair/typebox';
import type { Filter } from '../adapters/store/store.js';
import type { ReadModelCollections } from '../read-models/read-model-set.js';
import type { ReportWindow } from '../read-models/report-buckets/queries.js';
import { scorecardOf, slaReportOf, windowTotalsOf } from '../read-models/reports.js';
import type { BusinessClocks } from '../accounts/business-hours-store.js';

const Seconds = Type.Union([Type.Number(), Type.Null()]);
const FiguresSchema = Type.Object({
  sessions: Type.Integer({ minimum: 0, description: 'sessions opened in the window' }),
  closedIdle: Type.Integer({ minimum: 0 }),
  closedUnanswered: Type.Integer({ minimum: 0 }),
  closedForced: Type.Integer({ minimum: 0 }),
  medianFirstResponseSec: Seconds,
  p90FirstResponseSec: Seconds,
  withinThresholdPct: Seconds,
  businessMedianFirstResponseSec: Type.Union([Type.Number(), Type.Null()], { description: 'on the business clock (clock=business): seconds in each account\'s open hours; the same as the wall clock\'s where an account has no schedule; what is still open judged by the schedules now' }),
  businessP90FirstResponseSec: Seconds,
  businessWithinThresholdPct: Seconds,
  missed: Type.Integer({ minimum: 0 }),
  revenueCents: Type.Integer(),
});
type Figures = Static<typeof FiguresSchema>;

const Pair = Type.Object({ before: FiguresSchema, after: FiguresSchema }, { description: 'before: the live read models; after: the generation\'s' });

export const DiffSchema = Type.Object({
  window: Type.Object({ from: Type.Union([Type.String(), Type.Null()]), to: Type.Union([Type.String(), Type.Null()]) }, { description: 'sessions opened in it, payments made in it; null: open end' }),
  thresholdSec: Type.Integer(),
  before: Type.Object({ generation: Type.Integer(), readModelVersion: Type.Integer() }),
  after: Type.Object({ generation: Type.Integer(), readModelVersion: Type.Integer() }),
  overall: Pair,
  byAccount: Type.Array(Type.Composite([Type.Object({ accountId: Type.String() }), Pair])),
  revenueByChatter: Type.Array(Type.Object({ chatterId: Type.String(), beforeCents: Type.Integer(), afterCents: Type.Integer() }), { description: 'revenue credited to each chatter (session model)' }),
});

const REASONS = ['idle', 'unanswered', 'forced'] as const;

interface Side {
  readonly overall: Figures;
  readonly byAccount: ReadonlyMap<string, Figures>;
  readonly revenueByChatter: ReadonlyMap<string, number>;
}

const ZERO: Figures = { sessions: 0, closedIdle: 0, closedUnanswered: 0, closedForced: 0, medianFirstResponseSec: null, p90FirstResponseSec: null, withinThresholdPct: null, businessMedianFirstResponseSec: null, businessP90FirstResponseSec: null, businessWithinThresholdPct: null, missed: 0, revenueCents: 0 };

async function sideOf(rm: ReadModelCollections, w: ReportWindow, thresholdSec: number, now: number, clocks: BusinessClocks): Promise<Side> {
  const all: Filter = {};
  // The business clock's figures come from the same buckets (the sessions' open-hours seconds as
  // each generation measured them); the schedules now only judge what is still open.
  const [totals, sla, biz, card] = await Promise.all([
    windowTotalsOf(rm, w, all, now), slaReportOf(rm, w, all, thresholdSec, now), slaReportOf(rm, w, all, thresholdSec, now, { kind: 'business', clocks }),
    scorecardOf(rm, w, all, new Map(), thresholdSec, now),
  ]);
  const opened: Filter = {};
  if (Number.isFinite(w.from)) opened.$gte = w.from;
  if (Number.isFinite(w.to)) opened.$lt = w.to;
  const inWindow: Filter = Object.keys(opened).length > 0 ? { openedAt: opened } : {};
  const accounts = [...new Set([...totals.map((t) => t.accountId), ...sla.byAccount.map((a) => a.accountId)])].sort();
  const closes = async (accountId: string | null): Promise<[number, number, number]> => {
    const scope = accountId === null ? {} : { accountId };
    const [idle, unanswered, forced] = await Promise.all(REASONS.map((closeReason) => rm.sessions.countDocuments({ ...scope, ...inWindow, closeReason })));
    return [idle ?? 0, unanswered ?? 0, forced ?? 0];
  };
  const byAccount = new Map<string, Figures>();
  for (const accountId of accounts) {
    const t = totals.find((x) => x.accountId === accountId);
    const s = sla.byAccount.find((x) => x.accountId === accountId);
    const b = biz.byAccount.find((x) => x.accountId === accountId);
    const [closedIdle, closedUnanswered, closedForced] = await closes(accountId);
    byAccount.set(accountId, {
      sessions: t?.sessionsOpened ?? 0, closedIdle, closedUnanswered, closedForced,
      medianFirstResponseSec: s?.medianFirstResponseSec ?? null, p90FirstResponseSec: s?.p90FirstResponseSec ?? null, withinThresholdPct: s?.withinThresholdPct ?? null,
      businessMedianFirstResponseSec: b?.medianFirstResponseSec ?? null, businessP90FirstResponseSec: b?.p90FirstResponseSec ?? null, businessWithinThresholdPct: b?.withinThresholdPct ?? null,
      missed: s?.missed ?? 0, revenueCents: t?.revenueCents ?? 0,
    });
  }
  const [closedIdle, closedUnanswered, closedForced] = await closes(null);
  const overall: Figures = {
    sessions: totals.reduce((n, t) => n + t.sessionsOpened, 0), closedIdle, closedUnanswered, closedForced,
    medianFirstResponseSec: sla.medianFirstResponseSec, p90FirstResponseSec: sla.p90FirstResponseSec, withinThresholdPct: sla.withinThresholdPct,
    businessMedianFirstResponseSec: biz.medianFirstResponseSec, businessP90FirstResponseSec: biz.p90FirstResponseSec, businessWithinThresholdPct: biz.withinThresholdPct,
    missed: sla.missed, revenueCents: totals.reduce((n, t) => n + t.revenueCents, 0),
  };
  return { overall, byAccount, revenueByChatter: new Map(card.rows.map((r) => [r.chatterId, r.revenueCents])) };
}

export async function definitionsDiff(
  live: ReadModelCollections, other: ReadModelCollections, w: ReportWindow, thresholdSec: number, now: number, generations: { readonly live: number; readonly other: number },
  clocks: BusinessClocks = new Map(),
): Promise<Static<typeof DiffSchema>> {
  const [before, after] = await Promise.all([sideOf(live, w, thresholdSec, now, clocks), sideOf(other, w, thresholdSec, now, clocks)]);
  const accounts = [...new Set([...before.byAccount.keys(), ...after.byAccount.keys()])].sort();
  const chatters = [...new Set([...before.revenueByChatter.keys(), ...after.revenueByChatter.keys()])].sort();
  return {
    window: { from: Number.isFinite(w.from) ? new Date(w.from).toISOString() : null, to: Number.isFinite(w.to) ? new Date(w.to).toISOString() : null },
    thresholdSec,
    before: { generation: generations.live, readModelVersion: live.version },
    after: { generation: generations.other, readModelVersion: other.version },
    overall: { before: before.overall, after: after.overall },
    byAccount: accounts.map((accountId) => ({ accountId, before: before.byAccount.get(accountId) ?? ZERO, after: after.byAccount.get(accountId) ?? ZERO })),
    revenueByChatter: chatters.map((chatterId) => ({ chatterId, beforeCents: before.revenueByChatter.get(chatterId) ?? 0, afterCents: after.revenueByChatter.get(chatterId) ?? 0 })),
  };
}
