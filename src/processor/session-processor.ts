// Runs the per-chat session machines over `inbound` and appends their events to
// `session-events`. Exactly-once effects, without transactions:
// 1. events are appended before the chat state moves, with deterministic ids and sequences;
// 2. the ids the batch admitted go to the chat ledger, visible only once the state is stored;
// 3. each chat's state is stored with the last input offset it includes, by a conditional
//    write on the offset it was read at: a processor that lost its partition (paused past a
//    rebalance) cannot put an older state over a newer one;
// 4. a record delivered again after a crash is recognised by that offset and skipped; a crash
//    between 1 and 3 re-emits identical events, which the projector ignores by sequence.
import type { AppendRecord, Consumer, Log, RecordBatch } from '../adapters/log/log.js';
import { DuplicateKeyError, WriteConflictError, type BulkOp, type Collection, type Doc, type DocumentStore } from '../adapters/store/store.js';
import type { ChatInput } from '../../machines/chat-input.js';
import { admit, idsOf } from '../../machines/ledger.js';
import type { SessionEvent } from '../../machines/session-events.js';
import { tickDue } from '../../machines/session-machine.js';
import { initialChatState, step, type ChatState } from '../../machines/step.js';
import { isLegacyState, upgradeChatState } from '../../machines/upgrade.js';
import { H, readInboundMeta } from '../domain/inbound-record.js';
import { normalise } from '../domain/normalise.js';
import { LruMap } from '../support/lru.js';
import type { Logger } from '../support/logger.js';
import type { Topology } from '../topology.js';
import { ChatLedger, type StatePosition } from './chat-ledger.js';

export const CHAT_STATE_COLLECTION = 'chat_state';

export interface ChatStateDoc extends Doc {
  readonly state: ChatState;
  readonly partition: number;
  /** Offset of the last `inbound` record folded into `state`. */
  readonly offset: number;
  /** Clock time after which a tick settles something in this chat; null when nothing waits. Ticks look for these. */
  readonly deadline: number | null;
}

export interface ProcessorOptions {
  readonly log: Log;
  readonly store: DocumentStore;
  readonly topology: Topology;
  readonly idleMs: number;
  readonly lateMs: number;
  readonly logger: Logger;
  readonly cacheSize?: number;
  /** Fault injection (tests): wait between computing a batch and writing it, as a hung store call would. */
  readonly stallBeforeWriteMs?: number;
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
}

/** This processor no longer owns the partition, or another one wrote newer states: the batch must not land. */
export class BatchFencedError extends Error {
  constructor(partition: number, reason: string) {
    super(`batch of partition ${partition} fenced: ${reason}`);
    this.name = 'BatchFencedError';
  }
}

interface Normalised {
  readonly key: string;
  readonly partition: number;
  readonly offset: number;
  readonly receivedAt: number;
  readonly input: ChatInput;
  readonly accountId: string;
  readonly chatId: string;
}

export class SessionProcessor {
  private readonly states: Collection<ChatStateDoc>;
  private readonly ledger: ChatLedger;
  private readonly cache: LruMap<string, ChatStateDoc>;
  private readonly nextExpected = new Map<number, number>();
  private consumer?: Consumer;
  readonly counters: ProcessorCounters = {
    recordsApplied: 0, recordsSkippedAsApplied: 0, recordsDuplicate: 0, recordsWithoutRouting: 0, ticks: 0, eventsEmitted: 0, batchesFenced: 0,
  };

  constructor(private readonly opts: ProcessorOptions) {
    this.states = opts.store.collection<ChatStateDoc>(CHAT_STATE_COLLECTION);
    this.ledger = new ChatLedger(opts.store);
    this.cache = new LruMap(opts.cacheSize ?? 10_000);
  }

  async start(): Promise<void> {
    await this.states.createIndex({ keys: { partition: 1, deadline: 1 } });
    this.consumer = await this.opts.log.consume({
      groupId: this.opts.topology.processorGroup,
      topics: [this.opts.topology.inbound],
      fromBeginning: true,
      onBatch: (batch) => this.handleBatch(batch),
      onError: (err, batch) => {
        if (err instanceof BatchFencedError) this.opts.logger.warn({ partition: batch.partition, reason: err.message }, 'session processor batch fenced; re-reading');
        else this.opts.logger.error({ err, partition: batch.partition }, 'session processor batch failed; retrying');
      },
    });
  }

  async stop(): Promise<void> {
    await this.consumer?.stop();
    this.consumer = undefined;
  }

