// Runs the per-chat session machines over `inbound` and appends their events to
// `session-events`. Exactly-once effects, without transactions:
// 1. events are appended before the chat state moves, with deterministic ids and sequences,
//    once the states they were stepped from are checked to be still the stored ones;
// 2. the ids the batch admitted go to the chat ledger, visible only once the state is stored;
// 3. each chat's state is stored with the last input offset it includes, by a conditional
//    write on the offset it was read at: a processor that lost its partition (paused past a
//    rebalance) cannot put an older state over a newer one;
// 4. a record delivered again after a crash is recognised by that offset and skipped; a crash
//    between 1 and 3 re-emits identical events, which the projector ignores by sequence.
// A record whose normalising or stepping throws is set aside (../pipeline/set-aside.ts) instead of
// failing the batch (which would be retried forever and stall the partition): its chat keeps
// the state it had before the record, with the offset moved past it, and the set-aside
// document goes in the same store write as the states. The step is pure, so a redelivery or a
// re-derivation throws the same way and makes the same decision.
// A stored chat state this version does not read (./chat-state.ts, checkStoredFormat) is no
// record's fault: its round fails whole, logged, and comes again, never set aside.
// What a round decides (normalising, dedupe, the stored states' format, ticks, stepping, setting
// aside) is the pure ./round.ts; this file does the reads, the fencing, the append and the
// write around it, and keeps the cache, the counters and the rollback bookkeeping.
import { DefinitionsStore } from '../definitions/definitions-store.js';
import { DEFAULT_UNANSWERED_MS } from '../../machines/chat-context.js';
import { DEFAULT_LOOKBACK_MS } from '../../machines/credit-models.js';
import { BannedPhrasesStore, PhraseBook } from '../accounts/banned-phrases-store.js';
import { BusinessHoursStore, ScheduleBook } from '../accounts/business-hours-store.js';
import type { AppendRecord, Consumer, Log, RecordBatch } from '../adapters/log/log.js';
import { DuplicateKeyError, WriteConflictError, type BulkOp, type Collection, type Doc, type DocumentStore } from '../adapters/store/store.js';
import type { SessionEvent } from '../../machines/session-events.js';
import { step } from '../../machines/step.js';
import { H, readInboundMeta } from '../domain/inbound-record.js';
import { LruMap } from '../support/lru.js';
import { Freshness, type FreshnessSummary } from '../pipeline/freshness.js';
import type { Logger } from '../support/logger.js';
import type { Topology } from '../topology.js';
import { partitionsOf, runStage, type Stage } from '../pipeline/stage.js';
import { IsolatingRounds } from '../pipeline/repeat-failures.js';
import { ChatLedger, type BatchLedger, type StatePosition } from './chat-ledger.js';
import { CHAT_STATE_COLLECTION, type ChatStateDoc } from './chat-state.js';
import { decideRound, readRound, type DueChat, type ReadRound, type RoundResult, type SlowStep } from './round.js';
import { SET_ASIDE_COLLECTION, setAsideWrite, type SetAsideDoc, type SetAsideTally } from '../pipeline/set-aside.js';
import { reconcileSetAsideAlert } from '../pipeline/set-aside-alert.js';
import { appliedMarks, appliedMarkWrite, describeRollbacks, markRecovered, readRange, recordRollbacks, rollbackId, rollbacksBehindMark, unrecoveredRollbacks, type Rollback, type StatePlace } from './rollback.js';

export { CHAT_STATE_COLLECTION, type ChatStateDoc } from './chat-state.js';

