// Replay: rebuild the read models from `session-events` into the next version while the API
// serves the current one, then switch. Steps:
//   1. a fresh consumer group reads from the start (or an offset, or a time) into version N+1;
//   2. once it has caught up, projection pauses (this process's projector stops after its
//      batch; projectors elsewhere hold batches while the pointer says so);
//   3. the replay consumer reads the short tail and stops, the pointer moves to N+1, and
//      projection resumes in N+1 from where it was, skipping what the replay already applied.
// A crash at any step leaves the pointer on N: the served read models are never touched.
import { randomUUID } from 'node:crypto';
import type { Log, GroupPosition } from '../adapters/log/log.js';
import type { Collection, Doc, DocumentStore } from '../adapters/store/store.js';
import type { Logger } from '../support/logger.js';
import type { Topology } from '../topology.js';
import { applyEvents } from './apply-events.js';
import { parseEvents } from './projector.js';
import { ReadModelSet } from './read-model-set.js';

export const JOBS_COLLECTION = 'jobs';
const HEARTBEAT_MS = 2_000;
/** A job whose heartbeat is older than this died with its process. */
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
  private readonly models: ReadModelSet;
  private current: Promise<void> | null = null;
  private aborted = false;

  constructor(
    private readonly log: Log,
    store: DocumentStore,
    private readonly topology: Topology,
    private readonly projection: ProjectionControl,
    private readonly logger: Logger,
    private readonly clock: () => number = Date.now,
  ) {
    this.jobs = store.collection<ReplayJobDoc>(JOBS_COLLECTION);
    this.models = new ReadModelSet(store);
  }

  async get(id: string): Promise<ReplayJobDoc | null> {
    return this.jobs.findOne({ _id: id, kind: 'replay' });
  }

  async list(limit: number): Promise<ReplayJobDoc[]> {
    return this.jobs.find({ kind: 'replay' }, { sort: { startedAt: -1 }, limit });
  }

  private async running(): Promise<ReplayJobDoc | null> {
    const live = await this.jobs.find({ kind: 'replay', state: { $in: ['building', 'switching'] } });
    const now = this.clock();
    for (const job of live) {
      if (now - job.heartbeatAt <= STALE_MS) return job;
      // Its process died: record that, so its half-built version is known to be garbage.
      await this.jobs.updateOne({ _id: job._id }, { $set: { state: 'failed', error: 'interrupted: the process running it stopped', finishedAt: now } });
    }
    return null;
  }

  /** Starts a replay and returns its job at once; refuses while another one runs. */
  async start(from: ReplayFrom): Promise<ReplayJobDoc> {
    const busy = await this.running();
    if (busy || this.current) throw new ReplayConflict(busy ?? (await this.list(1))[0] ?? null);
    const fromVersion = await this.models.activeVersion();
    const stored = await this.models.storedVersions();
    const targetVersion = Math.max(fromVersion, ...stored) + 1;
    const now = this.clock();
    const job: ReplayJobDoc = {
      _id: `replay-${now}-${randomUUID().slice(0, 8)}`, kind: 'replay', state: 'building', from, fromVersion, targetVersion,
      eventsApplied: 0, lag: null, startedAt: now, heartbeatAt: now, finishedAt: null, error: null,
    };
    await this.jobs.insertOne(job);
    this.current = this.run(job).catch(async (err: unknown) => {
      const interrupted = err instanceof Error && err.message.startsWith('interrupted');
      if (interrupted) this.logger.warn({ job: job._id }, 'replay interrupted; the served read models are unchanged');
      else this.logger.error({ err, job: job._id }, 'replay failed');
      await this.jobs.updateOne({ _id: job._id }, { $set: { state: 'failed', error: err instanceof Error ? err.message : String(err), finishedAt: this.clock() } }).catch(() => undefined);
    }).finally(() => { this.current = null; });
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
    const target = this.models.at(job.targetVersion);
    await this.models.dropVersion(job.targetVersion);
    await this.models.ensureIndexes(job.targetVersion);
    const groupId = `${this.topology.projectorGroup}-${job._id}`;
    await this.log.setGroupPosition(groupId, this.topology.sessionEvents, await this.position(job.from));
    let applied = 0;
    const consumer = await this.log.consume({
      groupId,
      topics: [this.topology.sessionEvents],
      fromBeginning: true,
      onBatch: async (batch) => {
        const events = parseEvents(batch, () => undefined);
        await applyEvents(target, events);
        applied += events.length;
      },
      onError: (err) => this.logger.error({ err, job: job._id }, 'replay batch failed; retrying'),
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
      await this.models.switchTo(job.targetVersion, this.clock());
      paused = false;
    } finally {
      if (!stopped) await consumer.stop();
      if (paused) await this.models.pauseProjection(0);
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

  private async catchUp(job: ReplayJobDoc, groupId: string, applied: () => number, each?: () => Promise<void>): Promise<void> {
    for (;;) {
      if (this.aborted) throw new Error('interrupted: the service is stopping');
      await each?.();
      const [ends, committed] = await Promise.all([
        this.log.endOffsets(this.topology.sessionEvents),
        this.log.committedOffsets(groupId, this.topology.sessionEvents),
      ]);
      const lag = Object.entries(ends).reduce((sum, [p, end]) => sum + Math.max(0, end - (committed[Number(p)] ?? 0)), 0);
      const now = this.clock();
      await this.jobs.updateOne({ _id: job._id }, { $set: { eventsApplied: applied(), lag, heartbeatAt: now } });
      if (lag === 0) {
        if (this.aborted) throw new Error('interrupted: the service is stopping');
        return;
      }
      await new Promise((r) => setTimeout(r, Math.min(HEARTBEAT_MS, 250)));
    }
  }
}
