// Runs intelligence for sessions: the rules always, the model provider when configured, and
// persists what they find: durable alerts (with their lifecycle) and one analysis per session.
// It never runs on the ingest path; its triggers are its own consumer, a sweep, and the admin.
import { resolvedBecause, type ResolvedBecause } from './resolution.js';
import { notPastDeadline } from '../domain/session-deadline.js';
import { DuplicateKeyError, type Collection, type Doc, type DocumentStore, type Filter } from '../adapters/store/store.js';
import type { ReadModelSet } from '../read-models/read-model-set.js';
import type { SessionDoc } from '../read-models/sessions/projection.js';
import type { Logger } from '../support/logger.js';
import { reconcileSetAsideAlert } from '../pipeline/set-aside-alert.js';
import { DELIVERIES_COLLECTION } from '../alert-hooks/hook-docs.js';
import { ALERTS_COLLECTION, announcing, HOOK_OUTBOX, HOOK_PENDING, outboxEntry, type AlertDoc, type AlertStatus, type Finding } from '../pipeline/alert-doc.js';
import type { HttpModelProvider, ModelLabels } from './model-provider.js';
import { evaluateChatter, evaluateSession, RULES, type RuleSettings, type SessionFacts } from './rules.js';
import { BusinessHoursStore, scheduleGeneration } from '../accounts/business-hours-store.js';
import { businessWaitClock, type WaitClock } from '../domain/business-hours.js';
import { RosterStore } from '../accounts/roster-store.js';
import { plannedShifts } from '../domain/roster.js';
import { accountTest } from '../read-models/account-test.js';
import { clockedIntervals, onNow, resolveInterval } from '../read-models/clock-intervals/queries.js';
import { evaluateCoverage, evaluateNoShow, SHIFT_RULES } from './shift-rules.js';

// Where they were defined before alert-doc.ts: importers keep importing them from here.
export { ALERTS_COLLECTION, type AlertDoc, type AlertStatus } from '../pipeline/alert-doc.js';
export const ANALYSES_COLLECTION = 'analyses';
const MESSAGES_PER_ANALYSIS = 50;
/** How long the wait rules keep the schedules they read (a change made in another process applies within it). */
const WAIT_CLOCK_TTL_MS = 5_000;
/** How long the shift rules' findings are kept (intelligence.ts shiftFindings). */
const SHIFT_FINDINGS_TTL_MS = 5_000;
const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export interface AnalysisDoc extends Doc {
  readonly sessionId: string;
  readonly at: number;
  readonly rules: { readonly labels: readonly string[]; readonly recommendations: readonly string[]; readonly alertIds: readonly string[]; readonly versions: Record<string, number> };
  readonly model: (ModelLabels & { readonly at: number }) | null;
  readonly modelError: string | null;
}

export function findingToAlert(f: Finding, now: number): AlertDoc {
  return {
    _id: f.alertId, ruleId: f.ruleId, ruleVersion: f.ruleVersion, severity: f.severity, reason: f.reason, labels: f.labels,
    recommendation: f.recommendation, sessionId: f.sessionId, accountId: f.accountId, chatId: f.chatId, chatterId: f.chatterId,
    status: 'open', openedAt: now, updatedAt: now, ackedAt: null, ackedBy: null, resolvedAt: null,
  };
}

export function sessionFacts(s: SessionDoc, messages?: SessionFacts['messages']): SessionFacts {
  return {
    sessionId: s._id, accountId: s.accountId, chatId: s.chatId, status: s.status, openedAt: s.openedAt, awaiting: s.awaiting,
    waitingSince: s.waitingSince, replyCount: s.replyCount, lastHumanChatterId: s.lastHumanChatterId, fanSpendCents: s.fanSpendCents ?? null, closesAt: s.closesAt ?? null,
    ...(messages ? { messages } : {}),
  };
}

export interface IntelligenceCounters {
  analyses: number;
  modelCalls: number;
  modelFailures: number;
  alertsOpened: number;
  alertsResolved: number;
}

export class Intelligence {
  readonly alerts: Collection<AlertDoc>;
  readonly analyses: Collection<AnalysisDoc>;
  readonly counters: IntelligenceCounters = { analyses: 0, modelCalls: 0, modelFailures: 0, alertsOpened: 0, alertsResolved: 0 };

