// Whether a stage's rounds are going through. A consumer whose round fails is handed the same
// records again after a pause, so a failure that repeats (a poisoned record no stage sets aside,
// a store that refuses one write) shows only as lag that grows: this is what health reads to say
// so, naming the stage, the reason and since when.
//
// It is also the consumer's monitor (ConsumerMonitor): a round can succeed and its commit be
// refused because the group dropped the member (a round longer than the session), over and over,
// while the handler sees nothing wrong. The log adapter tells it of commits, rejoins and the
// records waiting, so a consumer dropped from its group, or one that has committed nothing for a
// while with records waiting, is reported naming its group, and counted for /metrics.
import type { ConsumerMonitor, RejoinReason } from '../adapters/log/log.js';

/** Consecutive failed rounds from which a stage counts as failing (one fenced round is routine). */
export const FAILING_AFTER_ROUNDS = 3;

/** With records waiting, a consumer that commits nothing for this long is reported as stalled. */
export const STALLED_AFTER_MS = 60_000;
/** Drops (or crashes) within this window that make a consumer reported even when it commits between them. */
export const DROP_WINDOW_MS = 10 * 60_000;
export const DROPS_REPORTED = 3;

export interface StageProblem {
  readonly stage: string;
  /** The consumer group, for problems of the consumer in its group. */
  readonly group?: string;
  readonly reason: string;
  readonly since: string;
  readonly consecutiveFailures: number;
}

export interface StageHealthOptions {
  readonly group?: string;
  readonly stalledAfterMs?: number;
  readonly now?: number;
}

export class StageHealth implements ConsumerMonitor {
  private failures = 0;
  private firstFailureAt: number | null = null;
  private lastError = '';
  readonly group: string;
  private readonly stalledAfterMs: number;
  /** Last commit, or the last time nothing was waiting: what "progress" means. */
  private progressAt: number;
  private waitingRecords = 0;
  private readonly rejoins: Record<RejoinReason, number> = { rebalance: 0, dropped: 0, crashed: 0 };
  /** Times of recent drops and crashes (within DROP_WINDOW_MS), with the last one's detail. */
  private drops: number[] = [];
  private lastDrop: { readonly at: number; readonly reason: RejoinReason; readonly detail: string } | null = null;

  constructor(readonly stage: string, options: StageHealthOptions = {}) {
    this.group = options.group ?? stage;
    this.stalledAfterMs = options.stalledAfterMs ?? STALLED_AFTER_MS;
    this.progressAt = options.now ?? Date.now();
  }

  committed(waiting: number, now = Date.now()): void {
    this.progressAt = now;
    this.waitingRecords = waiting;
  }

  waiting(records: number, now = Date.now()): void {
    if (records === 0 || this.waitingRecords === 0) this.progressAt = now;
    this.waitingRecords = records;
  }

  rejoined(reason: RejoinReason, detail: string, now = Date.now()): void {
    this.rejoins[reason]++;
    if (reason === 'rebalance') {
      // What waited was counted for the partitions held before: the next fetch says what waits
      // now (a rebalance that took every partition with a backlog away leaves nothing waiting).
      this.waitingRecords = 0;
      return;
    }
    this.drops = [...this.drops.filter((t) => now - t < DROP_WINDOW_MS), now];
    this.lastDrop = { at: now, reason, detail: detail.slice(0, 300) };
  }

  /** Joins the consumer had to make again, by reason, since this process started the stage. */
  rejoinCounts(): Readonly<Record<RejoinReason, number>> {
    return { ...this.rejoins };
  }

  /** Seconds since the consumer last made progress, while records wait for it; 0 when none wait. */
  stalledSeconds(now = Date.now()): number {
    return this.waitingRecords > 0 ? Math.max(0, (now - this.progressAt) / 1000) : 0;
  }

  /** Everything to report about the stage and its consumer, none while all is well. */
  problems(now = Date.now()): StageProblem[] {
    const out: StageProblem[] = [];
    const failing = this.problem();
    if (failing) out.push(failing);
    const recent = this.drops.filter((t) => now - t < DROP_WINDOW_MS);
    const drop = this.lastDrop;
    // Dropped and not committed since, or dropped again and again even if it commits between.
    if (drop && (drop.at >= this.progressAt || recent.length >= DROPS_REPORTED)) {
      const what = drop.reason === 'crashed' ? 'its consumer crashed and was started again' : 'its consumer was dropped from the group';
      out.push({
        stage: this.stage, group: this.group, since: new Date(drop.at).toISOString(), consecutiveFailures: this.failures,
        reason: `consumer group ${this.group}: ${what} (${recent.length} time${recent.length === 1 ? '' : 's'} in the last ${DROP_WINDOW_MS / 60_000} minutes; last: ${drop.detail})${drop.at >= this.progressAt ? ', and has committed nothing since' : ''}`,
      });
    }
    if (this.waitingRecords > 0 && now - this.progressAt >= this.stalledAfterMs) {
      out.push({
        stage: this.stage, group: this.group, since: new Date(this.progressAt).toISOString(), consecutiveFailures: this.failures,
        reason: `consumer group ${this.group}: no progress for ${Math.round((now - this.progressAt) / 1000)} s with ${this.waitingRecords} record${this.waitingRecords === 1 ? '' : 's'} waiting`,
      });
    }
    return out;
  }

  succeeded(): void {
    this.failures = 0;
    this.firstFailureAt = null;
    this.lastError = '';
  }

  failed(err: unknown, now = Date.now()): void {
    this.failures++;
    this.firstFailureAt ??= now;
    this.lastError = (err instanceof Error ? `${err.name}: ${err.message}` : String(err)).slice(0, 500);
  }

  /** The problem to report, or null while rounds go through. */
  problem(): StageProblem | null {
    if (this.failures < FAILING_AFTER_ROUNDS || this.firstFailureAt === null) return null;
    return { stage: this.stage, reason: `its rounds keep failing: ${this.lastError}`, since: new Date(this.firstFailureAt).toISOString(), consecutiveFailures: this.failures };
  }
}

/**
 * Progress of consumer groups seen from outside them (an API process whose workers run the
 * stages elsewhere): each look at a group's lag also notes its committed offsets, and a group
 * whose committed offsets have not moved for STALLED_AFTER_MS while records waited at every
 * look is reported. Only as good as the looks: the first one starts the clock.
 */
export class GroupProgressWatch {
  private readonly seen = new Map<string, { committed: number; since: number }>();

  constructor(private readonly stalledAfterMs = STALLED_AFTER_MS) {}

  /** One look: `committed` (the sum of the group's committed offsets) and `waiting` (its lag). */
  observe(stage: string, group: string, committed: number, waiting: number, now = Date.now()): StageProblem | null {
    const last = this.seen.get(group);
    if (waiting === 0 || !last || last.committed !== committed) {
      this.seen.set(group, { committed, since: now });
      return null;
    }
    if (now - last.since < this.stalledAfterMs) return null;
    return {
      stage, group, since: new Date(last.since).toISOString(), consecutiveFailures: 0,
      reason: `consumer group ${group}: no progress for ${Math.round((now - last.since) / 1000)} s with ${waiting} record${waiting === 1 ? '' : 's'} waiting (its committed offsets have not moved)`,
    };
  }
}