export interface ProcessorOptions {
  readonly log: Log;
  readonly store: DocumentStore;
  readonly topology: Topology;
  readonly idleMs: number;
  readonly lateMs: number;
  /** The unanswered limit (UNANSWERED_CLOSE_SEC); the machine's default when absent. */
  readonly unansweredMs?: number;
  /** The converter model's lookback (ATTRIBUTION_LOOKBACK_SEC); the machine's default when absent. */
  readonly lookbackMs?: number;
  readonly logger: Logger;
  readonly cacheSize?: number;
  /** Fault injection (tests): wait between computing a batch and writing it, as a hung store call would. */
  readonly stallBeforeWriteMs?: number;
  /** Fault injection (tests only): the step throws on a message whose text contains this marker. */
  readonly failpointThrowOnText?: string;
  /** Where records set aside are counted by stage (the process's metrics); kept across restarts of the stage. */
  readonly setAsideTally?: SetAsideTally;
  /**
   * Where this definitions generation keeps its chat states, ledger, applied marks, rollbacks and
   * set-aside records (src/definitions/generations.ts); `store` when absent. Accounts' phrases,
   * schedules and the definitions themselves are the deployment's, in `store`.
   */
  readonly stateStore?: DocumentStore;
  /** The generation's id tag for new chats (machines/chat-context.ts); absent in the first. */
  readonly idTag?: string;
  /** Record these settings as a definitions version when starting (the first generation, from the environment); default true. */
  readonly recordDefinitions?: boolean;
  /** The schedules restated as of this time (DefinitionValues.businessHoursRestatedAt; ScheduleBook). */
  readonly schedulesRestatedAt?: number;
}

export interface ProcessorCounters {
  recordsApplied: number;
  recordsSkippedAsApplied: number;
  recordsDuplicate: number;
  recordsWithoutRouting: number;
  ticks: number;
  eventsEmitted: number;
  /** Batches whose writes were refused because another processor had moved on (or the partition moved away). */
  batchesFenced: number;
  /** Records (or a tick's step of one chat) whose normalise or step threw: stored in `set_aside`, their chat left as it was. */
  recordsSetAside: number;
  /** Records whose normalise + step took longer than SLOW_STEP_MS (processed as usual). */
  slowSteps: number;
  /** Chat states the store handed back older than this processor had stored (lost writes): each re-derived from `inbound` (./rollback.ts). */
  stateRollbacks: number;
  /** Inbound records stepped again to re-derive rolled-back chats (their events not appended again). */
  recordsRederived: number;
}

export interface ProcessorStatus extends ProcessorCounters {
  /** Webhook received → its events appended and its chat's state stored, over the last seconds. */
  readonly freshness: FreshnessSummary;
}

/** This processor no longer owns the partition, or another one wrote newer states: the batch must not land. */
export class BatchFencedError extends Error {
  constructor(partitions: readonly number[], reason: string) {
    super(`batch of partition${partitions.length === 1 ? '' : 's'} ${partitions.join(', ')} fenced: ${reason}`);
    this.name = 'BatchFencedError';
  }
}

export class SessionProcessor implements Stage {
  readonly role = 'processor';
  readonly startFrom = 'beginning';
  readonly group: string;
  readonly topics: readonly string[];
  private readonly states: Collection<ChatStateDoc>;
  private readonly ledger: ChatLedger;
  private readonly cache: LruMap<string, ChatStateDoc>;
  private readonly nextExpected = new Map<number, number>();
  /** Per partition, the applied mark this processor last stored: a stored one below it means the store lost writes under it. */
  private readonly markWritten = new Map<number, number>();
  private consumer?: Consumer;
  readonly counters: ProcessorCounters = {
    recordsApplied: 0, recordsSkippedAsApplied: 0, recordsDuplicate: 0, recordsWithoutRouting: 0, ticks: 0, eventsEmitted: 0, batchesFenced: 0,
    recordsSetAside: 0, slowSteps: 0, stateRollbacks: 0, recordsRederived: 0,
  };
  /**
   * Per partition, chats to re-derive (chat key → the stored state's offset) until they are:
   * rollbacks found against the cache (`ids`, already counted) and candidates found behind the
   * partition's applied mark (`candidates`, counted once their re-derivation changes a state).
   */
  private readonly rederive = new Map<number, { chats: Map<string, number>; ids: string[]; candidates: Map<string, Rollback>; at: number }>();
  private readonly step: typeof step;
  /** The accounts' banned phrases, as the round judges replies by them. */
  private readonly phrases: PhraseBook;
  /** The accounts' business hours as they changed, as the round places the unanswered limit in open hours. */
  private readonly schedules: ScheduleBook;
  /** Webhook received → its events appended and its chat's state stored, over the last seconds. */
  private readonly freshness = new Freshness();
  /** Records whose own round failed twice the same way (by position), with the error: set aside when next seen. */
  private readonly poisoned = new Map<string, string>();
  private readonly rounds = new IsolatingRounds((round) => this.handleRound(round), this.poisoned, (err, partitions) => {
    this.opts.logger.warn({ err, partitions }, 'session processor round failed twice the same way; running its records one at a time to set aside the one at fault');
  });