  constructor(
    private readonly store: DocumentStore,
    private readonly models: ReadModelSet,
    private readonly settings: RuleSettings,
    private readonly provider: HttpModelProvider | null,
    private readonly logger: Logger,
    private readonly clock: () => number = Date.now,
  ) {
    this.alerts = store.collection<AlertDoc>(ALERTS_COLLECTION);
    this.analyses = store.collection<AnalysisDoc>(ANALYSES_COLLECTION);
  }

  async ensureIndexes(): Promise<void> {
    await this.alerts.createIndex({ keys: { status: 1, openedAt: 1 } });
    await this.alerts.createIndex({ keys: { sessionId: 1 } });
  }

  private async facts(sessionId: string): Promise<{ session: SessionDoc; facts: SessionFacts } | null> {
    const rm = await this.models.active();
    const session = await rm.sessions.findOne({ _id: sessionId });
    if (!session) return null;
    const messages = await rm.messages.find({ sessionId, tombstone: false }, { sort: { sentAt: -1, _id: -1 }, limit: MESSAGES_PER_ANALYSIS });
    messages.reverse();
    return {
      session,
      facts: sessionFacts(session, messages.map((m) => ({
        messageId: m.messageId, sender: m.sender ?? 'fan', chatterId: m.chatterId ?? null, text: m.text ?? '', priceCents: m.priceCents ?? 0, sentAt: m.sentAt ?? 0,
      }))),
    };
  }

  private async chatterFindings(chatterId: string | null): Promise<Finding[]> {
    if (!chatterId) return [];
    const rm = await this.models.active();
    const recent = await rm.sessions.find({ firstResponderId: chatterId, firstResponseSec: { $ne: null } }, { sort: { firstResponseAt: -1 }, limit: this.settings.slowStreak });
    return evaluateChatter({ chatterId, recentFirstResponseSec: recent.map((s) => s.firstResponseSec ?? 0) }, this.settings);
  }

  /** Findings of the sessions waiting now (the rules that need only the session document, indexed by priorityAt), and of the shift rules; `filter` narrows them (an account scope). */
  async liveFindings(now: number, filter: Filter = {}): Promise<Finding[]> {
    const rm = await this.models.active();
    const waiting = await rm.sessions.find({ ...filter, priorityAt: { $ne: null }, ...notPastDeadline(now) });
    const waits = await this.waitClock();
    const visible = accountTest(filter);
    const shifts = (await this.shiftFindings(now)).filter((f) => f.accountId !== null && visible(f.accountId));
    return [...waiting.flatMap((s) => evaluateSession(sessionFacts(s), now, this.settings, true, waits)), ...shifts];
  }

  private shifts: { readonly at: number; readonly findings: Promise<Finding[]> } | null = null;

  /**
   * The shift rules over every account (shift-rules.ts): kept for a few seconds, as the floor asks
   * every second and each open clock interval costs a read of its chatter's replies.
   */
  shiftFindings(now: number): Promise<Finding[]> {
    const cached = this.shifts;
    if (cached && now >= cached.at && now - cached.at < SHIFT_FINDINGS_TTL_MS) return cached.findings;
    const findings = this.evaluateShifts(now);
    this.shifts = { at: now, findings };
    findings.catch(() => { if (this.shifts?.findings === findings) this.shifts = null; });
    return findings;
  }

