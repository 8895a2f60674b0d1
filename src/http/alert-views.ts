// How an alert is shown: in full to a key's holder (GET /api/alerts, a chat's alerts, a keyed
// floor), without fans or text on the public floor, and as totals only where reads need a key.
import { Type, type Static } from '@fastify/type-provider-typebox';
import type { MergedAlert } from '../intelligence/alert-merge.js';
import type { FloorViewKind } from '../read-side/floor.js';

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