  /** This generation's chat states and their bookkeeping (ProcessorOptions.stateStore). */
  private readonly stateStore: DocumentStore;

  constructor(private readonly opts: ProcessorOptions) {
    this.stateStore = opts.stateStore ?? opts.store;
    this.states = this.stateStore.collection<ChatStateDoc>(CHAT_STATE_COLLECTION);
    this.ledger = new ChatLedger(this.stateStore);
    this.cache = new LruMap(opts.cacheSize ?? 10_000);
    this.phrases = new PhraseBook(new BannedPhrasesStore(opts.store));
    this.schedules = new ScheduleBook(new BusinessHoursStore(opts.store), opts.schedulesRestatedAt);
    this.group = opts.topology.processorGroup;
    this.topics = [opts.topology.inbound];
    const marker = opts.failpointThrowOnText;
    this.step = marker
      ? (state, input) => {
        if (input.type === 'chat.message' && input.text.includes(marker)) throw new Error('failpoint: the message text holds the throw-on-text marker');
        return step(state, input);
      }
      : step;
  }

  async prepare(): Promise<void> {
    await this.states.createIndex({ keys: { partition: 1, deadline: 1 } });
    // The definitions this processor decides under, kept as a version reports can name.
    const o = this.opts;
    if (o.recordDefinitions === false) {
      o.logger.info({ idleMs: o.idleMs, lateMs: o.lateMs, idTag: o.idTag }, 'deciding under the definitions generation\'s stored values');
      await this.stateStore.collection(SET_ASIDE_COLLECTION).createIndex({ keys: { setAsideAt: -1 } });
      return;
    }
    const version = await new DefinitionsStore(o.store).record({
      sessionIdleSec: Math.round(o.idleMs / 1000), allowedLatenessSec: Math.round(o.lateMs / 1000),
      unansweredCloseSec: Math.round((o.unansweredMs ?? DEFAULT_UNANSWERED_MS) / 1000), attributionLookbackSec: Math.round((o.lookbackMs ?? DEFAULT_LOOKBACK_MS) / 1000),
    }, Date.now());
    o.logger.info({ definitionsVersion: version.version, ...version.values }, 'deciding under definitions version');
    // GET /api/admin/set-aside lists them newest first.
    await this.stateStore.collection(SET_ASIDE_COLLECTION).createIndex({ keys: { setAsideAt: -1 } });
  }

  failed(err: unknown, batches: readonly RecordBatch[]): void {
    const partitions = partitionsOf(batches);
    if (err instanceof BatchFencedError) this.opts.logger.warn({ partitions, reason: err.message }, 'session processor round fenced; re-reading');
    else this.opts.logger.error({ err, partitions }, 'session processor round failed; retrying');
  }

  /** Runs the processor as its own consumer (tests and benchmarks; the service runs stages from PipelineControl). */
  async start(): Promise<void> {
    this.consumer = await runStage(this.opts.log, this);
  }

  status(): ProcessorStatus {
    return { ...this.counters, freshness: this.freshness.summary() };
  }

  async stop(): Promise<void> {
    await this.consumer?.stop();
    this.consumer = undefined;
  }

  private async loadStates(keys: string[]): Promise<Map<string, ChatStateDoc>> {
    const found = new Map<string, ChatStateDoc>();
    const missing: string[] = [];
    // The cache is trusted without a read: a state that another processor moved on, or an
    // admin purge removed, fails this round's conditional write (on the offset it remembers),
    // which drops the round's partitions from the cache and retries from the store.
    for (const k of keys) {
      const cached = this.cache.get(k);
      if (cached) found.set(k, cached);
      else missing.push(k);
    }
    if (missing.length > 0) {
      for (const doc of await this.states.find({ _id: { $in: missing } })) found.set(doc._id, doc);
    }
    return found;
  }

