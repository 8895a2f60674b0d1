// One processor round as a pure function. Given a round's `inbound` records and what the store
// holds for them (chat states, what the chats' ledgers know, the chats a clock tick may settle),
// it decides everything the round does: the states the chats move to, the session events to
// append, the records set aside and why, and the ledger entries to write. No I/O, no clock, no
// metrics: the processor (./session-processor.ts) reads, calls this, then fences, appends and
// writes. So a round run live, run again after a crash, run over records read again to
// re-derive a rolled-back chat (./rollback.ts), or run by a test with no store, decides the same.
//
// Two steps, because what the round must read depends on its records: `readRound` normalises
// and says which states and ledger ids to read; `decideRound` takes those facts and decides.
import { matchPhrases } from '../domain/banned-phrases.js';
import type { LogRecord, RecordBatch } from '../adapters/log/log.js';
import type { ChatInput } from '../../machines/chat-input.js';
import { dedupe, idsOf } from '../../machines/dedupe.js';
import { sessionAfter, type SessionEvent } from '../../machines/session-events.js';
import type { BusinessClock } from '../domain/business-hours.js';
import { withBusinessTime } from '../domain/session-business-time.js';
import { dueAt, tickDue } from '../../machines/session-machine.js';
import { initialChatState, step, type ChatState } from '../../machines/step.js';
import { DEFAULT_UNANSWERED_MS } from '../../machines/chat-context.js';
import { readInboundMeta, type InboundSource } from '../domain/inbound-record.js';
import { carriedInput, normalise } from '../domain/normalise.js';
import { positionOf } from '../pipeline/repeat-failures.js';
import type { BatchLedger } from './chat-ledger.js';
import { checkStoredFormat, type ChatStateDoc } from './chat-state.js';
import { bodyPrefix, errorMessage, RETRY_OF_HEADER, setAsideId, type SetAsideDoc, type SetAsideStage } from '../pipeline/set-aside.js';

/**
 * A record whose normalise + step takes longer than this is reported (`RoundResult.slow`).
 * Never set aside for it: the decision would depend on wall time (machine load, GC pauses), so
 * a redelivery or a replay could decide differently and the derived state would diverge. The
 * step is synchronous and cannot be cut short anyway; what bounds it is the size of its input,
 * which is bounded where records are accepted and normalised.
 */
export const SLOW_STEP_MS = 100;

export interface Routed {
  readonly topic: string;
  readonly key: string;
  readonly partition: number;
  readonly offset: number;
  readonly receivedAt: number;
  readonly accountId: string;
  readonly chatId: string;
  readonly source: InboundSource;
  readonly event: string;
  readonly raw: Buffer;
  /** The set-aside record this record is an admin's retry of (RETRY_OF_HEADER), or null. */
  readonly retryOf: string | null;
  /** Time normalise took, counted with the step's (0 without a clock). */
  readonly normaliseMs: number;
}

export interface Normalised extends Routed {
  readonly input: ChatInput;
}

/** A record whose normalise threw, or that is set aside because writing what it produced failed twice. */
export interface Unnormalisable extends Routed {
  readonly error: string;
  readonly stage: 'normalise' | 'write';
}

/** A record as the round takes it; null: no routing headers (not a record of any chat). */
export type RoundRecord = Normalised | Unnormalisable | null;