  private async evaluateShifts(now: number): Promise<Finding[]> {
    const rm = await this.models.active();
    const idleMs = this.settings.clockIdleSec * 1000;
    const rosters = await new RosterStore(this.store).find();
    const on = await onNow(rm, {}, idleMs, now);
    const out: Finding[] = [];
    // No-shows: shifts under way (none lasts a day), past the grace, with no clocked moment on
    // their account yet. The last day's intervals, read once for every roster.
    const recent = await clockedIntervals(rm, {}, now - 86_400_000, now, idleMs, now);
    for (const r of rosters) {
      for (const p of plannedShifts(r, now - 86_400_000, now + 1, r._id)) {
        if (now < p.start + this.settings.noShowGraceSec * 1000 || now >= p.end) continue;
        const clockedIn = recent.some((i) => i.chatterId === r._id && i.accountId === p.accountId && (i.end ?? now) > p.start && i.inAt < now);
        out.push(...evaluateNoShow({ shiftId: p.id, chatterId: r._id, accountId: p.accountId, start: p.start, end: p.end, clockedIn }, now, this.settings.noShowGraceSec));
      }
    }
    // Coverage: accounts that work in shifts (a roster names them, or someone clocked in there), with fans waiting.
    const shiftAccounts = new Set([...rosters.flatMap((r) => [...r.weekly, ...r.oneOff].map((s) => s.accountId)), ...on.map((i) => i.accountId)]);
    const waiting = await rm.sessions.find({ priorityAt: { $ne: null }, ...notPastDeadline(now) }, { projection: { accountId: 1, waitingSince: 1 } });
    const byAccount = new Map<string, number[]>();
    for (const s of waiting) if (s.waitingSince !== null) byAccount.set(s.accountId, [...(byAccount.get(s.accountId) ?? []), s.waitingSince]);
    for (const accountId of [...byAccount.keys()].sort()) {
      const onHere = on.filter((i) => i.accountId === accountId).length;
      const [latest] = onHere > 0 ? [] : await rm.clock_intervals.find({ accountId }, { sort: { inAt: -1 }, limit: 1 });
      if (!shiftAccounts.has(accountId) && latest === undefined) continue;
      const last = latest ? await resolveInterval(rm, latest, idleMs, now) : null;
      const since = byAccount.get(accountId) ?? [];
      out.push(...evaluateCoverage({ accountId, waiting: since.length, oldestWaitingSince: Math.min(...since), onNow: onHere, lastOnAt: last?.end ?? null }, now, this.settings.coverageGapSec));
    }
    return out;
  }

  private waits: { readonly clock: WaitClock; readonly at: number; readonly generation: number } | null = null;

  /**
   * How long fans have waited, for the wait rules: in open hours for an account with business
   * hours. Read once per few seconds, not per analysis (the consumer analyses session by
   * session); this process's own schedule changes apply at once (scheduleGeneration).
   */
  async waitClock(): Promise<WaitClock> {
    const now = Date.now();
    const cached = this.waits;
    if (cached && cached.generation === scheduleGeneration() && now - cached.at < WAIT_CLOCK_TTL_MS) return cached.clock;
    const generation = scheduleGeneration();
    const clock = businessWaitClock(await new BusinessHoursStore(this.store).clocks());
    this.waits = { clock, at: now, generation };
    return clock;
  }

  /** Rules (and the model when asked and configured) for one session; persists alerts and the analysis. */
  async analyse(sessionId: string, withModel: boolean): Promise<AnalysisDoc | null> {
    const loaded = await this.facts(sessionId);
    if (!loaded) return null;
    const now = this.clock();
    const findings = [
      ...evaluateSession(loaded.facts, now, this.settings, false, await this.waitClock()),
      ...(await this.chatterFindings(loaded.session.firstResponderId)),
    ];
    let model: AnalysisDoc['model'] = null;
    let modelError: string | null = null;
    if (withModel && this.provider && (loaded.facts.messages?.length ?? 0) > 0) {
      this.counters.modelCalls++;
      try {
        model = { ...(await this.provider.label(loaded.facts.messages ?? [])), at: now };
      } catch (err) {
        this.counters.modelFailures++;
        modelError = err instanceof Error ? err.message : String(err);
        this.logger.warn({ sessionId, err: modelError }, 'model provider failed; rules results kept');
      }
    }
    await this.persistFindings(findings, now);
    await this.resolveCleared({ sessionId }, new Set(findings.map((f) => f.alertId)), now, resolvedBecause(loaded.session, now));
    const previous = await this.analyses.findOne({ _id: sessionId });
    const analysis: AnalysisDoc = {
      _id: sessionId, sessionId, at: now,
      rules: {
        labels: [...new Set(findings.flatMap((f) => f.labels))].sort(),
        recommendations: [...new Set(findings.map((f) => f.recommendation))],
        alertIds: findings.map((f) => f.alertId),
        versions: Object.fromEntries(RULES.map((r) => [r.id, r.version])),
      },
      // A failed or skipped model run keeps the labels of the last good one.
      model: model ?? previous?.model ?? null,
      modelError,
    };
    await this.analyses.replaceOne({ _id: sessionId }, analysis, { upsert: true });
    this.counters.analyses++;
    return analysis;
  }