  /** Throws WriteConflictError when a chat's stored state is no longer the one this round stepped from. */
  private async checkFence(readAt: ReadonlyMap<string, ChatStateDoc | null>): Promise<void> {
    if (readAt.size === 0) return;
    const stored = new Map<string, number>();
    for (const d of await this.states.find({ _id: { $in: [...readAt.keys()] } }, { projection: { offset: 1 } })) stored.set(d._id, d.offset);
    for (const [key, before] of readAt) {
      const now = stored.get(key);
      if (before === null ? now !== undefined : now !== before.offset) {
        const saw = now === undefined ? 'none is stored' : `the stored one is at offset ${now}`;
        throw new WriteConflictError(CHAT_STATE_COLLECTION, `${key.slice(0, 200)}: this round stepped from ${before === null ? 'no state' : `the state at offset ${before.offset} (seq ${before.state.context.seq})`}, ${saw}`);
      }
    }
  }

  /**
   * After a refused write or fence: the chats whose stored state is older than the one this
   * round stepped from (same partition, lower offset). Only this processor moves a partition's
   * states forward, and it stepped from a state it had stored: a lower one is a lost write, not
   * another owner's work (that would be higher) nor a purge (that leaves none).
   */
  private async findRollbacks(readAt: ReadonlyMap<string, ChatStateDoc | null>): Promise<Rollback[]> {
    const known = [...readAt].filter((e): e is [string, ChatStateDoc] => e[1] !== null);
    if (known.length === 0) return [];
    const stored = new Map<string, ChatStateDoc>();
    for (const d of await this.states.find({ _id: { $in: known.map(([k]) => k) } })) stored.set(d._id, d);
    const out: Rollback[] = [];
    for (const [chatKey, before] of known) {
      const now = stored.get(chatKey);
      if (!now || now.partition !== before.partition || now.offset >= before.offset) continue;
      out.push({ chatKey, partition: now.partition, storedOffset: now.offset, storedSeq: seqOf(now), knownOffset: before.offset, knownSeq: seqOf(before) });
    }
    return out;
  }

  /** Remembers rolled-back chats so the round's retry re-derives them; stores, logs and counts what was seen. */
  private async noteRollbacks(rollbacks: readonly Rollback[], roundStart: ReadonlyMap<number, number>): Promise<void> {
    for (const r of rollbacks) {
      const p = this.plan(r.partition, roundStart.get(r.partition) ?? 0);
      const id = rollbackId(r);
      if (!p.ids.includes(id)) {
        this.counters.stateRollbacks++;
        p.ids.push(id);
      }
      p.chats.set(r.chatKey, Math.min(p.chats.get(r.chatKey) ?? r.storedOffset, r.storedOffset));
      this.opts.logger.error({ chatKey: r.chatKey, partition: r.partition, storedOffset: r.storedOffset, storedSeq: r.storedSeq, cachedOffset: r.knownOffset, cachedSeq: r.knownSeq },
        'chat state rolled back: the store handed back an older state than this processor stored (lost writes); re-deriving it from inbound');
    }
    // The round is retried whether or not this lands: the re-derivation does not depend on it.
    await recordRollbacks(this.stateStore, rollbacks, Date.now()).catch((err: unknown) => this.opts.logger.warn({ err }, 'a chat state rollback could not be recorded for verify'));
  }

  /**
   * A partition this process did not just read: the stored states may be behind what the group
   * committed (the store lost the last rounds' writes while this process was not there to
   * notice). Candidates join the chats to re-derive; see ./rollback.ts.
   */
  /** The partition's re-derivation plan, made if there is none. */
  private plan(partition: number, at: number): { chats: Map<string, number>; ids: string[]; candidates: Map<string, Rollback>; at: number } {
    let p = this.rederive.get(partition);
    if (!p) {
      p = { chats: new Map(), ids: [], candidates: new Map(), at };
      this.rederive.set(partition, p);
    }
    return p;
  }