export interface RoundSettings {
  readonly idleMs: number;
  readonly lateMs: number;
  /** The unanswered limit (machines/chat-context.ts); DEFAULT_UNANSWERED_MS when absent. */
  readonly unansweredMs?: number;
  /** The converter model's lookback (machines/credit-models.ts); its default when absent. */
  readonly lookbackMs?: number;
  /** The definitions generation's id tag (machines/chat-context.ts); absent in the first generation. */
  readonly idTag?: string;
  /** An account's banned phrases in force at a time (accounts/banned-phrases-store.ts); none when absent. */
  readonly bannedPhrases?: (accountId: string, at: number) => readonly string[];
  /**
   * When a wait that began at `at` (received at `receivedAt`) reaches `limitMs` of the account's
   * open hours, by the schedule in force then (accounts/business-hours-store.ts ScheduleBook);
   * undefined, or absent: the limit is wall-clock.
   */
  readonly limitEnd?: (accountId: string, receivedAt: number, at: number, limitMs: number) => number | undefined;
  /**
   * The account's schedule in force for a record received then (the same book); each emitted
   * session summary then carries its figures in open hours (domain/session-business-time.ts).
   * Absent: summaries go out as the chart made them.
   */
  readonly scheduleAt?: (accountId: string, receivedAt: number) => BusinessClock | null;
  /** Wall time the round's set-aside documents are stamped with: for operators, never for decisions. */
  readonly now: number;
  /** The machine's step (machines/step.ts); the processor's failpoint wraps it. */
  readonly step?: typeof step;
  /** A monotonic clock (ms) to time each record's normalise + step for `slow`; absent: nothing is timed. */
  readonly clock?: () => number;
}

/** A round's records, normalised, and what must be read for them. */
export interface ReadRound {
  readonly records: readonly RoundRecord[];
  /** Every chat key of the round's records: their stored states are read. */
  readonly chatKeys: readonly string[];
  /** Per chat, the ids its records are known by: their ledger entries are read. */
  readonly ledgerIds: ReadonlyMap<string, readonly string[]>;
  /** Per partition, the time of its latest clock tick: its chats stored as due before then are read. */
  readonly tickAt: ReadonlyMap<number, number>;
}

/** A chat stored with a deadline before a tick of its partition. */
export interface DueChat {
  /** The stored deadline: what a tick selects by. */
  readonly deadline: number;
  /** The state to step: the processor's cached one when it has it, else the stored one. */
  readonly doc: ChatStateDoc;
}

/** What the store holds for a round. */
export interface RoundFacts {
  /** The states of the round's chats (cached or stored); a chat without one starts fresh. */
  readonly states: ReadonlyMap<string, ChatStateDoc>;
  /** What the chats durably know of the round's ids (ChatLedger.resolve); the round works on a fork of it. */
  readonly ledger: BatchLedger;
  /** Per partition with a tick, the chats stored with a deadline before its latest tick (ReadRound.tickAt). */
  readonly due: ReadonlyMap<number, readonly DueChat[]>;
}

/** Chats being re-derived after the store lost writes (./rollback.ts). */
export interface Rederiving {
  /** Per partition, the first offset the consumer delivered: records before it are read again to re-derive. */
  readonly roundStart: ReadonlyMap<number, number>;
  /** Per partition, the chats being re-derived: a tick read again steps only these. */
  readonly chats: ReadonlyMap<number, ReadonlyMap<string, number>>;
}

export const NOT_REDERIVING: Rederiving = { roundStart: new Map(), chats: new Map() };

export interface RoundEvent {
  readonly key: string;
  /** With its source: the inbound position of the record that made it. */
  readonly event: SessionEvent;
  /** When ingest received the record (for the projector's freshness; not part of the event). */
  readonly receivedAt: number;
}

/** Counted once the round is stored: a round that fails and is retried counts once. */
export interface RoundCounts {
  recordsWithoutRouting: number;
  ticks: number;
  recordsSkippedAsApplied: number;
  recordsDuplicate: number;
  recordsApplied: number;
  recordsRederived: number;
}

export interface SlowStep {
  readonly id: string;
  readonly partition: number;
  readonly offset: number;
  readonly chatKey: string;
  readonly event: string;
  readonly ms: number;
}

