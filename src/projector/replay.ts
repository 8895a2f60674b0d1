// Replay: rebuild the read models from `session-events` into the next version while the API
// serves the current one, then switch. Steps:
//   1. a fresh consumer group reads from the start (or an offset, or a time) into version N+1;
//   2. once it has caught up, projection pauses (this process's projector stops after its
//      batch; projectors elsewhere hold batches while the pointer says so);
//   3. the replay consumer reads the short tail and stops, the pointer moves to N+1, and
//      projection resumes in N+1 from where it was, skipping what the replay already applied.
// A crash at any step leaves the pointer on N: the served read models are never touched.
// One replay at a time, across every process sharing the store: a replay runs only while it
// holds the lock document, a lease (adapters/store/lease.ts) taken by one conditional write.
// An event whose documents cannot be written is set aside as the live projector sets it aside
// (stage 'write'), found by halving the slice that failed. A replay that cannot progress all the
// same (its rounds keep failing the same way for a reason that is not an event's, such as the
// store refusing every write, or none goes through for a bounded time) fails with the reason in
// its job and frees the lock; the served version is never touched. Rounds are folded in slices
// with a turn of the event loop between them, so the API in the same process (probes included)
// keeps answering during a replay of millions of events.
import { randomUUID } from 'node:crypto';
import type { Log, GroupPosition, RecordBatch } from '../adapters/log/log.js';
import type { Collection, Doc, DocumentStore } from '../adapters/store/store.js';
import { Lease } from '../adapters/store/lease.js';
import { JOBS_COLLECTION } from '../support/jobs.js';
import type { Logger } from '../support/logger.js';
import type { Topology } from '../topology.js';
import { isRecordsFault } from '../pipeline/repeat-failures.js';
import { errorMessage } from '../pipeline/set-aside.js';
import { withTimeout } from '../support/deadline.js';
import type { Positioned } from '../read-models/projection.js';
import { applyEvents, prepareApplication, writeApplication, type FoldSetAside, type WrittenDocs } from './runner.js';
import { PROJECTIONS, WRITE_ORDER } from '../read-models/index.js';
import { parseEvents } from './projector.js';
import { ReadModelSet, type ReadModelCollections } from '../read-models/read-model-set.js';
import { markReportBucketsBuilt } from '../read-models/report-buckets/backfill.js';
import { requestActivity } from '../support/request-activity.js';

export { JOBS_COLLECTION };
/** The one document whose holder may run a replay (in the jobs collection, kind `replay-lock`). */
export const REPLAY_LOCK_ID = 'replay-lock';
const HEARTBEAT_MS = 2_000;
/** A replay whose heartbeat is older than this died with its process. */
const STALE_MS = 15_000;
const PAUSE_MS = 60_000;

/** When a replay gives up, and how finely it folds; tests shorten the limits. */
export interface ReplayLimits {
  /** A round that fails with the same error this many times in a row... */
  readonly repeatedFailures?: number;
  /** ...over at least this long (a store failing over for a few seconds is waited out) fails the replay. */
  readonly failingForMs?: number;
  /** No round goes through for this long while events wait: the replay fails (a hung write, a consumer that never gets records). */
  readonly stallMs?: number;
  /**
   * Events folded and written as one slice (one store write, one LMDB commit on the embedded
   * store). Bigger slices share pages between their writes (commits of a few hundred events
   * rewrite and sync the same pages again and again); the event loop is shared all the same:
   * the fold takes a turn every FOLD_CHUNK events and the write every WRITE_TURN_MS. A function
   * is asked before each slice. Default: QUIET_SLICE while this process has answered no request
   * for QUIET_MS, else BUSY_SLICE (see sliceFor).
   */
  readonly sliceEvents?: number | (() => number);
  /** How long a failed replay waits for its consumer's round to end before it frees the lock anyway. */
  readonly stopWaitMs?: number;
}

/**
 * Slices while requests come, and while none has for QUIET_MS. On 2 cores (bench/replay-liveness.ts,
 * bench/read-api.ts, docs/benchmarks.md): 5,000 events a slice replay about 23,000 events/s with
 * the liveness probe's p99 under 100 ms; 20,000 about 29,000 events/s, but the probe's p99 goes
 * to 130-140 ms (a slice's live objects make the collector's pauses longer). A replay nobody is
 * watching takes the faster; the first request brings the next slice down to the smaller.
 */