  private async checkAppliedMark(batch: RecordBatch): Promise<void> {
    const first = batch.records[0]?.offset;
    if (first === undefined) return;
    const place = (d: ChatStateDoc): StatePlace => ({ _id: d._id, partition: d.partition, offset: d.offset, seq: seqOf(d) });
    const found = await rollbacksBehindMark(this.stateStore, this.opts.log, batch.topic, batch.partition, first, {
      states: async (keys) => (await this.states.find({ _id: { $in: [...keys] } })).map(place),
      dueBefore: async (partition, at, offset) => (await this.states.find({ partition, deadline: { $lt: at }, offset: { $lt: offset } })).map(place),
    }, (r) => {
      const meta = readInboundMeta(r.headers);
      return meta?.source === 'tick' ? meta.receivedAt : null;
    });
    // Rollbacks found and recorded by a process that stopped before re-deriving them.
    const left = await unrecoveredRollbacks(this.stateStore, batch.partition);
    if (left.length > 0) {
      const p = this.plan(batch.partition, first);
      for (const r of left) {
        if (!p.ids.includes(r._id)) p.ids.push(r._id);
        p.chats.set(r.chatKey, Math.min(p.chats.get(r.chatKey) ?? r.storedOffset, r.storedOffset));
      }
      this.opts.logger.warn({ partition: batch.partition, rollbacks: left.length }, 'chat state rollbacks found earlier and not yet re-derived: re-deriving them');
    }
    if (!found) return;
    this.opts.logger.warn({ partition: batch.partition, appliedMark: found.from, committed: first, candidates: found.rollbacks.length },
      'the stored states end before the committed offset (the store lost writes): checking the chats of the records in between');
    if (found.rollbacks.length === 0) return;
    const p = this.plan(batch.partition, first);
    for (const r of found.rollbacks) {
      p.chats.set(r.chatKey, Math.min(p.chats.get(r.chatKey) ?? r.storedOffset, r.storedOffset));
      if (!p.candidates.has(r.chatKey)) p.candidates.set(r.chatKey, r);
    }
  }

  /**
   * The batches with, before each partition's records, the records to step again for its chats
   * found rolled back: from the oldest stored offset up to the batch, those of the chats and the
   * clock ticks (which may have settled them). Answers the first offset each batch really holds.
   */
  private async withRederived(batches: readonly RecordBatch[]): Promise<{ batches: RecordBatch[]; roundStart: Map<number, number>; missing: Map<number, number> }> {
    const roundStart = new Map<number, number>();
    const missingBy = new Map<number, number>();
    const out: RecordBatch[] = [];
    for (const batch of batches) {
      const first = batch.records[0]?.offset ?? 0;
      roundStart.set(batch.partition, first);
      let p = this.rederive.get(batch.partition);
      // Delivered past the round that found them: the partition went to another processor and
      // came back; the states it left are not this one's to re-derive.
      if (p && first > p.at) {
        this.rederive.delete(batch.partition);
        p = undefined;
      }
      if (!p || p.chats.size === 0) {
        out.push(batch);
        continue;
      }
      const from = Math.min(...p.chats.values()) + 1;
      const { records, missing } = await readRange(this.opts.log, batch.topic, batch.partition, from, first, (r) => {
        const since = p.chats.get(r.key);
        return (since !== undefined && r.offset > since) || readInboundMeta(r.headers)?.source === 'tick';
      });
      if (missing > 0) {
        missingBy.set(batch.partition, missing);
        this.opts.logger.error({ partition: batch.partition, from, to: first, missing }, 're-deriving rolled-back chats: the log no longer holds some of their records; their states go on without them');
      }
      out.push({ ...batch, records: [...records, ...batch.records] });
    }
    return { batches: out, roundStart, missing: missingBy };
  }

  /**
   * Per partition with a tick in the round, its chats stored with a deadline before the latest
   * tick: the cached state stands in for the stored one (the round steps what it would step).
   */
  private async dueChats(tickAt: ReadonlyMap<number, number>): Promise<Map<number, DueChat[]>> {
    const out = new Map<number, DueChat[]>();
    for (const [partition, at] of tickAt) {
      const stored = await this.states.find({ partition, deadline: { $lt: at } });
      out.set(partition, stored.flatMap((d) => (d.deadline === null ? [] : [{ deadline: d.deadline, doc: this.cache.get(d._id) ?? d }])));
    }
    return out;
  }

  private noteSlow(s: SlowStep): void {
    this.counters.slowSteps++;
    this.opts.logger.warn({ id: s.id, partition: s.partition, offset: s.offset, chatKey: s.chatKey, event: s.event, ms: Math.round(s.ms) }, 'slow step: normalising and stepping one record took long (processed as usual)');
  }

  private setAside(doc: SetAsideDoc): void {
    this.counters.recordsSetAside++;
    this.opts.setAsideTally?.add(doc.stage);
    this.opts.logger.error({ id: doc._id, stage: doc.stage, partition: doc.partition, offset: doc.offset, chatKey: doc.chatKey, event: doc.event, error: doc.error }, 'record set aside: it made the processor throw; its chat keeps its state, processing goes on');
  }

