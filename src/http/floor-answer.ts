// GET /api/floor's answer and its event stream's snapshots: the read side's floor figures with
// the top open alerts in the viewer's view, as the OpenAPI document declares them.
import { Type, type TSchema } from '@fastify/type-provider-typebox';
import type { FloorFigures, FloorView, FloorViewer } from '../read-side/floor.js';
import { topAlertsOf } from './alert-views.js';

/** The figures as the viewer's view shows them: the ten worst open alerts, shaped for it. */
export function floorAnswer(figures: FloorFigures) {
  const { openAlerts, view, ...rest } = figures;
  return { ...rest, topAlerts: topAlertsOf(openAlerts, view), view };
}

/** The floor's answers for a viewer at a time: what GET /api/floor and its stream send. */
export interface FloorAnswers {
  snapshot(viewer: FloorViewer, now: number): Promise<ReturnType<typeof floorAnswer>>;
}

export const floorAnswers = (floor: FloorView): FloorAnswers => ({
  snapshot: async (viewer, now) => floorAnswer(await floor.snapshot(viewer, now)),
});

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
    alertedFans: Type.Integer({ minimum: 0, description: 'fans (account and chat) with at least one open alert: a VIP past the SLA raises two alerts about one fan' }),
    alertGrade: Type.Union([L('clear'), L('warning'), L('critical')], { description: 'the worst open alert' }),
    today: Type.Object({
      since: Time, timezone: Type.String(), sessions: Count, withinThresholdPct: Type.Union([Type.Number(), Type.Null()]),
      withinThresholdGrade: Type.Union([L('no-data'), L('on-target'), L('below'), L('missed')], { description: '`on-target` 90% or more, `below` from 75%, `missed` under it, `no-data` no session judged yet' }),
    }),
  }),
  accounts: Type.Array(Type.Object({
    id: Type.String(), displayName: Nullable(Type.String()), open: Count, awaiting: Count, breached: Count, breachedGrade: BreachedGrade,
    longestWaitSec: Count, longestWaitGrade: WaitGrade, openAlerts: Count,
    onNow: Type.Array(Type.String(), { description: 'the chatters clocked in on the account now (POST /api/admin/chatters/:chatterId/clock)' }),
    waitingWithNobodyOn: Count,
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
