// Folds `session-events` into the read models, a round of batches (all partitions a fetch
// returned) at a time, so documents shared by many chats (account totals, report buckets) are
// written once a round. A round's offsets are committed only once its documents are written,
// and every document skips events it has already applied.
import type { RecordBatch } from '../adapters/log/log.js';
import type { DocumentStore } from '../adapters/store/store.js';
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
import { checkEventContent, EVENT_DIGESTS_COLLECTION, EVENT_DIGESTS_INDEX, TRIM_BATCH, trimEventDigests, type RawPositioned } from './event-digests.js';

export interface ProjectorCounters {
  eventsApplied: number;
  eventsUnreadable: number;
  /** Events whose fold threw: stored in `set_aside`, their documents left as they were. */
  eventsSetAside: number;
  /** Of those, events whose id came back with other content than it first had (stage 'conflict'). */
  eventsConflicting: number;
  batches: number;
}

export interface ProjectorStatus extends ProjectorCounters {
  /** Webhook received → its events written to the read models, over the last seconds. */
  readonly freshness: FreshnessSummary;
}

export class Projector implements Stage {
  readonly role = 'projector';
  readonly startFrom = 'beginning';
  readonly group: string;
  readonly topics: readonly string[];
  private readonly models: ReadModelSet;
  readonly counters: ProjectorCounters = { eventsApplied: 0, eventsUnreadable: 0, eventsSetAside: 0, eventsConflicting: 0, batches: 0 };
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
    /** Whether event ids are checked for one content (config.eventDigests, ./event-digests.ts). */
    private readonly checkContent = true,
    /** How long an event id's digest is kept (config.eventDigestsKeepDays). */
    private readonly digestsKeepMs = 30 * 86_400_000,
  ) {
    this.models = new ReadModelSet(store);
    this.group = topology.projectorGroup;
    this.topics = [topology.sessionEvents];
  }

  async prepare(): Promise<void> {
    const version = await this.models.activeVersion();
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
      const removed = await trimEventDigests(this.store, now - this.digestsKeepMs, now);
      if (removed >= TRIM_BATCH) this.trimDigestsAt = now;
      if (removed > 0) this.logger.debug({ removed }, 'event digests past the horizon trimmed');
    } catch (err) {
      // Bookkeeping: the next round tries again; the round itself is done.
      this.trimDigestsAt = now + 60_000;
      this.logger.warn({ err }, 'trimming event digests failed; trying again in a minute');
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
    const pointer = await this.models.pointer();
    if (pointer.pausedUntil !== null && pointer.pausedUntil > Date.now()) throw new ProjectionPaused();
    // An id that came back with other content is set aside, never folded (./event-digests.ts).
    const parsed = batches.flatMap((b) => this.parse(b));
    const { fold: events, conflicts, writes: digestWrites } = this.checkContent ? await checkEventContent(this.store, this.topology.sessionEvents, parsed) : { fold: parsed, conflicts: [], writes: [] };
    for (const c of conflicts) this.logger.error({ id: c._id, partition: c.partition, offset: c.offset, chatKey: c.chatKey, event: c.event, conflict: c.conflict }, 'session event set aside: its id came back with different content; not folded');
    // The digests and conflicts go in the round's one store write (alone when nothing is folded).
    if (events.length === 0 && digestWrites.length > 0) await this.store.bulkWriteMany(digestWrites);
    const asides = [...conflicts, ...await applyEvents(this.models.at(pointer.version), events, { store: this.store, topic: this.topology.sessionEvents, poisoned: this.poisoned, before: digestWrites })];
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
    this.counters.batches += batches.length;
    const visibleAt = Date.now();
    for (const b of batches) for (const r of b.records) this.freshness.record(Number(r.headers[H.receivedAt]), visibleAt);
    this.progress.advance(batches);
    await this.trimDigests();
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
