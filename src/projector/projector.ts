// Folds `session-events` into the read models, a round of batches (all partitions a fetch
// returned) at a time, so documents shared by many chats (account totals, report buckets) are
// written once a round. A round's offsets are committed only once its documents are written,
// and every document skips events it has already applied.
import type { Log, RecordBatch } from '../adapters/log/log.js';
import { WriteConflictError, type CollectionWrite, type DocumentStore } from '../adapters/store/store.js';
import type { SessionEvent } from '../../machines/session-events.js';
import type { Logger } from '../support/logger.js';
import type { Topology } from '../topology.js';
import { applyEvents } from './runner.js';
import { ReadModelSet } from '../read-models/read-model-set.js';
import { ensureReportBuckets } from '../read-models/report-buckets/backfill.js';
import { Freshness, type FreshnessSummary } from '../pipeline/freshness.js';
import { H } from '../domain/inbound-record.js';
import { partitionsOf, type Stage } from '../pipeline/stage.js';
import { IsolatingRounds } from '../pipeline/repeat-failures.js';
import { reconcileSetAsideAlert } from '../pipeline/set-aside-alert.js';
import type { SetAsideTally } from '../pipeline/set-aside.js';
import { ProjectionProgress } from './progress.js';
import { GAP_SLICE, healRecoveredWrite, projectorMarks, projectorMarkWrite, recordHeal } from './applied-marks.js';
import { sweepLapsed } from './lapse-sweep.js';
import { checkEventContent, EVENT_DIGESTS_COLLECTION, EVENT_DIGESTS_INDEX, trimEventDigests, type RawPositioned } from './event-digests.js';

export interface ProjectorCounters {
  eventsApplied: number;
  eventsUnreadable: number;
  /** Events whose fold threw: stored in `set_aside`, their documents left as they were. */
  eventsSetAside: number;
  /** Of those, events whose id came back with other content than it first had (stage 'conflict'). */
  eventsConflicting: number;
  batches: number;
  /** Sessions closed at their deadline ahead of the processor's close (./lapse-sweep.ts). */
  sessionsSwept: number;
}

export interface ProjectorStatus extends ProjectorCounters {
  /** Webhook received → its events written to the read models, over the last seconds. */
  readonly freshness: FreshnessSummary;
}

export interface ProjectorOptions {
  /** Whether event ids are checked for one content (config.eventDigests, ./event-digests.ts); default true. */
  readonly checkContent?: boolean;
  /** How long an event id's digest is kept (config.eventDigestsKeepDays). */
  readonly digestsKeepMs?: number;
  /** Where a gap behind a partition's applied mark is read again from (./applied-marks.ts); without it, gaps are not looked for. */
  readonly log?: Log;
  /**
   * A definitions generation's preview (src/definitions/generations.ts): fold into this read-model
   * version whatever the pointer says, and ignore its pauses. Absent: follow the pointer.
   */
  readonly pinnedVersion?: number;
  /** The definitions generation this projector's topics belong to; absent: 0. Unpinned, it folds only while that generation is live. */
  readonly generation?: number;
}

export class Projector implements Stage {
  readonly role = 'projector';
  private readonly checkContent: boolean;
  private readonly digestsKeepMs: number;
  private readonly log: Log | null;
  /** Per `<version>:<partition>`: the next offset this process's own last round of it wrote; a round that starts there needs no mark check. */
  private readonly continuing = new Map<string, number>();
  readonly startFrom = 'beginning';
  readonly group: string;
  readonly topics: readonly string[];
  private readonly models: ReadModelSet;
  readonly counters: ProjectorCounters = { eventsApplied: 0, eventsUnreadable: 0, eventsSetAside: 0, eventsConflicting: 0, batches: 0, sessionsSwept: 0 };
  private readonly freshness = new Freshness();
  /** Events whose own round failed twice the same way (by position), with the error: set aside when next seen. */
  private readonly poisoned = new Map<string, string>();
  private readonly rounds = new IsolatingRounds((batches) => this.handleRound(batches), this.poisoned, (err, partitions) => {
    this.logger.warn({ err, partitions }, 'projector round failed twice the same way; applying its events one at a time to set aside the one at fault');
  });

  constructor(
    private readonly store: DocumentStore,
    private readonly topology: Topology,
    private readonly logger: Logger,
    /** Told after each round's documents are written (intelligence in this process waits on it). */
    private readonly progress: ProjectionProgress = new ProjectionProgress(),
    /** Where events set aside are counted by stage (the process's metrics). */
    private readonly setAsideTally?: SetAsideTally,
    options: ProjectorOptions = {},
  ) {
    this.checkContent = options.checkContent ?? true;
    this.digestsKeepMs = options.digestsKeepMs ?? 30 * 86_400_000;
    this.log = options.log ?? null;
    this.pinned = options.pinnedVersion ?? null;
    this.generation = options.generation ?? 0;
    this.models = new ReadModelSet(store);
    this.group = topology.projectorGroup;
    this.topics = [topology.sessionEvents];
  }

  private readonly pinned: number | null;
  private readonly generation: number;

