// Hands alert transitions to the hooks, in two steps that each survive a restart:
// 1. fan-out: each transition waiting on an alert (its `hookOutbox`, written with the change)
//    becomes one delivery per matching active hook, inserted under a deterministic id
//    (hook id + webhook-id), and is then removed from the alert. A process that stops between
//    the two finds the entry again and inserts nothing new: the deliveries exist already.
// 2. send: due deliveries are claimed with a conditional write (so two dispatchers never send
//    the same attempt), sent in their hook's lane (a slow receiver delays only its own
//    deliveries), and each outcome written back as its attempt ends. A process
//    that stops mid-attempt leaves the claim to expire, and the attempt is made again with the
//    same webhook-id, which is what receivers dedupe on.
// A delivery that still fails when its retry window is over fails for good and disables its
// hook, which raises an alert (hook-alert.ts).
import { randomUUID } from 'node:crypto';
import type { DocumentStore, Collection, BulkOp } from '../adapters/store/store.js';
import { ALERTS_COLLECTION, HOOK_OUTBOX, HOOK_PENDING, type AlertDoc, type OutboxEntry } from '../pipeline/alert-doc.js';
import type { Logger } from '../support/logger.js';
import { AlertHooks } from './alert-hooks.js';
import { DELIVERIES_COLLECTION, type DeliveryDoc, type HookDoc } from './hook-docs.js';
import { hookAlertId, openHookAlert } from './hook-alert.js';
import { deliveryBody } from './payload.js';
import { DEFAULT_RETRY_POLICY, nextAttemptAt, type RetryPolicy } from './retry-policy.js';
import { DELIVERY_TIMEOUT_MS, sendOnce } from './sender.js';
import { signedHeaders } from './signing.js';
import type { Resolver } from './destination.js';

export interface DispatcherOptions {
  readonly allowPrivate: boolean;
  readonly policy?: RetryPolicy;
  /** How often the store is polled for transitions and due retries. */
  readonly pollMs?: number;
  /** Attempts in flight at once, over all hooks (64 by default; each hook has at most PER_HOOK_CONCURRENCY of them). */
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
  /** Deliveries not sent because their hook was disabled or deleted first. */
  dropped: number;
  /** Hooks this process disabled. */
  hooksDisabled: number;
}

const FAN_OUT_BATCH = 200;
/** Attempts in flight at once to one hook: a receiver gets at most this many requests at a time, and one that hangs holds up only its own queue. */
export const PER_HOOK_CONCURRENCY = 8;
const SEND_BATCH = 64;
/** How long a finished delivery stays listed. */
export const DELIVERY_RETENTION_MS = 30 * 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;
/** A claim's time beyond its attempts: the writes around them. */
const LEASE_SLACK_MS = 10_000;

/** One attempt's outcome: its write, and what follows it. */
interface Result {
  /** The outcome, written only where the claim still holds. */
  readonly set: Partial<DeliveryDoc>;
  readonly outcome: 'delivered' | 'retried' | 'failed' | 'dropped';
  readonly retryAt: number | null;
  readonly disable: { readonly hook: HookDoc; readonly because: string; readonly since: number } | null;
}

// A hook is not told it was disabled: its receiver is what failed (and, its attempts running
// beside the rounds, a fan-out could otherwise catch it still active between its alert and its
// disabling, and queue a delivery only to drop it).
const matches = (hook: HookDoc, entry: OutboxEntry): boolean =>
  hook.events.includes(entry.event) && (hook.accountIds === null || (entry.alert.accountId !== null && hook.accountIds.includes(entry.alert.accountId)))
  && !(entry.event === 'opened' && entry.alert.id === hookAlertId(hook._id));