  /** Open sessions, most urgent first, up to `limit`. */
  async analyseOpen(limit: number, withModel: boolean): Promise<AnalysisDoc[]> {
    const rm = await this.models.active();
    // Sessions past their deadline are closed to the rules: they take no place from a live fan.
    const now = this.clock();
    const waiting = await rm.sessions.find({ priorityAt: { $ne: null }, ...notPastDeadline(now) }, { sort: { priorityAt: 1, _id: 1 }, limit });
    const rest = waiting.length < limit ? await rm.sessions.find({ priorityAt: null, status: 'open', ...notPastDeadline(now) }, { sort: { lastMessageAt: -1, _id: 1 }, limit: limit - waiting.length }) : [];
    const out: AnalysisDoc[] = [];
    for (const s of [...waiting, ...rest]) {
      const a = await this.analyse(s._id, withModel);
      if (a) out.push(a);
    }
    return out;
  }

  /**
   * Keeps durable alerts true to the present: time-based rules over waiting fans are stored
   * (so pre-breach alerts exist without a reader), and stored alerts whose condition has
   * cleared are resolved.
   */
  async sweep(): Promise<void> {
    const now = this.clock();
    await this.persistFindings(await this.liveFindings(now), now);
    const stored = await this.alerts.find({ status: { $in: ['open', 'acked'] } });
    const sessions = new Set(stored.map((a) => a.sessionId).filter((id): id is string => id !== null));
    const waits = await this.waitClock();
    for (const id of sessions) {
      const loaded = await this.facts(id);
      const still = loaded ? evaluateSession(loaded.facts, now, this.settings, false, waits) : [];
      await this.resolveCleared({ sessionId: id }, new Set(still.map((f) => f.alertId)), now, resolvedBecause(loaded?.session ?? null, now));
    }
    for (const chatterId of new Set(stored.filter((a) => a.ruleId === 'chatter.slow-streak').map((a) => a.chatterId))) {
      const still = await this.chatterFindings(chatterId);
      await this.resolveCleared({ ruleId: 'chatter.slow-streak', chatterId }, new Set(still.map((f) => f.alertId)), now, 'condition-cleared');
    }
    // The shift rules' alerts that no longer hold (someone clocked in, the fans were answered, the shift ended).
    const shiftsNow = new Set((await this.shiftFindings(now)).map((f) => f.alertId));
    await this.resolveCleared({ ruleId: { $in: SHIFT_RULES.map((r) => r.id) } }, shiftsNow, now, 'condition-cleared');
    // The pipeline's set-aside alert, settled against what the store keeps now (../pipeline/set-aside-alert.ts).
    await reconcileSetAsideAlert(this.store, now);
  }

  /**
   * Stores what the rules found. Writes only the fields the rules own (wording, severity, and
   * the open/resolved lifecycle) and never a whole document: an acknowledgement that lands
   * between this read and these writes stays.
   */
  private async persistFindings(findings: readonly Finding[], now: number): Promise<void> {
    if (findings.length === 0) return;
    // Read only to count new alerts; the writes below do not depend on it.
    const known = new Set((await this.alerts.find({ _id: { $in: findings.map((f) => f.alertId) } }, { projection: { _id: 1 } })).map((a) => a._id));
    this.counters.alertsOpened += findings.filter((f) => !known.has(f.alertId)).length;
    await this.alerts.bulkWrite(findings.flatMap((f) => {
      const alert = findingToAlert(f, now);
      const { _id, severity, reason, updatedAt, ...onInsert } = alert;
      // Each write that changes the alert's status announces it to the hooks in the same write.
      const opened = outboxEntry('opened', now, alert);
      return [
        // The same condition again: fresher wording and severity; a new one is stored open.
        { updateOne: { filter: { _id }, update: { $set: { severity, reason, updatedAt }, $setOnInsert: { ...onInsert, [HOOK_OUTBOX]: [opened], [HOOK_PENDING]: true } }, upsert: true } },
        // One that had resolved opens again; conditional, so it only ever moves resolved → open.
        { updateOne: { filter: { _id, status: 'resolved' }, update: announcing({ $set: { status: 'open', resolvedAt: null, resolvedBecause: null } }, opened) } },
      ];
    }));
  }