export interface RoundResult {
  /** The chats' new states. */
  readonly states: ReadonlyMap<string, ChatStateDoc>;
  /** What each of those chats' stored state was when the round read it (null: none): the write's condition. */
  readonly readAt: ReadonlyMap<string, ChatStateDoc | null>;
  /** The session events to append, in order. Re-derived records' events are not here (they are in the log). */
  readonly events: readonly RoundEvent[];
  readonly setAside: readonly SetAsideDoc[];
  /** The ledger as the round leaves it: its entries to write (ChatLedger.writes). */
  readonly ledger: BatchLedger;
  readonly counted: RoundCounts;
  /** Events re-made by re-derived records (not appended), and the chats those records moved. */
  readonly rederived: { readonly events: number; readonly chats: ReadonlySet<string> };
  /** Records whose normalise + step took longer than SLOW_STEP_MS (by `settings.clock`). */
  readonly slow: readonly SlowStep[];
}

/**
 * Normalises a round's batches (partitions one after another, each in offset order) and says
 * what to read for them. `poisoned`: records whose own round failed twice the same way (by
 * position, ../pipeline/repeat-failures.ts), with the error: set aside with stage 'write'.
 */
export function readRound(batches: readonly RecordBatch[], poisoned: ReadonlyMap<string, string> = new Map(), clock?: () => number): ReadRound {
  const records = batches.flatMap((b) => b.records.map((rec) => take(rec, poisoned, clock)));
  const ledgerIds = new Map<string, string[]>();
  const tickAt = new Map<number, number>();
  for (const n of records) {
    if (!n || !('input' in n)) continue;
    if (n.input.type === 'chat.tick') tickAt.set(n.partition, Math.max(tickAt.get(n.partition) ?? Number.NEGATIVE_INFINITY, n.receivedAt));
    ledgerIds.set(n.key, [...(ledgerIds.get(n.key) ?? []), ...idsOf(n.input)]);
  }
  const chatKeys = [...new Set(batches.flatMap((b) => b.records.map((r) => r.key)))];
  return { records, chatKeys, ledgerIds, tickAt };
}

function take(rec: LogRecord, poisoned: ReadonlyMap<string, string>, clock: (() => number) | undefined): RoundRecord {
  const meta = readInboundMeta(rec.headers);
  if (!meta) return null;
  const routed = {
    topic: rec.topic, key: rec.key, partition: rec.partition, offset: rec.offset, receivedAt: meta.receivedAt, accountId: meta.accountId, chatId: meta.chatId,
    source: meta.source, event: meta.event, raw: rec.value, retryOf: rec.headers[RETRY_OF_HEADER]?.slice(0, 600) ?? null,
  };
  const poison = poisoned.get(positionOf(rec));
  if (poison !== undefined) return { ...routed, error: poison, stage: 'write', normaliseMs: 0 };
  const t0 = clock?.() ?? 0;
  try {
    const input = carriedInput(meta, rec.headers) ?? normalise(meta, rec.value);
    return { ...routed, input, normaliseMs: (clock?.() ?? 0) - t0 };
  } catch (err) {
    return { ...routed, error: errorMessage(err), stage: 'normalise', normaliseMs: (clock?.() ?? 0) - t0 };
  }
}

type StepOutcome = { readonly ok: true; readonly result: ReturnType<typeof step>; readonly ms: number } | { readonly ok: false; readonly error: string; readonly ms: number };

/**
 * Steps the round's records, in order, from the states in `facts`. Chats never span
 * partitions, so stepping the partitions one after another keeps each chat's order. Throws
 * StoredFormatError when a stored state it would step is not in this version's format
 * (checkStoredFormat in ./chat-state.ts): the round decides nothing.
 */
export function decideRound(read: ReadRound, facts: RoundFacts, settings: RoundSettings, rederiving: Rederiving = NOT_REDERIVING): RoundResult {
  const round = new Round(facts, settings, rederiving);
  for (const n of read.records) {
    if (!n) round.counted.recordsWithoutRouting++;
    else if (!('input' in n)) round.unnormalisable(n);
    else if (n.input.type === 'chat.tick') round.tick(n);
    else round.record(n);
  }
  return round.result();
}