const BUSY_SLICE = 5_000;
const QUIET_SLICE = 20_000;
const QUIET_MS = 2_000;
const sliceFor = (quietForMs: number): number => (quietForMs >= QUIET_MS ? QUIET_SLICE : BUSY_SLICE);

const DEFAULT_LIMITS: Required<ReplayLimits> = { repeatedFailures: 5, failingForMs: 30_000, stallMs: 120_000, sliceEvents: () => sliceFor(requestActivity.quietFor()), stopWaitMs: 30_000 };
/** Events folded between turns of the event loop within a slice. */
const FOLD_CHUNK = 500;
/** A slice's write takes a turn of the event loop every so many ms (see WriteOptions.turnEveryMs). */
const WRITE_TURN_MS = 20;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const PACING = { yieldEvery: FOLD_CHUNK, writeTurnEveryMs: WRITE_TURN_MS };

/** A slice whose write is under way, and the documents it changes. */
interface InflightSlice {
  readonly events: readonly Positioned[];
  readonly written: WrittenDocs;
  /** Settles with null once written, or with what the write threw. */
  readonly done: Promise<{ err: unknown } | null>;
}

const INTERRUPTED_STOPPING = 'interrupted: the service is stopping';

/**
 * Whether a replay's rounds go through. A consumer whose round fails is handed the same records
 * again after a pause, for good: a round that keeps failing the same way, or no round at all
 * for too long while events wait, means the replay cannot progress.
 */
class RoundProgress {
  private failures = 0;
  private firstFailureAt = 0;
  private lastError = '';
  private lastProgressAt: number;

  constructor(private readonly limits: Required<ReplayLimits>, private readonly clock: () => number) {
    this.lastProgressAt = clock();
  }

  /** A round went through, or nothing waits (caught up): the replay is progressing. */
  progressed(): void {
    this.failures = 0;
    this.lastError = '';
    this.lastProgressAt = this.clock();
  }

  failed(err: unknown): void {
    const reason = errorMessage(err);
    if (this.failures === 0 || reason !== this.lastError) {
      this.failures = 0;
      this.firstFailureAt = this.clock();
      this.lastError = reason;
    }
    this.failures++;
  }

  /** Why the replay cannot progress, or null; `waiting`: events remain to be applied. */
  verdict(waiting: boolean): string | null {
    const now = this.clock();
    if (this.failures >= this.limits.repeatedFailures && now - this.firstFailureAt >= this.limits.failingForMs) {
      return `cannot progress: a round failed ${this.failures} times in a row over ${Math.round((now - this.firstFailureAt) / 1000)} s with ${this.lastError}`;
    }
    if (waiting && now - this.lastProgressAt >= this.limits.stallMs) {
      return `cannot progress: no round went through for ${Math.round((now - this.lastProgressAt) / 1000)} s${this.lastError ? ` (last error: ${this.lastError})` : ''}`;
    }
    return null;
  }
}

export type ReplayFrom =
  | { readonly kind: 'beginning' }
  | { readonly kind: 'offset'; readonly offset: number }
  | { readonly kind: 'time'; readonly time: number };

export type ReplayState = 'building' | 'switching' | 'done' | 'failed';

export interface ReplayJobDoc extends Doc {
  readonly kind: 'replay';
  state: ReplayState;
  readonly from: ReplayFrom;
  readonly fromVersion: number;
  readonly targetVersion: number;
  eventsApplied: number;
  lag: number | null;
  startedAt: number;
  heartbeatAt: number;
  finishedAt: number | null;
  error: string | null;
}

export class ReplayConflict extends Error {
  constructor(readonly running: ReplayJobDoc | null) {
    super(running ? `replay ${running._id} is still ${running.state}` : 'a replay is still running');
  }
}

/** What a replay needs from the projection running in this process. */
export interface ProjectionControl {
  pause(): Promise<void>;
  resume(): Promise<void>;
  /** Read-model versions a replay's clean-up must leave: other definitions generations' (src/definitions/generations.ts). */
  keptVersions?(): Promise<ReadonlySet<number>>;
  /** The live generation's topics, read when a replay starts: a replay folds the live generation's events. */
  liveTopology?(): Topology;
}

export class ReplayService {
  private readonly jobs: Collection<ReplayJobDoc>;
  /** The replay lock: `jobId` names its holder (null: free), beaten with its job's heartbeat. */
  private readonly lock: Lease;
  private readonly models: ReadModelSet;
  private current: Promise<void> | null = null;
  /** The job `current` runs. */
  private currentJobId: string | null = null;
  private aborted = false;
  /** Set by the heartbeat when another replay took the lock: this one must stop before switching. */
  private lost = false;
  /** Why the running replay cannot progress (set by its consumer's failures or by catchUp); it then fails with this. */
  private stuck: string | null = null;
  /** Set when a failed replay's consumer did not stop in time: its round may still write into the target version. */
  private consumerLeft = false;
  private readonly limits: Required<ReplayLimits>;