  private async loadStates(keys: string[]): Promise<Map<string, ChatStateDoc>> {
    const found = new Map<string, ChatStateDoc>();
    const missing: string[] = [];
    // The cache is trusted only where the store still holds the offset it remembers: another
    // processor may have moved a state on, or an admin purge removed it. One light read.
    const cachedKeys = keys.filter((k) => this.cache.get(k) !== undefined);
    if (cachedKeys.length > 0) {
      const stored = new Map((await this.states.find({ _id: { $in: cachedKeys } }, { projection: { offset: 1 } })).map((d) => [d._id, d.offset]));
      for (const k of cachedKeys) if (stored.get(k) !== this.cache.get(k)?.offset) this.cache.delete(k);
    }
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

  /** Chats of a partition a tick at `at` would settle: stored ones, overlaid with this batch's newer states. */
  private async dueChats(partition: number, at: number, inBatch: Map<string, ChatStateDoc>): Promise<ChatStateDoc[]> {
    const due = new Map<string, ChatStateDoc>();
    for (const d of await this.states.find({ partition, deadline: { $lt: at } })) due.set(d._id, inBatch.get(d._id) ?? this.cache.get(d._id) ?? d);
    for (const d of inBatch.values()) if (d.partition === partition) due.set(d._id, d);
    return [...due.values()]
      .filter((d) => d.deadline !== null && d.deadline < at)
      .sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0));
  }

  private normaliseBatch(batch: RecordBatch): (Normalised | null)[] {
    return batch.records.map((rec) => {
      const meta = readInboundMeta(rec.headers);
      if (!meta) return null;
      return { key: rec.key, partition: rec.partition, offset: rec.offset, receivedAt: meta.receivedAt, input: normalise(meta, rec.value), accountId: meta.accountId, chatId: meta.chatId };
    });
  }

  async handleBatch(batch: RecordBatch): Promise<void> {
    const first = batch.records[0];
    if (!first) return;
    // A gap means another instance owned this partition meanwhile: cached states may be stale.
    if (this.nextExpected.get(batch.partition) !== first.offset) {
      this.cache.deleteWhere((d) => d.partition === batch.partition);
    }
    const normalised = this.normaliseBatch(batch);
    const loaded = await this.loadStates([...new Set(batch.records.map((r) => r.key))]);
    const positions = new Map<string, StatePosition>([...loaded].map(([k, d]) => [k, { partition: d.partition, offset: d.offset }]));
    const wanted = new Map<string, string[]>();
    for (const n of normalised) if (n) wanted.set(n.key, [...(wanted.get(n.key) ?? []), ...idsOf(n.input)]);
    const ledger = await this.ledger.lookup(wanted, positions);
    // States stored before the ledger existed: today's shape, and their remembered ids into the ledger.
    const upgraded = (doc: ChatStateDoc): ChatStateDoc => {
      if (!isLegacyState(doc.state)) return doc;
      const u = upgradeChatState(doc.state, this.opts.lateMs);
      ledger.remember(doc._id, doc.partition, doc.offset, u.remember);
      return { ...doc, state: u.state };
    };
    for (const [k, d] of loaded) loaded.set(k, upgraded(d));

    const states = new Map(loaded);
    const touched = new Map<string, ChatStateDoc>();
    // What each touched chat's stored state was when this batch read it: the write's condition.
    const readAt = new Map<string, ChatStateDoc | null>();
    const out: AppendRecord[] = [];
    const apply = (key: string, partition: number, offset: number, state: ChatState, input: ChatInput, receivedAt: number): void => {
      if (!readAt.has(key)) readAt.set(key, states.get(key) ?? null);
      const result = step(state, input);
      const next: ChatStateDoc = { _id: key, state: result.state, partition, offset, deadline: tickDue(result.state.context) };
      states.set(key, next);
      touched.set(key, next);
      for (const e of result.events) out.push(eventRecord(key, { ...e, source: { partition, offset } }, receivedAt));
    };
    for (const n of normalised) {
      if (!n) {
        this.counters.recordsWithoutRouting++;
        continue;
      }
      if (n.input.type === 'chat.tick') {
        // A tick steps every chat of its partition it would settle.
        this.counters.ticks++;
        for (const due of await this.dueChats(n.partition, n.receivedAt, states)) {
          if (due.offset >= n.offset) continue;
          if (!states.has(due._id)) states.set(due._id, upgraded(due));
          apply(due._id, n.partition, n.offset, (states.get(due._id) ?? due).state, n.input, n.receivedAt);
        }
        continue;
      }
      const current = states.get(n.key);
      if (current && current.partition === n.partition && n.offset <= current.offset) {
        this.counters.recordsSkippedAsApplied++;
        continue;
      }
      const admission = admit(n.input, (id) => ledger.known(n.key, id));
      if (admission.kind === 'duplicate') {
        this.counters.recordsDuplicate++;
        continue;
      }
      ledger.remember(n.key, n.partition, n.offset, admission.remember);
      const state = current?.state ?? initialChatState({ accountId: n.accountId, chatId: n.chatId, idleMs: this.opts.idleMs, lateMs: this.opts.lateMs });
      apply(n.key, n.partition, n.offset, state, admission.input, n.receivedAt);
      this.counters.recordsApplied++;
    }
    if (this.opts.stallBeforeWriteMs) await new Promise((r) => setTimeout(r, this.opts.stallBeforeWriteMs));
    try {
      if (batch.owned && !batch.owned()) throw new BatchFencedError(batch.partition, 'the partition is no longer assigned to this processor');
      await this.opts.log.append(this.opts.topology.sessionEvents, out);
      // Ledger entries before the states, in one store write (one transaction on the embedded
      // store): an entry counts only once a state that includes it is stored.
      await this.opts.store.bulkWriteMany([
        this.ledger.writes(ledger),
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
      ]);
    } catch (err) {
      // Nothing of this batch is known to be stored: forget it so the retry starts from the store.
      this.cache.deleteWhere((d) => d.partition === batch.partition);
      this.nextExpected.delete(batch.partition);
      if (err instanceof WriteConflictError || err instanceof DuplicateKeyError) {
        this.counters.batchesFenced++;
        throw new BatchFencedError(batch.partition, 'a newer chat state is stored');
      }
      if (err instanceof BatchFencedError) this.counters.batchesFenced++;
      throw err;
    }
    for (const [k, d] of touched) this.cache.set(k, d);
    this.counters.eventsEmitted += out.length;
    const last = batch.records[batch.records.length - 1];
    if (last) this.nextExpected.set(batch.partition, last.offset + 1);
  }
}

// No record timestamp: log time is append time on both adapters (what replay-from-time seeks by);
// the event's own time travels in the value. When ingest received the input rides in a header
// (not in the event, which must be the same on every replay), for the projector's freshness.
function eventRecord(key: string, e: SessionEvent, receivedAt: number): AppendRecord {
  return { key, value: JSON.stringify(e), headers: { 'convops-event-type': e.type, 'convops-event-id': e.id, [H.receivedAt]: String(receivedAt) } };
}