  /**
   * One round (handleRound); a round that failed the same way before, for a reason that may be
   * its records' own, is run a record at a time, and a record whose own round fails is set aside.
   */
  handleBatch(round: readonly RecordBatch[]): Promise<void> {
    return this.rounds.handle(round);
  }

  /**
   * One round: the batches of every partition the fetch returned, folded together into one
   * read of chat states, one append of their events, and one store write. Chats never span
   * partitions, so stepping the partitions one after another keeps each chat's order.
   */
  private async handleRound(round: readonly RecordBatch[]): Promise<void> {
    try {
      await this.runRound(round);
    } catch (err) {
      // Whatever failed (a read too), the retry starts from the store and checks the applied
      // marks again: what failed may be the store losing writes.
      const inRound = new Set(partitionsOf(round));
      this.cache.deleteWhere((d) => inRound.has(d.partition));
      for (const p of inRound) this.nextExpected.delete(p);
      throw err;
    }
  }

  /** Reads, decides, appends and writes one round, then notes what it stored; see the phases below. */
  private async runRound(round: readonly RecordBatch[]): Promise<void> {
    const given = round.filter((b) => b.records.length > 0);
    if (given.length === 0) return;
    const read = await this.readFor(given);
    await Promise.all([this.phrases.refresh(), this.schedules.refresh()]);
    const decided = decideRound(
      read.round,
      { states: read.loaded, ledger: read.ledger, due: read.due },
      { idleMs: this.opts.idleMs, lateMs: this.opts.lateMs, unansweredMs: this.opts.unansweredMs, ...(this.opts.lookbackMs !== undefined ? { lookbackMs: this.opts.lookbackMs } : {}), ...(this.opts.idTag !== undefined ? { idTag: this.opts.idTag } : {}), bannedPhrases: this.phrases.phrasesAt, limitEnd: this.schedules.limitEnd, scheduleAt: this.schedules.scheduleAt, now: Date.now(), step: this.step, clock: () => performance.now() },
      { roundStart: read.roundStart, chats: read.rederiving },
    );
    for (const slow of decided.slow) this.noteSlow(slow);
    const out = decided.events.map((e) => eventRecord(e.key, e.event, e.receivedAt));
    if (this.opts.stallBeforeWriteMs) await new Promise((r) => setTimeout(r, this.opts.stallBeforeWriteMs));
    await this.store(read, decided, out);
    const storedAt = Date.now();
    this.noteStored(read, decided, out.length, storedAt);
    // Operators are told where they see alerts. The round is stored: a failure here only leaves
    // the alert to the next reconcile (the alert sweep), it does not fail the round.
    if (decided.setAside.length > 0) {
      await reconcileSetAsideAlert(this.opts.store).catch((err: unknown) => this.opts.logger.warn({ err }, 'the set-aside alert could not be raised; the alert sweep will'));
    }
    await this.finishRederiving(read, decided, storedAt);
  }

  /**
   * Everything a round reads before it decides: the records (with those of chats found rolled
   * back, read again from the log before them, ./rollback.ts), the chats' states, what their
   * ledgers know, the applied marks and the chats a tick may settle. Throws BatchFencedError if
   * the stored applied mark went back under this processor.
   */
  private async readFor(given: readonly RecordBatch[]): Promise<RoundRead> {
    const partitions = partitionsOf(given);
    for (const batch of given) {
      // A gap means another instance owned this partition meanwhile: cached states may be stale.
      if (this.nextExpected.get(batch.partition) !== batch.records[0]?.offset) {
        this.cache.deleteWhere((d) => d.partition === batch.partition);
        await this.checkAppliedMark(batch);
      }
    }
    const { batches, roundStart, missing } = await this.withRederived(given);
    const round = readRound(batches, this.poisoned, () => performance.now());
    // The reads of a round go out together.
    const [loaded, entries, marks, due] = await Promise.all([
      this.loadStates([...round.chatKeys]),
      this.ledger.fetch(round.ledgerIds),
      appliedMarks(this.stateStore, partitions),
      this.dueChats(round.tickAt),
    ]);
    // A stored mark below the one this processor stored: the store lost writes under a running
    // processor (a failover hidden by retried writes, a restored backup). Its cache covers only
    // the chats it holds; the retry checks the mark against the committed offset instead.
    const wentBack = partitions.filter((p) => {
      const stored = marks.get(p);
      const written = this.markWritten.get(p);
      return stored !== undefined && written !== undefined && stored < written;
    });
    if (wentBack.length > 0) {
      const seen = wentBack.map((p) => `partition ${p}: ${marks.get(p)} < ${this.markWritten.get(p)}`).join(', ');
      for (const p of wentBack) this.markWritten.delete(p);
      throw new BatchFencedError(wentBack, `the stored applied mark went back (${seen}): the store lost writes; checking the chats of the records since`);
    }
    const positions = new Map<string, StatePosition>([...loaded].map(([k, d]) => [k, { partition: d.partition, offset: d.offset }]));
    const rederiving = new Map(partitions.flatMap((p) => {
      const chats = this.rederive.get(p)?.chats;
      return chats ? [[p, chats] as const] : [];
    }));
    return { partitions, batches, roundStart, missing, round, loaded, ledger: this.ledger.resolve(entries, positions), due, rederiving };
  }