  constructor(
    private readonly log: Log,
    private readonly store: DocumentStore,
    private readonly baseTopology: Topology,
    private readonly projection: ProjectionControl,
    private readonly logger: Logger,
    private readonly clock: () => number = Date.now,
    limits: ReplayLimits = {},
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
    this.jobs = store.collection<ReplayJobDoc>(JOBS_COLLECTION);
    this.lock = new Lease(store, { collection: JOBS_COLLECTION, id: REPLAY_LOCK_ID, staleMs: STALE_MS, ownerField: 'jobId', beatField: 'heartbeatAt', create: { kind: 'replay-lock' }, clock });
    this.models = new ReadModelSet(store);
  }

  /** The live definitions generation's topics (the deployment's own in generation 0). */
  private get topology(): Topology {
    return this.projection.liveTopology?.() ?? this.baseTopology;
  }

  /** Whether a replay runs in this process (a definitions switch waits for none). */
  get busy(): boolean {
    return this.current !== null;
  }

  async get(id: string): Promise<ReplayJobDoc | null> {
    return this.jobs.findOne({ _id: id, kind: 'replay' });
  }

  async list(limit: number): Promise<ReplayJobDoc[]> {
    return this.jobs.find({ kind: 'replay' }, { sort: { startedAt: -1 }, limit });
  }

  /** Frees the lock if `jobId` still holds it (a replay that lost it must not free its successor's). */
  private async release(jobId: string): Promise<void> {
    await this.lock.release(jobId);
  }

  /** False when another replay took the lock over (this one was presumed dead). */
  private async beat(jobId: string): Promise<boolean> {
    const now = this.clock();
    if (!(await this.lock.renew(jobId))) return false;
    await this.jobs.updateOne({ _id: jobId, state: { $in: ['building', 'switching'] } }, { $set: { heartbeatAt: now } });
    return true;
  }

  private async holder(): Promise<ReplayJobDoc | null> {
    const jobId = await this.lock.holder();
    return jobId ? this.get(jobId) : null;
  }

  /** Starts a replay and returns its job at once; refuses while another one runs. */
  async start(from: ReplayFrom): Promise<ReplayJobDoc> {
    const now = this.clock();
    const id = `replay-${now}-${randomUUID().slice(0, 8)}`;
    // A lease taken by one conditional write: of concurrent starts, in whichever processes,
    // exactly one takes it.
    if (this.current) {
      // This process's job has stored its end and is letting go of the lock: it is over. A
      // client that saw it done and started the next at once got 409 (on a busy machine the
      // lock's release took long enough to be seen).
      const own = this.currentJobId === null ? null : await this.get(this.currentJobId);
      if (own !== null && own.state !== 'building' && own.state !== 'switching') await this.current;
    }
    if (this.current || !(await this.lock.acquire(id))) {
      const running = await this.holder();
      throw new ReplayConflict(running && (running.state === 'building' || running.state === 'switching') ? running : null);
    }
    let job: ReplayJobDoc;
    try {
      // The lock is ours, so replays still marked as running lost it with their process: their
      // half-built versions are garbage (the next target version is above them anyway).
      for (const dead of await this.jobs.find({ kind: 'replay', state: { $in: ['building', 'switching'] } })) {
        await this.jobs.updateOne({ _id: dead._id, state: { $in: ['building', 'switching'] } }, { $set: { state: 'failed', error: 'interrupted: the process running it stopped', finishedAt: now } });
      }
      const fromVersion = await this.models.activeVersion();
      const stored = await this.models.storedVersions();
      const targetVersion = Math.max(fromVersion, ...stored) + 1;
      job = {
        _id: id, kind: 'replay', state: 'building', from, fromVersion, targetVersion,
        eventsApplied: 0, lag: null, startedAt: now, heartbeatAt: now, finishedAt: null, error: null,
      };
      await this.jobs.insertOne(job);
    } catch (err) {
      await this.release(id).catch(() => undefined);
      throw err;
    }
    this.currentJobId = job._id;
    this.current = this.run(job).catch(async (err: unknown) => {
      const interrupted = err instanceof Error && err.message.startsWith('interrupted');
      if (interrupted) this.logger.warn({ job: job._id, reason: err.message }, 'replay interrupted; the served read models are unchanged');
      else this.logger.error({ err, job: job._id }, 'replay failed');
      await this.jobs.updateOne({ _id: job._id }, { $set: { state: 'failed', error: err instanceof Error ? err.message : String(err), finishedAt: this.clock() } }).catch(() => undefined);
      // The half-built version is garbage (the next replay targets a version above every stored
      // one): dropped, unless the process is stopping or a round of its consumer may still write.
      const stopping = interrupted && err.message.startsWith(INTERRUPTED_STOPPING);
      if (!stopping && !this.consumerLeft) {
        await this.models.dropVersion(job.targetVersion).catch((e: unknown) => this.logger.warn({ err: e, job: job._id }, 'failed replay\'s version not dropped'));
      }
    }).finally(async () => {
      // After the job's final state is stored, so whoever takes the lock next sees it finished.
      await this.release(job._id).catch((err: unknown) => this.logger.warn({ err, job: job._id }, 'replay lock not released; it frees itself once stale'));
      this.current = null;
      this.currentJobId = null;
    });
    return job;
  }