  private async resolveCleared(scope: Record<string, unknown>, firing: ReadonlySet<string>, now: number, because: ResolvedBecause): Promise<void> {
    const stored = await this.alerts.find({ ...scope, status: { $in: ['open', 'acked'] } });
    const cleared = stored.filter((a) => !firing.has(a._id));
    if (cleared.length === 0) return;
    this.counters.alertsResolved += cleared.length;
    // Each resolution applies only to the alert as it was read: one acknowledged or reopened
    // since is left for the next sweep to judge again.
    await this.alerts.bulkWrite(cleared.map((a) => ({
      updateOne: {
        filter: { _id: a._id, status: a.status, updatedAt: a.updatedAt },
        update: announcing({ $set: { status: 'resolved', resolvedAt: now, resolvedBecause: because, updatedAt: now } }, outboxEntry('resolved', now, a)),
      },
    })));
  }

  /**
   * Forgets purged accounts: their alerts (open or not) and their sessions' analyses, and the
   * slow-streak alerts of `chatters` (those who answered in these accounts) that no longer
   * hold once evaluated without the purged sessions. Runs after the read models were purged,
   * with the consumers stopped (purge-demo through PipelineControl.fenced), so nothing of it
   * waits for a sweep.
   */
  async forgetAccounts(accountIds: readonly string[], chatters: Iterable<string>): Promise<{ alerts: number; analyses: number }> {
    if (accountIds.length === 0) return { alerts: 0, analyses: 0 };
    let alerts = await this.alerts.deleteMany({ accountId: { $in: [...accountIds] } });
    for (const chatterId of new Set(chatters)) {
      const still = new Set((await this.chatterFindings(chatterId)).map((f) => f.alertId));
      const stale = (await this.alerts.find({ ruleId: 'chatter.slow-streak', chatterId }, { projection: { _id: 1 } })).filter((a) => !still.has(a._id));
      if (stale.length > 0) alerts += await this.alerts.deleteMany({ _id: { $in: stale.map((a) => a._id) } });
    }
    // What was queued for the alert hooks about them goes with them (sent or not).
    await this.store.collection(DELIVERIES_COLLECTION).deleteMany({ accountId: { $in: [...accountIds] } });
    // Session ids are `accountId:chatId:n`.
    const analyses = await this.analyses.deleteMany({ sessionId: { $regex: `^(${accountIds.map(escapeRegex).join('|')}):` } });
    return { alerts, analyses };
  }

  /**
   * Acknowledges a stored alert, or stores a live one as acknowledged. Idempotent: the first
   * acknowledgement stands. Each attempt is one conditional write on the alert as read (not
   * acknowledged, same status), so a sweep resolving or reopening it in between is kept and
   * the acknowledgement is applied to what the sweep left.
   */
  async ack(id: string, by: string, liveFinding: Finding | undefined): Promise<AlertDoc | null> {
    for (let attempt = 0; attempt < 10; attempt++) {
      const now = this.clock();
      const stored = await this.alerts.findOne({ _id: id });
      if (stored) {
        if (stored.ackedAt !== null) return stored;
        const status: AlertStatus = stored.status === 'resolved' ? 'resolved' : 'acked';
        const update = announcing({ $set: { status, ackedAt: now, ackedBy: by, updatedAt: now } }, outboxEntry('acked', now, { ...stored, ackedBy: by }));
        const r = await this.alerts.updateOne({ _id: id, ackedAt: null, status: stored.status }, update);
        if (r.matched === 1) return { ...stored, status, ackedAt: now, ackedBy: by, updatedAt: now };
        continue;
      }
      if (!liveFinding) return null;
      const found = findingToAlert(liveFinding, now);
      const acked: AlertDoc = { ...found, status: 'acked', ackedAt: now, ackedBy: by };
      // Stored for the first time: the hooks never heard of it, so it opens and is acknowledged.
      // The acknowledgement a millisecond after the opening, so receivers ordering by time see them in order.
      const doc: AlertDoc = { ...acked, [HOOK_OUTBOX]: [outboxEntry('opened', now, found), outboxEntry('acked', now + 1, acked)], [HOOK_PENDING]: true };
      try {
        await this.alerts.insertOne(doc);
        return acked;
      } catch (err) {
        // A sweep stored it meanwhile: acknowledge that record.
        if (!(err instanceof DuplicateKeyError)) throw err;
      }
    }
    throw new Error(`alert ${id} changed on every attempt to acknowledge it`);
  }
}