  /**
   * Appends the round's events, then writes its ledger entries, set-aside records, chat states
   * and applied marks in one store write. A write refused because a state moved since it was
   * read fails the round as fenced, naming the chats found rolled back if that is why.
   */
  private async store(read: RoundRead, decided: RoundResult, out: readonly AppendRecord[]): Promise<void> {
    const { batches, partitions } = read;
    const { states: touched, readAt } = decided;
    try {
      const lost = batches.filter((b) => b.owned && !b.owned());
      if (lost.length > 0) throw new BatchFencedError(partitionsOf(lost), 'the partition is no longer assigned to this processor');
      // Events are appended before the states are written, so what the write's condition would
      // refuse must be found before the append: otherwise a round stepped from a stale state
      // (cached, then purged or moved on behind the cache) leaves its events in the log and the
      // retry appends its own after them.
      if (out.length > 0) await this.checkFence(readAt);
      await this.opts.log.append(this.opts.topology.sessionEvents, out);
      // Ledger entries and set-aside records before the states, in one store write (one
      // transaction on the embedded store): an entry counts only once a state that includes it
      // is stored, and a stored state past a set-aside record means its document exists.
      await this.stateStore.bulkWriteMany([
        this.ledger.writes(decided.ledger),
        setAsideWrite(decided.setAside),
        {
          collection: CHAT_STATE_COLLECTION,
          ops: [...touched.values()].map((d): BulkOp<Doc> => {
            const before = readAt.get(d._id);
            // Conditional on the offset the state was read at: only the owner that read it may move it.
            return before
              ? { replaceOne: { filter: { _id: d._id, offset: before.offset }, replacement: d, requireMatch: true } }
              : { insertOne: { document: d } };
          }),
        },
        // Last: a mark that survived a loss of writes means what came before it did.
        appliedMarkWrite(new Map(batches.flatMap((b) => {
          const last = b.records[b.records.length - 1];
          return last ? [[b.partition, last.offset + 1] as const] : [];
        }))),
      ]);
    } catch (err) {
      // Nothing of this round is known to be stored: forget it so the retry starts from the store.
      const inRound = new Set(partitions);
      this.cache.deleteWhere((d) => inRound.has(d.partition));
      for (const p of partitions) this.nextExpected.delete(p);
      if (err instanceof WriteConflictError || err instanceof DuplicateKeyError) {
        this.counters.batchesFenced++;
        // Older than what this round stepped from: the store lost writes. The retry re-derives.
        const rollbacks = await this.findRollbacks(readAt).catch(() => []);
        if (rollbacks.length > 0) {
          await this.noteRollbacks(rollbacks, read.roundStart);
          throw new BatchFencedError(partitions, describeRollbacks(rollbacks));
        }
        throw new BatchFencedError(partitions, `a chat state changed since this round read it: ${err.message.slice(0, 400)}`);
      }
      if (err instanceof BatchFencedError) this.counters.batchesFenced++;
      throw err;
    }
  }