  /** Waits for the job this process runs (tests, shutdown). */
  async settled(): Promise<void> {
    await this.current;
  }

  /** Abandons the running job (shutdown); the served read models stay as they are. */
  async abort(): Promise<void> {
    this.aborted = true;
    await this.current;
    this.aborted = false;
  }

  private async run(job: ReplayJobDoc): Promise<void> {
    this.lost = false;
    // Beats on a timer rather than per batch: a Kafka group join or a long batch must not make
    // a live replay look dead to a start in another process.
    let beating: Promise<void> | null = null;
    const timer = setInterval(() => {
      beating ??= this.beat(job._id)
        .then((held) => { if (!held) this.lost = true; })
        .catch((err: unknown) => this.logger.warn({ err, job: job._id }, 'replay heartbeat failed'))
        .finally(() => { beating = null; });
    }, HEARTBEAT_MS);
    timer.unref();
    try {
      await this.build(job);
    } finally {
      clearInterval(timer);
      // Set by the timer's callback, which the compiler's narrowing does not see.
      await (beating as Promise<void> | null);
    }
  }

  private async build(job: ReplayJobDoc): Promise<void> {
    const target = this.models.at(job.targetVersion);
    await this.models.dropVersion(job.targetVersion);
    await this.models.ensureIndexes(job.targetVersion);
    // Built from events like the other read models, so never from documents.
    await markReportBucketsBuilt(this.store, job.targetVersion);
    const groupId = `${this.topology.projectorGroup}-${job._id}`;
    await this.log.setGroupPosition(groupId, this.topology.sessionEvents, await this.position(job.from));
    let applied = 0;
    // Per partition, the offset up to which events are counted: a round the consumer delivers
    // again (a rebalance, an offset commit that failed) is applied again harmlessly, since
    // documents skip what they have, and must not be counted again either.
    const countedTo = new Map<number, number>();
    this.stuck = null;
    this.consumerLeft = false;
    const progress = new RoundProgress(this.limits, this.clock);
    // Events (by position) whose own application failed twice: set aside, stage 'write'.
    const setAside: FoldSetAside = { store: this.store, topic: this.topology.sessionEvents, poisoned: new Map<string, string>() };
    const consumer = await this.log.consumeRounds({
      groupId,
      topics: [this.topology.sessionEvents],
      fromBeginning: true,
      onRound: async (batches) => {
        applied += await this.applyRound(target, batches, setAside, countedTo);
        for (const b of batches) {
          const last = b.records[b.records.length - 1];
          if (last) countedTo.set(b.partition, Math.max(countedTo.get(b.partition) ?? 0, Number(last.offset) + 1));
        }
        progress.progressed();
      },
      onError: (err) => {
        // Its own stop (shutdown, the lock lost, given up) ends a round early: nothing to count.
        if (this.aborted || this.lost || (this.stuck !== null && err instanceof Error && err.message === this.stuck)) return;
        progress.failed(err);
        this.stuck ??= progress.verdict(true);
        if (this.stuck) this.logger.error({ err, job: job._id }, `replay round failed; the replay gives up: ${this.stuck}`);
        else this.logger.error({ err, job: job._id }, 'replay round failed; retrying');
      },
    });
    let paused = false;
    let localPaused = false;
    let stopped = false;
    try {
      await this.catchUp(job, groupId, () => applied, progress);
      // Hold projection everywhere (extended while the tail is read, so it cannot lapse), let
      // this process's projector finish its batch, then read the tail. The replay consumer
      // stops before the switch, so no two writers ever share the new version.
      await this.jobs.updateOne({ _id: job._id }, { $set: { state: 'switching' } });
      const hold = () => this.models.pauseProjection(this.clock() + PAUSE_MS);
      await hold();
      paused = true;
      await this.projection.pause();
      localPaused = true;
      await this.catchUp(job, groupId, () => applied, progress, hold);
      await consumer.stop();
      stopped = true;
      // The last moment to find out that another replay took over: it must not be switched under.
      if (!(await this.beat(job._id))) this.lost = true;
      this.checkHeld();
      await this.models.switchTo(job.targetVersion, this.clock());
      paused = false;
    } finally {
      // On a failure the consumer may be inside a round that does not end (a hung write): the
      // lock is freed after a bounded wait all the same, and the version is then left alone.
      if (!stopped) this.consumerLeft = !(await withTimeout(consumer.stop().then(() => true), this.limits.stopWaitMs, false));
      if (this.consumerLeft) this.logger.warn({ job: job._id }, 'replay consumer did not stop in time; its round may still write into the abandoned version');
      // A replay that lost the lock leaves the hold to lapse: lifting it could cut into its successor's switch.
      if (paused && !this.lost) await this.models.pauseProjection(0);
      if (localPaused) await this.projection.resume();
    }
    await this.jobs.updateOne({ _id: job._id }, { $set: { state: 'done', eventsApplied: applied, lag: 0, finishedAt: this.clock(), heartbeatAt: this.clock() } });
    // Keep the version just replaced (for comparison or rollback); older ones go.
    const kept = await this.projection.keptVersions?.() ?? new Set<number>();
    for (const v of await this.models.storedVersions()) {
      if (v < job.fromVersion && !kept.has(v)) await this.models.dropVersion(v);
    }
    this.logger.info({ job: job._id, version: job.targetVersion, events: applied }, 'replay switched the read models');
  }