/** One round's decisions as they accumulate: the chats' states, events, set-aside records and counts. */
class Round {
  readonly counted: RoundCounts = { recordsWithoutRouting: 0, ticks: 0, recordsSkippedAsApplied: 0, recordsDuplicate: 0, recordsApplied: 0, recordsRederived: 0 };
  private readonly step: typeof step;
  private readonly ledger: BatchLedger;
  private readonly unansweredMs: number;
  /** Every state the round knows: read for it, or moved by it. */
  private readonly states = new Map<string, ChatStateDoc>();
  private readonly touched = new Map<string, ChatStateDoc>();
  private readonly readAt = new Map<string, ChatStateDoc | null>();
  private readonly events: RoundEvent[] = [];
  private readonly asides: SetAsideDoc[] = [];
  private readonly slow: SlowStep[] = [];
  private eventsRederived = 0;
  /** Chats a re-derived record moved: their stored state had lost it. */
  private readonly rederivedChats = new Set<string>();

  constructor(private readonly facts: RoundFacts, private readonly settings: RoundSettings, private readonly rederiving: Rederiving) {
    this.step = settings.step ?? step;
    this.ledger = facts.ledger.fork();
    this.unansweredMs = settings.unansweredMs ?? DEFAULT_UNANSWERED_MS;
    // A stored state in a format this version does not read fails the round (checkStoredFormat).
    for (const [k, d] of facts.states) {
      checkStoredFormat(d);
      this.states.set(k, d);
    }
  }

  result(): RoundResult {
    return {
      states: this.touched, readAt: this.readAt, events: this.events, setAside: this.asides, ledger: this.ledger, counted: this.counted,
      rederived: { events: this.eventsRederived, chats: this.rederivedChats }, slow: this.slow,
    };
  }

  /** A record read again to re-derive a chat whose stored state lost it (./rollback.ts). */
  private rederived(partition: number, offset: number): boolean {
    return offset < (this.rederiving.roundStart.get(partition) ?? 0);
  }

  /** A tick steps every chat of its partition it would settle. */
  tick(n: Normalised): void {
    // A tick read again steps only the chats being re-derived: the others' states are whole.
    const only = this.rederived(n.partition, n.offset) ? this.rederiving.chats.get(n.partition) : undefined;
    if (only) this.counted.recordsRederived++;
    else this.counted.ticks++;
    for (const due of this.dueChats(n.partition, n.receivedAt)) {
      if (due.offset >= n.offset) continue;
      if (only && !only.has(due._id)) continue;
      if (!this.states.has(due._id)) {
        checkStoredFormat(due);
        this.states.set(due._id, due);
      }
      const state = (this.states.get(due._id) ?? due).state;
      const stepped = this.tryStep(state, n.input);
      const id = setAsideId(n.topic, n.partition, n.offset, due._id);
      this.noteDuration(id, n, due._id, n.normaliseMs + stepped.ms);
      if (stepped.ok) {
        this.apply(due._id, n.partition, n.offset, stepped.result, n.receivedAt);
      } else {
        // This chat's part of the tick is set aside. No deadline: ticks stop revisiting a
        // state that throws on them (one document, not one per tick); its next record
        // steps it again and sets the deadline afresh.
        this.setAside(id, n, due._id, 'step', stepped.error);
        this.put({ _id: due._id, state, partition: n.partition, offset: n.offset, deadline: null });
      }
    }
  }

