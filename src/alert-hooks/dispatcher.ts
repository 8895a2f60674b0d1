// Hands alert transitions to the hooks, in two steps that each survive a restart:
// 1. fan-out: each transition waiting on an alert (its `hookOutbox`, written with the change)
//    becomes one delivery per matching active hook, inserted under a deterministic id
//    (hook id + webhook-id), and is then removed from the alert. A process that stops between
//    the two finds the entry again and inserts nothing new: the deliveries exist already.
// 2. send: due deliveries are claimed one at a time with a conditional write (so two
//    dispatchers never send the same attempt), sent, and their outcome written back. A process
//    that stops mid-attempt leaves the claim to expire, and the attempt is made again with the
//    same webhook-id, which is what receivers dedupe on.
// A delivery that still fails when its retry window is over fails for good and disables its
// hook, which raises an alert (hook-alert.ts).
import type { DocumentStore, Collection, BulkOp } from '../adapters/store/store.js';
import { ALERTS_COLLECTION, HOOK_OUTBOX, HOOK_PENDING, type AlertDoc, type OutboxEntry } from '../pipeline/alert-doc.js';
import type { Logger } from '../support/logger.js';
import { AlertHooks } from './alert-hooks.js';
import { DELIVERIES_COLLECTION, type DeliveryDoc, type HookDoc } from './hook-docs.js';
import { openHookAlert } from './hook-alert.js';
import { deliveryBody } from './payload.js';
import { DEFAULT_RETRY_POLICY, nextAttemptAt, type RetryPolicy } from './retry-policy.js';
import { DELIVERY_TIMEOUT_MS, sendOnce, type AttemptOutcome } from './sender.js';
import { signedHeaders } from './signing.js';
import type { Resolver } from './destination.js';

export interface DispatcherOptions {
  readonly allowPrivate: boolean;
  readonly policy?: RetryPolicy;
  /** How often the store is polled for transitions and due retries. */
  readonly pollMs?: number;
  /** Attempts in flight at once, so one slow receiver does not hold up the others. */
  readonly concurrency?: number;
  readonly timeoutMs?: number;
  readonly resolve?: Resolver;
  readonly clock?: () => number;
  readonly random?: () => number;
}

export interface DispatcherCounters {
  /** Deliveries the receiver took (2xx). */
  delivered: number;
  /** Attempts that failed and will be made again. */
  retried: number;
  /** Deliveries given up: the window is over, or the destination is refused. */
  failed: number;
  /** Hooks this process disabled. */
  hooksDisabled: number;
}

const FAN_OUT_BATCH = 200;
const SEND_BATCH = 50;

const matches = (hook: HookDoc, entry: OutboxEntry): boolean =>
  hook.events.includes(entry.event) && (hook.accountIds === null || (entry.alert.accountId !== null && hook.accountIds.includes(entry.alert.accountId)));

export class AlertHookDispatcher {
  readonly counters: DispatcherCounters = { delivered: 0, retried: 0, failed: 0, hooksDisabled: 0 };
  private readonly alerts: Collection<AlertDoc>;
  private readonly registry: AlertHooks;
  private readonly deliveries: Collection<DeliveryDoc>;
  private readonly policy: RetryPolicy;
  private readonly clock: () => number;
  private readonly random: () => number;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  /** Polling: between start() and stop(). */
  private started = false;
  /** stop() was called: attempts not begun are left for the next process. */
  private stopped = false;
  /** Wake-ups set for retries due before the next poll would find them. */
  private readonly retryTimers = new Set<NodeJS.Timeout>();

  constructor(private readonly store: DocumentStore, private readonly opts: DispatcherOptions, private readonly logger: Logger) {
    this.alerts = store.collection<AlertDoc>(ALERTS_COLLECTION);
    this.deliveries = store.collection<DeliveryDoc>(DELIVERIES_COLLECTION);
    this.clock = opts.clock ?? Date.now;
    this.registry = new AlertHooks(store, this.clock);
    this.policy = opts.policy ?? DEFAULT_RETRY_POLICY;
    this.random = opts.random ?? Math.random;
  }