export class AlertHookDispatcher {
  readonly counters: DispatcherCounters = { delivered: 0, retried: 0, failed: 0, dropped: 0, hooksDisabled: 0 };
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
  /** Attempts running, per hook and in all, and their promises (stop() waits for them). */
  private readonly inFlight = new Map<string, number>();
  private inFlightTotal = 0;
  private readonly attempts = new Set<Promise<void>>();
  private readonly attemptIds = new Set<string>();

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
    this.timer = setInterval(() => this.wake(), this.opts.pollMs ?? 100);
    this.timer.unref();
    this.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.started = false;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
    await this.settled();
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
    })().finally(() => {
      this.running = null;
      // An attempt that ended between the loop's last check and here asked for a round.
      if (this.again && !this.stopped) this.wake();
    });
  }

  /** One fan-out and one pass over due deliveries; what tests and benchmarks drive directly. */
  async round(): Promise<void> {
    // Each step on its own: a fan-out that keeps failing does not hold up retries, nor the reverse.
    const step = async <T>(what: string, run: () => Promise<T>, none: T): Promise<T> => {
      try {
        return await run();
      } catch (err) {
        this.logger.error({ err }, `alert hook ${what} failed; the next poll tries again`);
        return none;
      }
    };
    const fanned = await step('fan-out', () => this.fanOut(), { alerts: 0, deliveries: 0 });
    await step('send', () => this.sendDue(), 0);
    await step('prune', () => this.prune(), 0);
    // A full batch may leave more behind: go on without waiting for the poll.
    if (fanned.alerts === FAN_OUT_BATCH) this.again = true;
  }

  private lastPrune = 0;

  /** Deliveries done for longer than the retention are removed, once an hour: the list shows recent ones. */
  async prune(): Promise<number> {
    const now = this.clock();
    if (now - this.lastPrune < PRUNE_EVERY_MS) return 0;
    this.lastPrune = now;
    return this.deliveries.deleteMany({ status: { $in: ['delivered', 'failed', 'dropped'] }, doneAt: { $lt: now - DELIVERY_RETENTION_MS } });
  }

  /** Pending deliveries, and alerts with transitions not yet fanned out, for /metrics (counted, not read). */
  async queueDepth(): Promise<{ deliveries: number; alerts: number }> {
    const [deliveries, alerts] = await Promise.all([this.deliveries.countDocuments({ status: 'pending' }), this.alerts.countDocuments({ [HOOK_PENDING]: true })]);
    return { deliveries, alerts };
  }

  /** Turns waiting transitions into deliveries; answers how many alerts it read and deliveries it created. */
  async fanOut(): Promise<{ alerts: number; deliveries: number }> {
    const waiting = await this.alerts.find({ [HOOK_PENDING]: true }, { limit: FAN_OUT_BATCH, projection: { _id: 1, [HOOK_OUTBOX]: 1 } });
    if (waiting.length === 0) return { alerts: 0, deliveries: 0 };
    const hooks = await this.registry.hooks.find({ status: 'active' });
    const now = this.clock();
    const created: BulkOp<DeliveryDoc>[] = [];
    const drained: BulkOp<AlertDoc>[] = [];
    for (const alert of waiting) {
      const entries = alert.hookOutbox ?? [];
      for (const entry of entries) {
        for (const hook of hooks) {
          if (!matches(hook, entry)) continue;
          const delivery: Omit<DeliveryDoc, '_id'> = {
            hookId: hook._id, eventId: entry.id, event: entry.event, alertId: entry.alert.id, accountId: entry.alert.accountId, transitionAt: entry.at,
            body: deliveryBody(entry, hook.format), createdAt: now, status: 'pending', attempts: 0, nextAttemptAt: now,
            lastAttemptAt: null, lastHttpStatus: null, lastError: null, doneAt: null,
          };
          created.push({ updateOne: { filter: { _id: `${hook._id}:${entry.id}` }, update: { $setOnInsert: delivery }, upsert: true } });
        }
      }
      if (entries.length > 0) drained.push({ updateOne: { filter: { _id: alert._id }, update: { $pull: { [HOOK_OUTBOX]: { id: { $in: entries.map((e) => e.id) } } } } } });
      // Only when nothing was added meanwhile: a transition written since keeps the flag.
      drained.push({ updateOne: { filter: { _id: alert._id, [HOOK_OUTBOX]: { $size: 0 } }, update: { $set: { [HOOK_PENDING]: false } } } });
    }
    // The deliveries first: an entry leaves its alert only once its deliveries are stored.
    if (created.length > 0) await this.deliveries.bulkWrite(created);
    await this.alerts.bulkWrite(drained);
    return { alerts: waiting.length, deliveries: created.length };
  }

  /**
   * Starts the due deliveries there is room for and returns at once: an attempt runs in its
   * hook's lane (at most PER_HOOK_CONCURRENCY at a time per hook, `concurrency` in all), writes
   * its own outcome when it ends, and wakes the dispatcher for what is due next. A receiver that
   * hangs holds its own lane until the deadline, never another hook's deliveries or retries.
   * Answers how many attempts it started.
   */
  async sendDue(): Promise<number> {
    if (this.stopped) return 0;
    const total = this.opts.concurrency ?? 64;
    const room = total - this.inFlightTotal;
    if (room <= 0) return 0;
    const now = this.clock();
    const full = [...this.inFlight].filter(([, n]) => n >= PER_HOOK_CONCURRENCY).map(([hookId]) => hookId);
    const due = await this.deliveries.find({ status: 'pending', nextAttemptAt: { $lte: now }, ...(full.length > 0 ? { hookId: { $nin: full } } : {}) }, { sort: { nextAttemptAt: 1, _id: 1 }, limit: SEND_BATCH });
    const picked: DeliveryDoc[] = [];
    const taken = new Map<string, number>();
    for (const d of due) {
      if (picked.length >= room) break;
      // Never a second attempt of one this process has in flight (its lease ran out under it).
      if (this.attemptIds.has(d._id)) continue;
      // Not due as read: another dispatcher's claim landed between the read's match and its
      // answer (mongo-java-server hands out the stored document, which a claim updates in place),
      // and claiming on that value would take over a claim that holds.
      if (d.nextAttemptAt === null || d.nextAttemptAt > now) continue;
      const n = (this.inFlight.get(d.hookId) ?? 0) + (taken.get(d.hookId) ?? 0);
      if (n >= PER_HOOK_CONCURRENCY) continue;
      taken.set(d.hookId, (taken.get(d.hookId) ?? 0) + 1);
      picked.push(d);
    }
    // A batch of one busy hook's deliveries may hide other hooks' behind it: the next round
    // leaves the hooks now full out of its read.
    if (due.length === SEND_BATCH && picked.length < room) this.again = true;
    if (picked.length === 0) return 0;
    const timeoutMs = this.opts.timeoutMs ?? DELIVERY_TIMEOUT_MS;
    // The claim, for the picked ones in one write: each delivery is this process's until the
    // lease ends, unless another dispatcher claimed it first, which the condition on its attempt
    // (count and due time) tells; the token says which are ours. Each attempt starts now and
    // ends by its deadline, so one attempt's time and slack for the writes covers it: a
    // delivery is never attempted by two dispatchers at once.
    // The clock is read for the lease right before the claim (a slow read must not shorten it),
    // and an attempt that could no longer end within its lease (the claim's write itself was
    // slow: a failover) is not started: it comes due again when the lease ends.
    const leaseEnd = this.clock() + timeoutMs + LEASE_SLACK_MS;
    const token = randomUUID();
    await this.deliveries.bulkWrite(picked.map((d) => ({
      updateOne: { filter: { _id: d._id, status: 'pending', attempts: d.attempts, nextAttemptAt: d.nextAttemptAt }, update: { $set: { nextAttemptAt: leaseEnd, claim: token } } },
    })));
    const mine = await this.deliveries.find({ _id: { $in: picked.map((d) => d._id) }, claim: token });
    const hooks = new Map((await this.registry.hooks.find({ _id: { $in: [...new Set(mine.map((d) => d.hookId))] } })).map((h) => [h._id, h]));
    let started = 0;
    for (const d of mine) {
      // Stopping: what is not begun is left for the next process (its claim lapses).
      if (this.stopped) break;
      if (this.clock() + timeoutMs > leaseEnd - LEASE_SLACK_MS / 2) break;
      this.launch(d, hooks.get(d.hookId) ?? null, timeoutMs);
      started++;
    }
    return started;
  }

  /** Every attempt started so far has written its outcome (what tests and benchmarks wait on). */
  async settled(): Promise<void> {
    while (this.attempts.size > 0) await Promise.all([...this.attempts]);
  }

  private launch(d: DeliveryDoc, hook: HookDoc | null, timeoutMs: number): void {
    this.inFlight.set(d.hookId, (this.inFlight.get(d.hookId) ?? 0) + 1);
    this.inFlightTotal++;
    this.attemptIds.add(d._id);
    const run: Promise<void> = this.attemptAndRecord(d, hook, timeoutMs).finally(() => {
      this.attemptIds.delete(d._id);
      const left = (this.inFlight.get(d.hookId) ?? 1) - 1;
      if (left > 0) this.inFlight.set(d.hookId, left);
      else this.inFlight.delete(d.hookId);
      this.inFlightTotal--;
      this.attempts.delete(run);
      // Its room goes to the next due delivery without waiting for the poll.
      this.wake();
    });
    this.attempts.add(run);
  }

  private async attemptAndRecord(d: DeliveryDoc, hook: HookDoc | null, timeoutMs: number): Promise<void> {
    try {
      const r = await this.attempt(d, hook, timeoutMs);
      // Conditional on the claim, so an attempt that outlived its lease (and was made again
      // elsewhere) does not overwrite the newer outcome, nor count as one.
      const written = await this.deliveries.updateOne({ _id: d._id, attempts: d.attempts, claim: d.claim }, { $set: r.set });
      if (written.matched === 0) {
        this.logger.warn({ delivery: d._id }, 'alert hook attempt outlived its claim; its outcome is the later attempt\'s');
        return;
      }
      this.counters[r.outcome]++;
      if (r.disable) await this.disable(r.disable.hook, r.disable.because, r.disable.since, this.clock());
    } catch (err) {
      this.logger.error({ err, delivery: d._id }, 'alert hook attempt not recorded; it is made again when its claim ends');
    }
  }

  private async attempt(d: DeliveryDoc, hook: HookDoc | null, timeoutMs: number): Promise<Result> {
    if (!hook || hook.status !== 'active') {
      const lastError = hook ? 'the hook is disabled' : 'the hook was deleted';
      return { set: { status: 'dropped', nextAttemptAt: null, doneAt: this.clock(), lastError }, outcome: 'dropped', retryAt: null, disable: null };
    }
    const outcome = await sendOnce(hook.url, signedHeaders(hook.secret, d.eventId, d.body, this.clock()), d.body, {
      allowPrivate: this.opts.allowPrivate, timeoutMs, ...(this.opts.resolve ? { resolve: this.opts.resolve } : {}),
    });
    const now = this.clock();
    const attempts = d.attempts + 1;
    const common = { attempts, lastAttemptAt: now, lastHttpStatus: outcome.httpStatus, lastError: outcome.ok ? null : outcome.error };
    if (outcome.ok) return { set: { ...common, status: 'delivered', nextAttemptAt: null, doneAt: now }, outcome: 'delivered', retryAt: null, disable: null };
    const retryAt = outcome.refused ? null : nextAttemptAt(this.policy, d.createdAt, attempts, now, this.random());
    if (retryAt !== null) return { set: { ...common, status: 'pending', nextAttemptAt: retryAt }, outcome: 'retried', retryAt, disable: null };
    const because = outcome.refused
      ? outcome.error
      : `deliveries kept failing for ${Math.round((now - d.createdAt) / 60_000)} min (${attempts} attempts; last: ${outcome.error})`;
    return { set: { ...common, status: 'failed', nextAttemptAt: null, doneAt: now }, outcome: 'failed', retryAt: null, disable: { hook, because, since: d.createdAt } };
  }

  /**
   * Disables a hook whose delivery failed for good, unless another delivery to it succeeded since
   * that one was queued (one body a receiver always refuses does not silence a working hook).
   * The alert is opened first: its upsert can be repeated, so a process that stops between the
   * two leaves an alert about a hook still active (the next failure disables it), never a
   * disabled hook nobody hears of.
   */
  private async disable(hook: HookDoc, because: string, since: number, now: number): Promise<void> {
    if (await this.deliveries.countDocuments({ hookId: hook._id, status: 'delivered', doneAt: { $gte: since } }) > 0) return;
    await openHookAlert(this.store, hook._id, hook.url, because, now);
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
    // The alert's own transition goes out to the hooks that still work.
    this.again = true;
  }

}