  async prepare(): Promise<void> {
    const version = this.pinned ?? await this.models.activeVersion();
    await this.models.ensureIndexes(version);
    await ensureReportBuckets(this.store, this.models, version, this.logger);
    if (this.checkContent) await this.store.collection(EVENT_DIGESTS_COLLECTION).createIndex(EVENT_DIGESTS_INDEX);
  }

  /** When digests are next trimmed: at most once an hour, or every round while a trim finds more. */
  private trimDigestsAt = 0;

  /** Digests past the horizon go (./event-digests.ts), a bounded number per round, after its write. */
  private async trimDigests(): Promise<void> {
    const now = Date.now();
    if (!this.checkContent || now < this.trimDigestsAt) return;
    this.trimDigestsAt = now + 3_600_000;
    try {
      const { removed, more } = await trimEventDigests(this.store, now - this.digestsKeepMs, now);
      if (more) this.trimDigestsAt = now;
      if (removed > 0) this.logger.debug({ removed }, 'event digests past the horizon trimmed');
    } catch (err) {
      // Bookkeeping: the next round tries again; the round itself is done.
      this.trimDigestsAt = now + 60_000;
      this.logger.warn({ err }, 'trimming event digests failed; trying again in a minute');
    }
  }

  readonly idleEveryMs = 1_000;

  /**
   * Between rounds: sessions past their deadline are closed in the read models as readers show
   * them (./lapse-sweep.ts), a slice at a time; true while a slice came back full. Only where a
   * store write is one transaction (the embedded store), and not while read models switch.
   */
  async idle(): Promise<boolean> {
    // A preview's sessions are swept once it is live: before, nobody reads them, and sweeping
    // a whole history's lapsed sessions would take turns from the API for nothing.
    if (this.store.kind !== 'embedded' || this.pinned !== null) return false;
    try {
      const pointer = this.pinned !== null ? { version: this.pinned, pausedUntil: null } : await this.models.pointer();
      if (pointer.pausedUntil !== null && pointer.pausedUntil > Date.now()) return false;
      const { swept, more } = await sweepLapsed(this.models.at(pointer.version), Date.now());
      this.counters.sessionsSwept += swept;
      if (swept > 0) this.logger.debug({ swept, more }, 'sessions past their deadline closed in the read models');
      return more;
    } catch (err) {
      // A round (or another process's sweep) wrote one of them in between, or the store is away: the next call sweeps again.
      if (err instanceof WriteConflictError) this.logger.debug({ err }, 'a swept session changed meanwhile; sweeping again');
      else this.logger.warn({ err }, 'sweeping sessions past their deadline failed; trying again');
      return false;
    }
  }

  failed(err: unknown, batches: readonly RecordBatch[]): void {
    if (err instanceof ProjectionPaused) this.logger.info({ partitions: partitionsOf(batches) }, 'read models are switching; round held');
    else this.logger.error({ err, partitions: partitionsOf(batches) }, 'projector round failed; retrying');
  }

  private parse(batch: RecordBatch): RawPositioned[] {
    return parseEvents(batch, (offset) => {
      this.counters.eventsUnreadable++;
      this.logger.warn({ partition: batch.partition, offset }, 'unreadable session event skipped');
    });
  }

  /**
   * Batches of different partitions (one each at most: a partition's next batch waits for this
   * one). A round that failed the same way before, for a reason that may be its events' own, is
   * applied an event at a time, and an event whose own application fails is set aside.
   */
  handleBatch(batches: readonly RecordBatch[]): Promise<void> {
    return this.rounds.handle(batches);
  }

  private async handleRound(batches: readonly RecordBatch[]): Promise<void> {
    // The pointer is read per application, so a replay's switch reaches every projector process.
    const pointer = this.pinned !== null ? { version: this.pinned, pausedUntil: null, generation: this.generation } : await this.models.pointer();
    if (pointer.pausedUntil !== null && pointer.pausedUntil > Date.now()) throw new ProjectionPaused();
    // Another generation went live (a switch in another process): this one's events must not reach its read models.
    if (pointer.generation !== this.generation) throw new GenerationNotLive(this.generation, pointer.generation);
    // A store behind its applied mark gets the events in between again first (./applied-marks.ts).
    await this.healGaps(batches, pointer.version);
    const next = new Map<number, number>();
    for (const b of batches) {
      const last = b.records[b.records.length - 1];
      if (last) next.set(b.partition, Math.max(next.get(b.partition) ?? 0, last.offset + 1));
    }
    await this.apply(batches, pointer.version, next, []);
    this.counters.batches += batches.length;
    const visibleAt = Date.now();
    for (const b of batches) for (const r of b.records) this.freshness.record(Number(r.headers[H.receivedAt]), visibleAt);
    this.progress.advance(batches);
    await this.trimDigests();
  }