  /**
   * Normalise threw, or writing what the record produced failed twice: set aside. The chat stays
   * as it was, its offset past the record (a clock record belongs to no chat: set aside only). A
   * record whose write failed leaves its chat's state alone too: that write may be what fails
   * (a key the store refuses).
   */
  unnormalisable(n: Unnormalisable): void {
    const current = this.states.get(n.key);
    if (current && current.partition === n.partition && n.offset <= current.offset) {
      this.counted.recordsSkippedAsApplied++;
      return;
    }
    const id = setAsideId(n.topic, n.partition, n.offset);
    this.noteDuration(id, n, n.key, n.normaliseMs);
    this.setAside(id, n, n.key, n.stage, n.error);
    if (n.source === 'tick' || n.stage === 'write') return;
    const state = current?.state ?? this.fresh(n);
    this.put({ _id: n.key, state, partition: n.partition, offset: n.offset, deadline: dueAt(state.context) });
  }

  /** A chat's own record: skipped if its state has it, dropped if the ledger knows it, else stepped. */
  record(n: Normalised): void {
    const current = this.states.get(n.key);
    if (current && current.partition === n.partition && n.offset <= current.offset) {
      this.counted.recordsSkippedAsApplied++;
      return;
    }
    const admission = dedupe(n.input, (known) => this.ledger.known(n.key, known));
    if (admission.kind === 'duplicate') {
      this.counted.recordsDuplicate++;
      return;
    }
    const id = setAsideId(n.topic, n.partition, n.offset);
    const state = this.settledBefore(current?.state ?? this.fresh(n), n);
    const stepped = this.tryStep(state, this.judged(admission.input, n, state.context.unansweredMs));
    this.noteDuration(id, n, n.key, n.normaliseMs + stepped.ms);
    if (!stepped.ok) {
      // Only this record's result is dropped (the step is pure): the chat keeps its state,
      // with its offset past the record, and the ledger does not take the record's ids.
      this.setAside(id, n, n.key, 'step', stepped.error);
      this.put({ _id: n.key, state, partition: n.partition, offset: n.offset, deadline: dueAt(state.context) });
      return;
    }
    this.ledger.remember(n.key, n.partition, n.offset, admission.remember);
    this.apply(n.key, n.partition, n.offset, stepped.result, n.receivedAt);
    if (this.rederived(n.partition, n.offset)) this.counted.recordsRederived++;
    else this.counted.recordsApplied++;
  }

  /**
   * The chat as a tick at the record's receipt would have left it, when one was due by then: a
   * record received after its chat's open session was due to settle (its deadline and the
   * allowed lateness passed, its arrivals idle as long) does not go into that session, whether
   * or not a clock tick got there first. So a session readers have shown closed for longer than
   * the lateness is never reopened by a reply that comes later, and what a record does no longer
   * depends on where the ticks fell. Deterministic: the receipt time is in the log.
   */
  private settledBefore(state: ChatState, n: Normalised): ChatState {
    const due = tickDue(state.context);
    if (due === null || !(n.receivedAt > due) || n.input.type === 'chat.tick') return state;
    const settled = this.tryStep(state, { type: 'chat.tick', dedupeKey: `settle-before:${n.partition}:${n.offset}`, at: n.receivedAt });
    // A state that throws on a tick is left as it is: the record's own step decides.
    if (!settled.ok) return state;
    this.apply(n.key, n.partition, n.offset, settled.result, n.receivedAt);
    return settled.result.state;
  }

  /**
   * A human reply with the account's banned phrases it contains, by the list in force when it
   * was received; a fan message with when its wait would reach the unanswered limit in the
   * account's open hours, by the schedule in force when it was received.
   */
  private judged(input: ChatInput, n: Normalised, limitMs: number): ChatInput {
    // The chat's own limit (a chat keeps the one it started with).
    if (input.type === 'chat.message' && input.sender === 'fan' && this.settings.limitEnd && limitMs > 0) {
      const end = this.settings.limitEnd(n.accountId, n.receivedAt, input.at, limitMs);
      return end === undefined ? input : { ...input, waitEndsAt: end };
    }
    if (input.type !== 'chat.message' || input.sender !== 'human' || !this.settings.bannedPhrases) return input;
    const phrases = this.settings.bannedPhrases(n.accountId, n.receivedAt);
    if (phrases.length === 0) return input;
    const found = matchPhrases(input.text, phrases);
    return found.length === 0 ? input : { ...input, bannedPhrases: found };
  }

