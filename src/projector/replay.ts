// Replay: rebuild the read models from `session-events` into the next version while the API
// serves the current one, then switch. Steps:
//   1. a fresh consumer group reads from the start (or an offset, or a time) into version N+1;
//   2. once it has caught up, projection pauses (this process's projector stops after its
//      batch; projectors elsewhere hold batches while the pointer says so);
//   3. the replay consumer reads the short tail and stops, the pointer moves to N+1, and
//      projection resumes in N+1 from where it was, skipping what the replay already applied.
// A crash at any step leaves the pointer on N: the served read models are never touched.
// One replay at a time, across every process sharing the store: a replay runs only while it
// holds the lock document, taken by one conditional write (see ReplayService.claim).
import { randomUUID } from 'node:crypto';
import type { Log, GroupPosition } from '../adapters/log/log.js';
import { DuplicateKeyError, type Collection, type Doc, type DocumentStore } from '../adapters/store/store.js';
import type { Logger } from '../support/logger.js';
import type { Topology } from '../topology.js';
import { applyEvents } from './models/runner.js';
import { parseEvents } from './projector.js';
import { ReadModelSet } from './read-model-set.js';
import { markReportBucketsBuilt } from './models/report-buckets/backfill.js';

export const JOBS_COLLECTION = 'jobs';
/** The one document whose holder may run a replay (in the jobs collection, kind `replay-lock`). */
export const REPLAY_LOCK_ID = 'replay-lock';
const HEARTBEAT_MS = 2_000;
/** A replay whose heartbeat is older than this died with its process. */
const STALE_MS = 15_000;
const PAUSE_MS = 60_000;

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

/** `jobId` null: free. Beaten together with its job's heartbeat, with the same time. */
interface ReplayLockDoc extends Doc {
  readonly kind: 'replay-lock';
  jobId: string | null;
  heartbeatAt: number;
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
}

export class ReplayService {
  private readonly jobs: Collection<ReplayJobDoc>;
  private readonly locks: Collection<ReplayLockDoc>;
  private readonly models: ReadModelSet;
  private current: Promise<void> | null = null;
  private aborted = false;
  /** Set by the heartbeat when another replay took the lock: this one must stop before switching. */
  private lost = false;

  constructor(
    private readonly log: Log,
    private readonly store: DocumentStore,
    private readonly topology: Topology,
    private readonly projection: ProjectionControl,
    private readonly logger: Logger,
    private readonly clock: () => number = Date.now,
  ) {
    this.jobs = store.collection<ReplayJobDoc>(JOBS_COLLECTION);
    this.locks = store.collection<ReplayLockDoc>(JOBS_COLLECTION);
    this.models = new ReadModelSet(store);
  }

  async get(id: string): Promise<ReplayJobDoc | null> {
    return this.jobs.findOne({ _id: id, kind: 'replay' });
  }

  async list(limit: number): Promise<ReplayJobDoc[]> {
    return this.jobs.find({ kind: 'replay' }, { sort: { startedAt: -1 }, limit });
  }

  /**
   * Takes the replay lock for `jobId` in one conditional write: it matches only a free lock or
   * one whose holder stopped beating, and when no lock document exists the upsert creates it.
   * Of concurrent claims exactly one matches or inserts; the others match nothing, try to
   * insert the same _id and fail with DuplicateKeyError, whichever process they run in.
   */
  private async claim(jobId: string, now: number): Promise<boolean> {
    try {
      const r = await this.locks.updateOne(
        { _id: REPLAY_LOCK_ID, $or: [{ jobId: null }, { heartbeatAt: { $lt: now - STALE_MS } }] },
        { $set: { kind: 'replay-lock', jobId, heartbeatAt: now } },
        { upsert: true },
      );
      return r.matched === 1 || r.upserted;
    } catch (err) {
      if (err instanceof DuplicateKeyError) return false;
      throw err;
    }
  }

  /** Frees the lock if `jobId` still holds it (a replay that lost it must not free its successor's). */
  private async release(jobId: string): Promise<void> {
    await this.locks.updateOne({ _id: REPLAY_LOCK_ID, jobId }, { $set: { jobId: null, heartbeatAt: this.clock() } });
  }

  /** False when another replay took the lock over (this one was presumed dead). */
  private async beat(jobId: string): Promise<boolean> {
    const now = this.clock();
    const r = await this.locks.updateOne({ _id: REPLAY_LOCK_ID, jobId }, { $set: { heartbeatAt: now } });
    if (r.matched === 0) return false;
    await this.jobs.updateOne({ _id: jobId, state: { $in: ['building', 'switching'] } }, { $set: { heartbeatAt: now } });
    return true;
  }