  private async position(from: ReplayFrom): Promise<GroupPosition> {
    if (from.kind === 'beginning') return { kind: 'earliest' };
    if (from.kind === 'time') return { kind: 'timestamp', timestamp: from.time };
    const ends = await this.log.endOffsets(this.topology.sessionEvents);
    return { kind: 'offsets', offsets: Object.fromEntries(Object.entries(ends).map(([p, end]) => [p, Math.min(from.offset, end)])) };
  }

  private checkHeld(): void {
    if (this.lost) throw new Error('interrupted: its heartbeat lapsed and another replay took over');
  }

  /** Throws when the replay must stop: the service is stopping, the lock was lost, or it cannot progress. */
  private checkGoing(): void {
    if (this.aborted) throw new Error(INTERRUPTED_STOPPING);
    this.checkHeld();
    if (this.stuck) throw new Error(this.stuck);
  }

  /**
   * Applies a round's batches (every partition the fetch returned) in order, in slices sized
   * of `sliceEvents`: each slice's records are parsed just before it is folded and written, and the
   * event loop gets a turn between slices. Documents skip events they have applied, so a round
   * that fails after some slices is retried whole without counting anything twice. Answers the
   * events applied (set aside ones included, as before) past `countedTo`: a round delivered
   * again counts only what it had not.
   *
   * Slices are pipelined one deep: a slice's write (on the embedded store, an LMDB commit the
   * writer thread finishes while the event loop waits) is left under way while the next slice
   * is folded, reading the documents the previous one changed from it rather than from the
   * store; the next write starts once it has landed. A write that fails throws away the slice
   * folded behind it, which is folded again after the failed one is dealt with.
   */
  private async applyRound(target: ReadModelCollections, batches: readonly RecordBatch[], setAside: FoldSetAside, countedTo: ReadonlyMap<number, number>): Promise<number> {
    let applied = 0;
    const fresh = (events: readonly Positioned[]): number => events.reduce((n, e) => n + (e.offset >= (countedTo.get(e.partition) ?? 0) ? 1 : 0), 0);
    let slice: Positioned[] = [];
    const sizing = this.limits.sliceEvents;
    let size = typeof sizing === 'number' ? sizing : sizing();
    let inflight: InflightSlice | null = null;
    /** Waits for the slice under way; one whose write failed is applied again the careful way. Answers whether it had failed. */
    const land = async (): Promise<boolean> => {
      const slice = inflight;
      if (slice === null) return false;
      inflight = null;
      const failed = await slice.done;
      if (failed === null) {
        applied += fresh(slice.events);
        return false;
      }
      if (!isRecordsFault(failed.err)) throw failed.err;
      this.checkGoing();
      await this.applySlice(target, slice.events, setAside);
      applied += fresh(slice.events);
      return true;
    };
    const flush = async (): Promise<void> => {
      this.checkGoing();
      const events = slice;
      slice = [];
      if (typeof sizing !== 'number') size = sizing();
      let prepared = await prepareApplication(target, PROJECTIONS, WRITE_ORDER, events, setAside, PACING, inflight?.written);
      if (await land()) prepared = await prepareApplication(target, PROJECTIONS, WRITE_ORDER, events, setAside, PACING);
      const done = writeApplication(target, prepared, setAside, PACING).then(() => null, (err: unknown) => ({ err }));
      inflight = { events, written: prepared.written, done };
      await nextTurn();
    };
    try {
      // The embedded log reads the round synchronously just before this: a turn first.
      await nextTurn();
      for (const b of batches) {
        for (let i = 0; i < b.records.length;) {
          // Parsed FOLD_CHUNK records at a time, with a turn between: thousands of events parsed
          // in one piece held the event loop for tens of ms.
          const n = Math.min(size - slice.length, b.records.length - i, FOLD_CHUNK);
          for (const e of parseEvents({ ...b, records: b.records.slice(i, i + n) }, () => undefined)) slice.push(e);
          i += n;
          if (slice.length < size) await nextTurn();
          if (slice.length >= size) await flush();
        }
      }
      if (slice.length > 0) await flush();
      await land();
    } finally {
      // A round that fails still lets its last write end before the consumer retries it.
      if (inflight !== null) await (inflight as InflightSlice).done;
    }
    return applied;
  }