  private tryStep(state: ChatState, input: ChatInput): StepOutcome {
    const clock = this.settings.clock;
    const t0 = clock?.() ?? 0;
    try {
      const result = this.step(state, input);
      return { ok: true, result, ms: (clock?.() ?? 0) - t0 };
    } catch (err) {
      return { ok: false, error: errorMessage(err), ms: (clock?.() ?? 0) - t0 };
    }
  }

  private put(next: ChatStateDoc): void {
    if (!this.readAt.has(next._id)) this.readAt.set(next._id, this.states.get(next._id) ?? null);
    this.states.set(next._id, next);
    this.touched.set(next._id, next);
  }

  private apply(key: string, partition: number, offset: number, result: ReturnType<typeof step>, receivedAt: number): void {
    this.put({ _id: key, state: result.state, partition, offset, deadline: dueAt(result.state.context) });
    // A re-derived record's events are in session-events already (its state was stored after
    // they were appended): the same step from the same state makes the same ones.
    if (this.rederived(partition, offset)) {
      this.eventsRederived += result.events.length;
      this.rederivedChats.add(key);
      return;
    }
    for (const e of result.events) this.events.push({ key, event: { ...this.timed(e, receivedAt), source: { partition, offset } }, receivedAt });
  }

  /** The event with its session's figures in open hours, where the account had a schedule when the record was received. */
  private timed(e: SessionEvent, receivedAt: number): SessionEvent {
    const scheduleAt = this.settings.scheduleAt;
    const s = scheduleAt ? sessionAfter(e) : null;
    if (!scheduleAt || !s || s.firstFanMessageAt === null) return e;
    const clock = scheduleAt(e.accountId, receivedAt);
    // Every event that carries a summary has it at `data.session`.
    return clock === null ? e : ({ ...e, data: { ...e.data, session: withBusinessTime(s, clock) } } as SessionEvent);
  }

  private setAside(id: string, r: Routed, chatKey: string, stage: SetAsideStage, error: string): void {
    this.asides.push({
      _id: id, stage, topic: r.topic, partition: r.partition, offset: r.offset, chatKey, event: r.event, error,
      receivedAt: r.receivedAt, setAsideAt: this.settings.now, body: bodyPrefix(r.raw), ...(r.retryOf ? { retryOf: r.retryOf } : {}),
    });
  }

  private noteDuration(id: string, r: Routed, chatKey: string, ms: number): void {
    if (ms > SLOW_STEP_MS) this.slow.push({ id, partition: r.partition, offset: r.offset, chatKey, event: r.event, ms });
  }

  /**
   * Chats of a partition a tick at `at` would settle: those stored due before it, overlaid with
   * this round's newer states, in key order (the order is part of the events' sequence).
   */
  private dueChats(partition: number, at: number): ChatStateDoc[] {
    const due = new Map<string, ChatStateDoc>();
    for (const c of this.facts.due.get(partition) ?? []) if (c.deadline < at) due.set(c.doc._id, this.states.get(c.doc._id) ?? c.doc);
    for (const d of this.states.values()) if (d.partition === partition) due.set(d._id, d);
    return [...due.values()]
      .filter((d) => d.deadline !== null && d.deadline < at)
      .sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0));
  }

  private fresh(n: Routed): ChatState {
    return initialChatState({ accountId: n.accountId, chatId: n.chatId, idleMs: this.settings.idleMs, lateMs: this.settings.lateMs, unansweredMs: this.unansweredMs, ...(this.settings.lookbackMs !== undefined ? { lookbackMs: this.settings.lookbackMs } : {}), ...(this.settings.idTag !== undefined ? { idTag: this.settings.idTag } : {}) });
  }
}
