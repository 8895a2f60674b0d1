// Runs arrivals through the real processing, in memory: the facts become the `inbound` records
// the doors write, rounds of them go through the processor's own pure round
// (src/processor/round.ts: normalising, dedupe against the ledger, ticks, the machine), and the
// events it decides go through the projector's own folds. What stands in for the log and the
// store is only bookkeeping: offsets per partition, and maps of what a round wrote (chat states,
// ledger entries). For property tests that need thousands of cases, so no log or store.
import type { AppendRecord, LogRecord, RecordBatch } from '../../src/adapters/log/log.js';
import type { ChatState } from '../../machines/step.js';
import type { SessionEvent } from '../../machines/session-events.js';
import type { Doc } from '../../src/adapters/store/store.js';
import { ledgerDocId, resolveLedger, type LedgerDoc } from '../../src/processor/chat-ledger.js';
import type { ChatStateDoc } from '../../src/processor/chat-state.js';
import { decideRound, readRound, type DueChat, type ReadRound, type RoundFacts, type RoundResult } from '../../src/processor/round.js';
import { tickRecords } from '../../src/processor/ticker.js';
import type { AccountStatsDoc } from '../../src/read-models/account-stats/projection.js';
import type { ChatDoc } from '../../src/read-models/chats/projection.js';
import { PROJECTIONS } from '../../src/read-models/index.js';
import type { MessageDoc } from '../../src/read-models/messages/projection.js';
import type { PaymentDoc } from '../../src/read-models/payments/projection.js';
import type { PpvDoc } from '../../src/read-models/ppvs/projection.js';
import type { ReassignmentDoc } from '../../src/read-models/reassignments/projection.js';
import type { ClockIntervalDoc } from '../../src/read-models/clock-intervals/projection.js';
import type { Positioned } from '../../src/read-models/projection.js';
import type { ReadModel } from '../../src/read-models/names.js';
import { foldEvent, targetsOf } from '../../src/projector/runner.js';
import type { SessionDoc } from '../../src/read-models/sessions/projection.js';
import type { Arrival } from './conversations.js';
import { factRecord } from './inbound-records.js';

export interface Models {
  sessions: Map<string, SessionDoc>;
  chats: Map<string, ChatDoc>;
  messages: Map<string, MessageDoc>;
  payments: Map<string, PaymentDoc>;
  ppvs: Map<string, PpvDoc>;
  reassignments: Map<string, ReassignmentDoc>;
  clockIntervals: Map<string, ClockIntervalDoc>;
  accountStats: Map<string, AccountStatsDoc>;
  states: Map<string, ChatState>;
  events: SessionEvent[];
  /** The same events with the positions the projector would see (one session-events partition, in append order). */
  positioned: Positioned[];
  /** The `inbound` records the arrivals became, in append order. */
  records: LogRecord[];
  /** Where each chat's stored state stands (partition and offset). */
  positions: Map<string, { partition: number; offset: number }>;
}

export interface RunOptions {
  /** Records per round (a round takes the next this many arrivals' records, one batch per partition). */
  readonly roundSize?: number;
  /** `inbound` partitions the chats are spread over; a clock tick goes to each. */
  readonly partitions?: number;
  /** Each account's banned phrases, as the processor's PhraseBook would give them (one list for all time). */
  readonly bannedPhrases?: Readonly<Record<string, readonly string[]>>;
  /** When a wait reaches the unanswered limit in an account's open hours, as the processor's ScheduleBook would give it; absent: wall-clock. */
  readonly limitEnd?: (accountId: string, receivedAt: number, at: number, limitMs: number) => number | undefined;
  /** The unanswered limit (UNANSWERED_CLOSE_SEC); the machine's default when absent. */
  readonly unansweredMs?: number;
}

const TOPIC = 'inbound';

/** Which partition a chat's records go to: any stable spread will do. */
function partitionOf(key: string, partitions: number): number {
  let h = 0;
  for (let i = 0; i < key.length; i++) h = (h * 31 + key.charCodeAt(i)) >>> 0;
  return h % partitions;
}

/** The arrivals as the records the doors and the ticker append, each received when it happened. */
export function appendsOf(arrivals: readonly Arrival[], partitions: number): AppendRecord[] {
  return arrivals.flatMap((a) => (a.kind === 'tick' ? tickRecords(partitions, a.at) : [factRecord(a.fact, a.key, a.fact.at)]));
}

/** Appended records as `inbound` log records. */
function inboundOf(appends: readonly AppendRecord[], partitions: number): LogRecord[] {
  const next = new Map<number, number>();
  const out: LogRecord[] = [];
  for (const r of appends) {
    const partition = r.partition ?? partitionOf(r.key, partitions);
    const offset = next.get(partition) ?? 0;
    next.set(partition, offset + 1);
    out.push({ topic: TOPIC, partition, offset, key: r.key, value: Buffer.from(r.value), headers: r.headers ?? {}, timestamp: r.timestamp ?? 0 });
  }
  return out;
}