  /**
   * Folds the batches' events into the read models in one store write: their digests first,
   * then the documents, then (last) each partition's applied mark at `next` and `after`.
   */
  private async apply(batches: readonly RecordBatch[], version: number, next: ReadonlyMap<number, number>, after: readonly CollectionWrite[]): Promise<void> {
    // An id that came back with other content is set aside, never folded (./event-digests.ts).
    const parsed = batches.flatMap((b) => this.parse(b));
    const { fold: events, conflicts, writes: digestWrites } = this.checkContent ? await checkEventContent(this.store, this.topology.sessionEvents, parsed) : { fold: parsed, conflicts: [], writes: [] };
    for (const c of conflicts) this.logger.error({ id: c._id, partition: c.partition, offset: c.offset, chatKey: c.chatKey, event: c.event, conflict: c.conflict }, 'session event set aside: its id came back with different content; not folded');
    // With the digests and conflicts alone when nothing is folded.
    const marks = this.log ? [projectorMarkWrite(version, next), ...after].filter((w) => w.ops.length > 0) : [];
    if (events.length === 0 && digestWrites.length + marks.length > 0) await this.store.bulkWriteMany([...digestWrites, ...marks]);
    const asides = [...conflicts, ...await applyEvents(this.models.at(version), events, { store: this.store, topic: this.topology.sessionEvents, poisoned: this.poisoned, before: digestWrites, after: marks })];
    for (const [partition, at] of next) this.continuing.set(`${version}:${partition}`, at);
    for (const a of asides) {
      if (a.stage === 'conflict') continue;
      this.poisoned.delete(`${a.topic}:${a.partition}:${a.offset}`);
      this.logger.error({ id: a._id, partition: a.partition, offset: a.offset, chatKey: a.chatKey, event: a.event, error: a.error }, a.stage === 'write' ? 'session event set aside: writing its documents failed twice; they keep their state, projection goes on' : 'session event set aside: its fold threw; its documents keep their state, projection goes on');
    }
    for (const a of asides) this.setAsideTally?.add(a.stage);
    if (asides.length > 0) {
      await reconcileSetAsideAlert(this.store).catch((err: unknown) => this.logger.warn({ err }, 'the set-aside alert could not be raised; the alert sweep will'));
    }
    this.counters.eventsSetAside += asides.length;
    this.counters.eventsConflicting += conflicts.length;
    this.counters.eventsApplied += events.length - (asides.length - conflicts.length);
  }

  /**
   * Where a partition's applied mark is behind the batch (the store lost rounds the group had
   * committed), the events in between are read again from the log and folded before it, a slice
   * at a time, each slice its own store write that moves the mark: a gap of any length takes
   * bounded memory and bounded reads, and a stop half way resumes where the mark got to. A
   * partition this process's own last round left where the batch starts is not looked up.
   */
  private async healGaps(batches: readonly RecordBatch[], version: number): Promise<void> {
    const log = this.log;
    if (!log) return;
    const unknown = batches.filter((b) => {
      const first = b.records[0]?.offset;
      return first !== undefined && this.continuing.get(`${version}:${b.partition}`) !== first;
    });
    if (unknown.length === 0) return;
    const marks = await projectorMarks(this.store, version, unknown.map((b) => b.partition));
    for (const b of unknown) {
      const first = b.records[0]?.offset ?? 0;
      const mark = marks.get(b.partition);
      if (mark === undefined || mark >= first) continue;
      this.logger.warn({ partition: b.partition, version, appliedMark: mark, resumedAt: first },
        'the read models end before the committed offset (the store lost writes): folding the events in between again');
      const heal = { version, partition: b.partition, from: mark, to: first, detectedAt: Date.now(), eventsMissing: 0 };
      const id = await recordHeal(this.store, heal);
      let missing = 0;
      for (let from = mark; from < first; from += GAP_SLICE) {
        const to = Math.min(first, from + GAP_SLICE);
        const { records, held } = await log.readRange(b.topic, b.partition, from, to);
        missing += to - from - held;
        const done = to === first ? [healRecoveredWrite(id, Date.now(), missing)] : [];
        await this.apply([{ topic: b.topic, partition: b.partition, records }], version, new Map([[b.partition, to]]), done);
      }
      this.logger.warn({ partition: b.partition, version, from: mark, to: first, missing }, 'read models folded again from the log up to where the consumer resumed');
    }
  }

  status(): ProjectorStatus {
    return { ...this.counters, freshness: this.freshness.summary() };
  }
}

class ProjectionPaused extends Error {
  constructor() {
    super('read models are switching versions');
  }
}

/** Session events of a batch with their positions; unreadable records are reported and skipped. */
export function parseEvents(batch: RecordBatch, unreadable: (offset: number) => void): RawPositioned[] {
  const out: RawPositioned[] = [];
  for (const r of batch.records) {
    try {
      out.push({ event: JSON.parse(r.value.toString('utf8')) as SessionEvent, partition: r.partition, offset: r.offset, raw: r.value });
    } catch {
      unreadable(r.offset);
    }
  }
  return out;
}

/** The pointer names another definitions generation: this projector's events belong to one not live. */
class GenerationNotLive extends Error {
  constructor(mine: number, live: number) {
    super(`definitions generation ${mine} is not live (${live} is): its events are not folded into the live read models`);
    this.name = 'GenerationNotLive';
  }
}