  /**
   * Applies a slice; an event whose fold throws is set aside by applyEvents, as the live
   * projector does. A write that fails for a reason that may be the events' own is tried once
   * more, then the slice is halved until the event whose own application fails twice alike
   * (set aside, stage 'write'; the others applied in order). Other failures (the store down, a
   * fence) fail the round, which the consumer retries.
   */
  private async applySlice(target: ReadModelCollections, events: readonly Positioned[], setAside: FoldSetAside, retry = true): Promise<void> {
    try {
      await applyEvents(target, events, setAside, PACING);
      return;
    } catch (err) {
      if (!isRecordsFault(err)) throw err;
      this.checkGoing();
      if (events.length === 1) {
        const p = events[0] as Positioned;
        try {
          await applyEvents(target, events, setAside, PACING);
          return;
        } catch (again) {
          if (!isRecordsFault(again) || errorMessage(again) !== errorMessage(err)) throw again;
          this.logger.error({ partition: p.partition, offset: p.offset, err: again }, 'replay: a session event\'s documents cannot be written; set aside, the replay goes on');
          (setAside.poisoned as Map<string, string>).set(`${this.topology.sessionEvents}:${p.partition}:${p.offset}`, errorMessage(again));
          await applyEvents(target, events, setAside, PACING);
          return;
        }
      }
      if (retry) {
        // A passing fault goes away on a second try.
        try {
          await applyEvents(target, events, setAside, PACING);
          return;
        } catch (again) {
          if (!isRecordsFault(again)) throw again;
        }
      }
      const mid = Math.ceil(events.length / 2);
      await this.applySlice(target, events.slice(0, mid), setAside, false);
      await this.applySlice(target, events.slice(mid), setAside, false);
    }
  }

  private async catchUp(job: ReplayJobDoc, groupId: string, applied: () => number, progress: RoundProgress, each?: () => Promise<void>): Promise<void> {
    for (;;) {
      this.checkGoing();
      await each?.();
      const [ends, committed] = await Promise.all([
        this.log.endOffsets(this.topology.sessionEvents),
        this.log.committedOffsets(groupId, this.topology.sessionEvents),
      ]);
      const lag = Object.entries(ends).reduce((sum, [p, end]) => sum + Math.max(0, end - (committed[Number(p)] ?? 0)), 0);
      await this.jobs.updateOne({ _id: job._id }, { $set: { eventsApplied: applied(), lag } });
      if (lag === 0) {
        if (this.aborted) throw new Error(INTERRUPTED_STOPPING);
        progress.progressed();
        return;
      }
      this.stuck ??= progress.verdict(true);
      await new Promise((r) => setTimeout(r, Math.min(HEARTBEAT_MS, 250)));
    }
  }
}