/**
 * What the store holds for the processor (chat states, ledger entries) as two maps: the reads
 * the processor makes for a round, and the round's write.
 */
export class RoundStore {
  readonly states = new Map<string, ChatStateDoc>();
  readonly ledger = new Map<string, LedgerDoc>();

  /** The round's chat states, what their ledgers know of its ids, and the chats its ticks may settle. */
  facts(read: ReadRound): RoundFacts {
    const states = new Map<string, ChatStateDoc>();
    for (const k of read.chatKeys) {
      const d = this.states.get(k);
      if (d) states.set(k, d);
    }
    const entries: LedgerDoc[] = [];
    for (const [chatKey, ids] of read.ledgerIds) {
      for (const id of ids) {
        const d = this.ledger.get(ledgerDocId(chatKey, id));
        if (d) entries.push(d);
      }
    }
    const due = new Map<number, DueChat[]>();
    for (const [partition, at] of read.tickAt) {
      due.set(partition, [...this.states.values()].flatMap((d) => (d.partition === partition && d.deadline !== null && d.deadline < at ? [{ deadline: d.deadline, doc: d }] : [])));
    }
    const positions = new Map([...states].map(([k, d]) => [k, { partition: d.partition, offset: d.offset }]));
    return { states, ledger: resolveLedger(entries, positions), due };
  }

  /** The round's store write: ledger entries, then states. */
  write(r: RoundResult): void {
    for (const op of r.ledger.ops()) {
      if ('insertOne' in op) {
        this.ledger.set(op.insertOne.document._id, op.insertOne.document);
      } else if ('updateOne' in op) {
        const id = (op.updateOne.filter as { _id: string })._id;
        const before = this.ledger.get(id);
        if (before) this.ledger.set(id, { ...before, ...(op.updateOne.update as { $set: Partial<LedgerDoc> }).$set });
      }
    }
    for (const [k, d] of r.states) this.states.set(k, d);
  }
}

export function runChats(arrivals: readonly Arrival[], idleMs: number, lateMs: number, opts: RunOptions = {}): Models {
  return runRecords(appendsOf(arrivals, opts.partitions ?? 1), idleMs, lateMs, opts);
}

/** The same over records as the doors append them (a tick: the ticker's records, test/support's tickRecords). */
export function runRecords(appends: readonly AppendRecord[], idleMs: number, lateMs: number, opts: RunOptions = {}): Models {
  const partitions = opts.partitions ?? 1;
  const roundSize = opts.roundSize ?? 1;
  const m: Models = { sessions: new Map(), chats: new Map(), messages: new Map(), payments: new Map(), ppvs: new Map(), reassignments: new Map(), clockIntervals: new Map(), accountStats: new Map(), states: new Map(), events: [], positioned: [], records: [], positions: new Map() };
  const store = new RoundStore();
  const models = { sessions: m.sessions, chats: m.chats, messages: m.messages, payments: m.payments, ppvs: m.ppvs, reassignments: m.reassignments, clock_intervals: m.clockIntervals, account_stats: m.accountStats } as const;
  const docsOf = (model: ReadModel) => models[model] as unknown as Map<string, Doc>;

  const records = inboundOf(appends, partitions);
  m.records = records;
  for (let from = 0; from < records.length; from += roundSize) {
    const byPartition = new Map<number, LogRecord[]>();
    for (const r of records.slice(from, from + roundSize)) byPartition.set(r.partition, [...(byPartition.get(r.partition) ?? []), r]);
    const read = readRound([...byPartition].map(([partition, rs]): RecordBatch => ({ topic: TOPIC, partition, records: rs })));
    const phrases = opts.bannedPhrases;
    const r = decideRound(read, store.facts(read), { idleMs, lateMs, now: 0, ...(phrases ? { bannedPhrases: (accountId: string) => phrases[accountId] ?? [] } : {}), ...(opts.limitEnd ? { limitEnd: opts.limitEnd } : {}), ...(opts.unansweredMs !== undefined ? { unansweredMs: opts.unansweredMs } : {}) });
    if (r.setAside.length > 0) throw new Error(`records set aside: ${r.setAside.map((a) => `${a._id} ${a.stage} ${a.error}`).join('; ')}`);
    store.write(r);
    // The projector's folds, event by event in append order.
    for (const { event } of r.events) {
      const p: Positioned = { event, partition: 0, offset: m.positioned.length };
      m.events.push(event);
      m.positioned.push(p);
      const { nexts } = foldEvent(targetsOf(PROJECTIONS, p), (model, id) => docsOf(model).get(id), p);
      for (const [t, next] of nexts) docsOf(t.projection.name).set(t.id, next);
    }
  }
  for (const [k, d] of store.states) {
    m.states.set(k, d.state);
    m.positions.set(k, { partition: d.partition, offset: d.offset });
  }
  return m;
}