  async start(): Promise<void> {
    await this.alerts.createIndex({ keys: { [HOOK_PENDING]: 1 } });
    await this.registry.ensureIndexes();
    this.started = true;
    this.stopped = false;
    this.timer = setInterval(() => this.wake(), this.opts.pollMs ?? 250);
    this.timer.unref();
    this.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.started = false;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    for (const t of this.retryTimers) clearTimeout(t);
    this.retryTimers.clear();
    await this.running;
  }

  private wakeAt(at: number): void {
    const t = setTimeout(() => {
      this.retryTimers.delete(t);
      this.wake();
    }, Math.max(0, at - this.clock()));
    t.unref();
    this.retryTimers.add(t);
  }

  /** Runs a round now (or right after the one running): transitions just written go out without waiting for the poll. */
  wake(): void {
    if (!this.started) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      do {
        this.again = false;
        await this.round().catch((err: unknown) => this.logger.error({ err }, 'alert hook round failed; next poll tries again'));
      } while (this.again && !this.stopped);
    })().finally(() => { this.running = null; });
  }

  /** One fan-out and one pass over due deliveries; what tests and benchmarks drive directly. */
  async round(): Promise<void> {
    await this.fanOut();
    await this.sendDue();
  }

  /** Pending deliveries and transitions not yet fanned out, for /metrics. */
  async queueDepth(): Promise<{ deliveries: number; transitions: number }> {
    const [deliveries, alerts] = await Promise.all([
      this.deliveries.countDocuments({ status: 'pending' }),
      this.alerts.find({ [HOOK_PENDING]: true }, { projection: { [HOOK_OUTBOX]: 1 } }),
    ]);
    return { deliveries, transitions: alerts.reduce((n, a) => n + (a.hookOutbox?.length ?? 0), 0) };
  }

  async fanOut(): Promise<number> {
    const waiting = await this.alerts.find({ [HOOK_PENDING]: true }, { limit: FAN_OUT_BATCH, projection: { _id: 1, [HOOK_OUTBOX]: 1 } });
    if (waiting.length === 0) return 0;
    const hooks = await this.registry.hooks.find({ status: 'active' });
    const now = this.clock();
    let created = 0;
    for (const alert of waiting) {
      const entries = alert.hookOutbox ?? [];
      const ops: BulkOp<DeliveryDoc>[] = [];
      for (const entry of entries) {
        for (const hook of hooks) {
          if (!matches(hook, entry)) continue;
          const _id = `${hook._id}:${entry.id}`;
          const delivery: Omit<DeliveryDoc, '_id'> = {
            hookId: hook._id, eventId: entry.id, event: entry.event, alertId: entry.alert.id, transitionAt: entry.at,
            body: deliveryBody(entry, hook.format), createdAt: now, status: 'pending', attempts: 0, nextAttemptAt: now,
            lastAttemptAt: null, lastHttpStatus: null, lastError: null, doneAt: null,
          };
          ops.push({ updateOne: { filter: { _id }, update: { $setOnInsert: delivery }, upsert: true } });
        }
      }
      if (ops.length > 0) await this.deliveries.bulkWrite(ops);
      created += ops.length;
      if (entries.length > 0) await this.alerts.updateOne({ _id: alert._id }, { $pull: { [HOOK_OUTBOX]: { id: { $in: entries.map((e) => e.id) } } } });
      // Only when nothing was added meanwhile: a transition written since keeps the flag.
      await this.alerts.updateOne({ _id: alert._id, [HOOK_OUTBOX]: { $size: 0 } }, { $set: { [HOOK_PENDING]: false } });
    }
    return created;
  }

  async sendDue(): Promise<number> {
    const now = this.clock();
    const due = await this.deliveries.find({ status: 'pending', nextAttemptAt: { $lte: now } }, { sort: { nextAttemptAt: 1, _id: 1 }, limit: SEND_BATCH });
    if (due.length === 0) return 0;
    const hooks = new Map((await this.registry.hooks.find({ _id: { $in: [...new Set(due.map((d) => d.hookId))] } })).map((h) => [h._id, h]));
    let next = 0;
    const worker = async () => {
      while (next < due.length && !this.stopped) {
        const d = due[next++] as DeliveryDoc;
        await this.attempt(d, hooks.get(d.hookId) ?? null).catch((err: unknown) => this.logger.error({ err, delivery: d._id }, 'alert hook delivery failed to record; it is tried again'));
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.opts.concurrency ?? 4, due.length) }, worker));
    return due.length;
  }

  private async attempt(d: DeliveryDoc, hook: HookDoc | null): Promise<void> {
    const now = this.clock();
    if (!hook || hook.status !== 'active') {
      await this.deliveries.updateOne({ _id: d._id, status: 'pending' }, { $set: { status: 'dropped', nextAttemptAt: null, doneAt: now, lastError: hook ? 'the hook is disabled' : 'the hook was deleted' } });
      return;
    }
    const timeoutMs = this.opts.timeoutMs ?? DELIVERY_TIMEOUT_MS;
    // The claim: this attempt is ours until the lease ends (the timeout and some slack).
    const claim = await this.deliveries.updateOne(
      { _id: d._id, status: 'pending', attempts: d.attempts, nextAttemptAt: d.nextAttemptAt },
      { $set: { nextAttemptAt: now + timeoutMs + 10_000 } },
    );
    if (claim.matched === 0) return;
    const outcome = await sendOnce(hook.url, signedHeaders(hook.secret, d.eventId, d.body, now), d.body, {
      allowPrivate: this.opts.allowPrivate, timeoutMs, ...(this.opts.resolve ? { resolve: this.opts.resolve } : {}),
    });
    await this.record(d, hook, outcome);
  }

  private async record(d: DeliveryDoc, hook: HookDoc, outcome: AttemptOutcome): Promise<void> {
    const now = this.clock();
    const attempts = d.attempts + 1;
    const common = { attempts, lastAttemptAt: now, lastHttpStatus: outcome.httpStatus, lastError: outcome.ok ? null : outcome.error };
    if (outcome.ok) {
      await this.deliveries.updateOne({ _id: d._id, attempts: d.attempts }, { $set: { ...common, status: 'delivered', nextAttemptAt: null, doneAt: now } });
      this.counters.delivered++;
      return;
    }
    const next = outcome.refused ? null : nextAttemptAt(this.policy, d.createdAt, attempts, now, this.random());
    if (next !== null) {
      await this.deliveries.updateOne({ _id: d._id, attempts: d.attempts }, { $set: { ...common, status: 'pending', nextAttemptAt: next } });
      this.counters.retried++;
      if (this.started) this.wakeAt(next);
      return;
    }
    await this.deliveries.updateOne({ _id: d._id, attempts: d.attempts }, { $set: { ...common, status: 'failed', nextAttemptAt: null, doneAt: now } });
    this.counters.failed++;
    const because = outcome.refused
      ? outcome.error
      : `deliveries kept failing for ${Math.round((now - d.createdAt) / 60_000)} min (${attempts} attempts; last: ${outcome.error})`;
    await this.disable(hook, because, now);
  }

  private async disable(hook: HookDoc, because: string, now: number): Promise<void> {
    const r = await this.registry.hooks.updateOne({ _id: hook._id, status: 'active' }, { $set: { status: 'disabled', disabledAt: now, disabledBecause: because } });
    if (r.matched === 0) return;
    this.counters.hooksDisabled++;
    this.logger.warn({ hook: hook._id, because }, 'alert hook disabled');
    const pending = await this.deliveries.find({ hookId: hook._id, status: 'pending' }, { projection: { _id: 1 } });
    if (pending.length > 0) {
      await this.deliveries.bulkWrite(pending.map((p) => ({
        updateOne: { filter: { _id: p._id, status: 'pending' }, update: { $set: { status: 'dropped', nextAttemptAt: null, doneAt: now, lastError: 'the hook was disabled' } } },
      })));
    }
    await openHookAlert(this.store, hook._id, hook.url, because, now);
    // The alert's own transition goes out to the hooks that still work.
    this.again = true;
  }
}