  /** The round is stored: its states cached, its counts and positions taken. */
  private noteStored(read: RoundRead, decided: RoundResult, appended: number, storedAt: number): void {
    const rederived = (partition: number, offset: number): boolean => offset < (read.roundStart.get(partition) ?? 0);
    for (const n of read.round.records) if (n && !rederived(n.partition, n.offset)) this.freshness.record(n.receivedAt, storedAt);
    for (const [k, d] of decided.states) this.cache.set(k, d);
    for (const doc of decided.setAside) {
      this.setAside(doc);
      this.poisoned.delete(`${doc.topic}:${doc.partition}:${doc.offset}`);
    }
    // Counted as soon as the round is stored, before the store calls after it: whoever reads
    // the counters once the round's results show sees it whole.
    this.counters.eventsEmitted += appended;
    for (const [k, v] of Object.entries(decided.counted) as [keyof RoundResult['counted'], number][]) this.counters[k] += v;
    for (const batch of read.batches) {
      const last = batch.records[batch.records.length - 1];
      if (!last) continue;
      this.nextExpected.set(batch.partition, last.offset + 1);
      this.markWritten.set(batch.partition, Math.max(this.markWritten.get(batch.partition) ?? 0, last.offset + 1));
    }
  }

  /**
   * A round that re-derived rolled-back chats is stored: each chat its records moved is a
   * rollback confirmed, recorded for verify, and the partition's re-derivation is over (marked
   * recovered, with the records the log no longer held).
   */
  private async finishRederiving(read: RoundRead, decided: RoundResult, storedAt: number): Promise<void> {
    const { counted } = decided;
    const recovered: { partition: number; ids: string[] }[] = [];
    const confirmed: Rollback[] = [];
    for (const p of read.partitions) {
      const done = this.rederive.get(p);
      if (!done) continue;
      this.rederive.delete(p);
      const ids = [...done.ids];
      for (const r of done.candidates.values()) {
        if (!decided.rederived.chats.has(r.chatKey)) continue;
        confirmed.push(r);
        ids.push(rollbackId(r));
      }
      recovered.push({ partition: p, ids });
      this.opts.logger.warn({ partition: p, chats: [...done.chats.keys()].slice(0, 20), records: counted.recordsRederived, events: decided.rederived.events }, 'rolled-back chats re-derived from inbound and stored again');
    }
    if (confirmed.length > 0) {
      this.counters.stateRollbacks += confirmed.length;
      for (const r of confirmed) {
        this.opts.logger.error({ chatKey: r.chatKey, partition: r.partition, storedOffset: r.storedOffset, storedSeq: r.storedSeq, committedOffset: r.knownOffset },
          'chat state rolled back: its stored state was behind records the processor had committed (lost writes); re-derived from inbound');
      }
      await recordRollbacks(this.stateStore, confirmed, storedAt).catch((err: unknown) => this.opts.logger.warn({ err }, 'a chat state rollback could not be recorded for verify'));
    }
    for (const r of recovered) {
      // Records the log no longer held: the state went on without them, which verify reports.
      await markRecovered(this.stateStore, r.ids, counted.recordsRederived, storedAt, read.missing.get(r.partition) ?? 0)
        .catch((err: unknown) => this.opts.logger.warn({ err }, 'a re-derived rollback could not be marked recovered'));
    }
  }
}

/** What a round read before deciding (SessionProcessor.readFor). */
interface RoundRead {
  readonly partitions: number[];
  /** The round's batches, with the records of chats being re-derived before their own. */
  readonly batches: RecordBatch[];
  /** Per partition, the first offset the consumer delivered: records before it are read again. */
  readonly roundStart: Map<number, number>;
  /** Per partition, records the log no longer held for a re-derivation. */
  readonly missing: Map<number, number>;
  readonly round: ReadRound;
  readonly loaded: Map<string, ChatStateDoc>;
  readonly ledger: BatchLedger;
  readonly due: Map<number, DueChat[]>;
  readonly rederiving: Map<number, Map<string, number>>;
}

/** The event sequence a stored state has reached (null for a state too old or odd to say). */
function seqOf(d: ChatStateDoc): number | null {
  return typeof d.state?.context?.seq === 'number' ? d.state.context.seq : null;
}

// No record timestamp: log time is append time on both adapters (what replay-from-time seeks by);
// the event's own time travels in the value. When ingest received the input rides in a header
// (not in the event, which must be the same on every replay), for the projector's freshness.
function eventRecord(key: string, e: SessionEvent, receivedAt: number): AppendRecord {
  return { key, value: JSON.stringify(e), headers: { 'convops-event-type': e.type, 'convops-event-id': e.id, [H.receivedAt]: String(receivedAt) } };
}