  private async holder(): Promise<ReplayJobDoc | null> {
    const lock = await this.locks.findOne({ _id: REPLAY_LOCK_ID });
    return lock?.jobId ? this.get(lock.jobId) : null;
  }

  /** Starts a replay and returns its job at once; refuses while another one runs. */
  async start(from: ReplayFrom): Promise<ReplayJobDoc> {
    const now = this.clock();
    const id = `replay-${now}-${randomUUID().slice(0, 8)}`;
    if (this.current || !(await this.claim(id, now))) {
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
    this.current = this.run(job).catch(async (err: unknown) => {
      const interrupted = err instanceof Error && err.message.startsWith('interrupted');
      if (interrupted) this.logger.warn({ job: job._id, reason: err.message }, 'replay interrupted; the served read models are unchanged');
      else this.logger.error({ err, job: job._id }, 'replay failed');
      await this.jobs.updateOne({ _id: job._id }, { $set: { state: 'failed', error: err instanceof Error ? err.message : String(err), finishedAt: this.clock() } }).catch(() => undefined);
    }).finally(async () => {
      // After the job's final state is stored, so whoever takes the lock next sees it finished.
      await this.release(job._id).catch((err: unknown) => this.logger.warn({ err, job: job._id }, 'replay lock not released; it frees itself once stale'));
      this.current = null;
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
    // A round's batches (every partition the fetch returned) are applied together, as the live
    // projector does: buckets and totals shared by many chats are then written once a round.
    const consumer = await this.log.consumeRounds({
      groupId,
      topics: [this.topology.sessionEvents],
      fromBeginning: true,
      onRound: async (batches) => {
        const events = batches.flatMap((b) => parseEvents(b, () => undefined));
        // An event whose fold throws is set aside as the live projector does, not retried forever.
        await applyEvents(target, events, { store: this.store, topic: this.topology.sessionEvents });
        applied += events.length;
      },
      onError: (err) => this.logger.error({ err, job: job._id }, 'replay round failed; retrying'),
    });
    let paused = false;
    let localPaused = false;
    let stopped = false;
    try {
      await this.catchUp(job, groupId, () => applied);
      // Hold projection everywhere (extended while the tail is read, so it cannot lapse), let
      // this process's projector finish its batch, then read the tail. The replay consumer
      // stops before the switch, so no two writers ever share the new version.
      await this.jobs.updateOne({ _id: job._id }, { $set: { state: 'switching' } });
      const hold = () => this.models.pauseProjection(this.clock() + PAUSE_MS);
      await hold();
      paused = true;
      await this.projection.pause();
      localPaused = true;
      await this.catchUp(job, groupId, () => applied, hold);
      await consumer.stop();
      stopped = true;
      // The last moment to find out that another replay took over: it must not be switched under.
      if (!(await this.beat(job._id))) this.lost = true;
      this.checkHeld();
      await this.models.switchTo(job.targetVersion, this.clock());
      paused = false;
    } finally {
      if (!stopped) await consumer.stop();
      // A replay that lost the lock leaves the hold to lapse: lifting it could cut into its successor's switch.
      if (paused && !this.lost) await this.models.pauseProjection(0);
      if (localPaused) await this.projection.resume();
    }
    await this.jobs.updateOne({ _id: job._id }, { $set: { state: 'done', eventsApplied: applied, lag: 0, finishedAt: this.clock(), heartbeatAt: this.clock() } });
    // Keep the version just replaced (for comparison or rollback); older ones go.
    for (const v of await this.models.storedVersions()) {
      if (v < job.fromVersion) await this.models.dropVersion(v);
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

  private async catchUp(job: ReplayJobDoc, groupId: string, applied: () => number, each?: () => Promise<void>): Promise<void> {
    for (;;) {
      if (this.aborted) throw new Error('interrupted: the service is stopping');
      this.checkHeld();
      await each?.();
      const [ends, committed] = await Promise.all([
        this.log.endOffsets(this.topology.sessionEvents),
        this.log.committedOffsets(groupId, this.topology.sessionEvents),
      ]);
      const lag = Object.entries(ends).reduce((sum, [p, end]) => sum + Math.max(0, end - (committed[Number(p)] ?? 0)), 0);
      await this.jobs.updateOne({ _id: job._id }, { $set: { eventsApplied: applied(), lag } });
      if (lag === 0) {
        if (this.aborted) throw new Error('interrupted: the service is stopping');
        return;
      }
      await new Promise((r) => setTimeout(r, Math.min(HEARTBEAT_MS, 250)));
    }
  }
}
