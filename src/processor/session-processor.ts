// Runs the per-chat session machines over `inbound` and appends their events to
// `session-events`. Exactly-once effects, without transactions:
// 1. events are appended before the chat state moves, with deterministic ids and sequences;
// 2. each chat's state is stored with the last input offset it includes, so a record that is
//    delivered again after a crash is recognised and skipped;
// 3. a crash between 1 and 2 re-emits identical events, which the projector ignores by sequence.
import type { AppendRecord, Consumer, Log, RecordBatch } from '../adapters/log/log.js';
import type { Collection, Doc, DocumentStore } from '../adapters/store/store.js';
import type { ChatInput } from '../../machines/chat-input.js';
import type { SessionEvent } from '../../machines/session-events.js';
import { tickDeadline } from '../../machines/session-machine.js';
import { initialChatState, step, type ChatState } from '../../machines/step.js';
import { H, readInboundMeta } from '../domain/inbound-record.js';
import { normalise } from '../domain/normalise.js';
import { LruMap } from '../support/lru.js';
import type { Logger } from '../support/logger.js';
import type { Topology } from '../topology.js';

export const CHAT_STATE_COLLECTION = 'chat_state';

export interface ChatStateDoc extends Doc {
  readonly state: ChatState;
  readonly partition: number;
  /** Offset of the last `inbound` record folded into `state`. */
  readonly offset: number;
  /** When the open session goes idle (epoch ms); null without an open session. Ticks look for these. */
  readonly deadline: number | null;
}

function deadlineOf(state: ChatState): number | null {
  return tickDeadline(state.context);
}

export interface ProcessorOptions {
  readonly log: Log;
  readonly store: DocumentStore;
  readonly topology: Topology;
  readonly idleMs: number;
  readonly logger: Logger;
  readonly cacheSize?: number;
}

export interface ProcessorCounters {
  recordsApplied: number;
  recordsSkippedAsApplied: number;
  recordsWithoutRouting: number;
  ticks: number;
  eventsEmitted: number;
}

export class SessionProcessor {
  private readonly states: Collection<ChatStateDoc>;
  private readonly cache: LruMap<string, ChatStateDoc>;
  private readonly nextExpected = new Map<number, number>();
  private consumer?: Consumer;
  readonly counters: ProcessorCounters = { recordsApplied: 0, recordsSkippedAsApplied: 0, recordsWithoutRouting: 0, ticks: 0, eventsEmitted: 0 };

  constructor(private readonly opts: ProcessorOptions) {
    this.states = opts.store.collection<ChatStateDoc>(CHAT_STATE_COLLECTION);
    this.cache = new LruMap(opts.cacheSize ?? 10_000);
  }

  async start(): Promise<void> {
    await this.states.createIndex({ keys: { partition: 1, deadline: 1 } });
    this.consumer = await this.opts.log.consume({
      groupId: this.opts.topology.processorGroup,
      topics: [this.opts.topology.inbound],
      fromBeginning: true,
      onBatch: (batch) => this.handleBatch(batch),
      onError: (err, batch) => this.opts.logger.error({ err, partition: batch.partition }, 'session processor batch failed; retrying'),
    });
  }

  async stop(): Promise<void> {
    await this.consumer?.stop();
    this.consumer = undefined;
  }

  private async loadStates(keys: string[]): Promise<Map<string, ChatStateDoc>> {
    const found = new Map<string, ChatStateDoc>();
    const missing: string[] = [];
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

  /** Chats of a partition whose open session is idle at `at`: stored ones, overlaid with this batch's newer states. */
  private async dueChats(partition: number, at: number, inBatch: Map<string, ChatStateDoc>): Promise<ChatStateDoc[]> {
    const due = new Map<string, ChatStateDoc>();
    for (const d of await this.states.find({ partition, deadline: { $lt: at } })) due.set(d._id, inBatch.get(d._id) ?? this.cache.get(d._id) ?? d);
    for (const d of inBatch.values()) if (d.partition === partition) due.set(d._id, d);
    return [...due.values()]
      .filter((d) => d.deadline !== null && d.deadline < at)
      .sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0));
  }

  async handleBatch(batch: RecordBatch): Promise<void> {
    const first = batch.records[0];
    if (!first) return;
    // A gap means another instance owned this partition meanwhile: cached states may be stale.
    if (this.nextExpected.get(batch.partition) !== first.offset) {
      this.cache.deleteWhere((d) => d.partition === batch.partition);
    }
    const states = await this.loadStates([...new Set(batch.records.map((r) => r.key))]);
    const touched = new Map<string, ChatStateDoc>();
    const out: AppendRecord[] = [];
    const apply = (key: string, partition: number, offset: number, state: ChatState, input: ChatInput, receivedAt: number): void => {
      const result = step(state, input);
      const next: ChatStateDoc = { _id: key, state: result.state, partition, offset, deadline: deadlineOf(result.state) };
      states.set(key, next);
      touched.set(key, next);
      for (const e of result.events) out.push(eventRecord(key, { ...e, source: { partition, offset } }, receivedAt));
    };
    for (const rec of batch.records) {
      const meta = readInboundMeta(rec.headers);
      if (!meta) {
        this.counters.recordsWithoutRouting++;
        continue;
      }
      if (meta.source === 'tick') {
        // A tick steps every chat of its partition whose idle deadline it passed.
        for (const due of await this.dueChats(rec.partition, meta.receivedAt, states)) {
          if (due.offset >= rec.offset) continue;
          apply(due._id, rec.partition, rec.offset, due.state, { type: 'chat.tick', dedupeKey: meta.dedupeKey, at: meta.receivedAt }, meta.receivedAt);
        }
        this.counters.ticks++;
        continue;
      }
      const current = states.get(rec.key);
      if (current && current.partition === rec.partition && rec.offset <= current.offset) {
        this.counters.recordsSkippedAsApplied++;
        continue;
      }
      const state = current?.state ?? initialChatState({ accountId: meta.accountId, chatId: meta.chatId, idleMs: this.opts.idleMs });
      apply(rec.key, rec.partition, rec.offset, state, normalise(meta, rec.value), meta.receivedAt);
      this.counters.recordsApplied++;
    }
    try {
      await this.opts.log.append(this.opts.topology.sessionEvents, out);
      await this.states.bulkWrite([...touched.values()].map((d) => ({ replaceOne: { filter: { _id: d._id }, replacement: d, upsert: true } })));
    } catch (err) {
      // Nothing of this batch is known to be stored: forget it so the retry starts from the store.
      for (const k of touched.keys()) this.cache.delete(k);
      this.nextExpected.delete(batch.partition);
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
