// "Why this figure?" for one session (issue 55). The chat's records are read again from
// `inbound` (the chat's first record, found in its dedupe ledger, up to where its stored state
// stands, with its partition's clock ticks) and decided again by the processor's own pure round
// (../processor/round.ts) under the definitions in force, so the answer cannot disagree with the
// pipeline: each figure of the session comes with the event that set it and the inbound record
// that caused that event, and the chart's steps that moved the session with their states before
// and after. The session is folded again from those events by the sessions projection's own
// fold and compared with the stored document; a difference is named, never hidden.
import { Generations, generationStore } from '../definitions/generations.js';
import { ReadModelSet } from '../read-models/read-model-set.js';
import type { Log, LogRecord } from '../adapters/log/log.js';
import type { DocumentStore } from '../adapters/store/store.js';
import { readInboundMeta } from '../domain/inbound-record.js';
import { CHAT_LEDGER_COLLECTION, ledgerDocId, resolveLedger, type LedgerDoc } from '../processor/chat-ledger.js';
import { CHAT_STATE_COLLECTION, type ChatStateDoc } from '../processor/chat-state.js';
import { decideRound, readRound, type RoundSettings } from '../processor/round.js';
import { readRange } from '../processor/rollback.js';
import type { DefinitionValues } from '../definitions/definitions-store.js';
import { payments as paymentsProjection, type PaymentDoc } from '../read-models/payments/projection.js';
import { sessions as sessionsProjection } from '../read-models/sessions/projection.js';
import type { SessionDoc } from '../read-models/sessions/document.js';
import { step } from '../../machines/step.js';
import { DEFAULT_LOOKBACK_MS } from '../../machines/credit-models.js';
import type { ChatInput } from '../../machines/chat-input.js';
import type { SessionEvent } from '../../machines/session-events.js';
import type { StateValue } from 'xstate';

/** The definitions the figures were decided under: the chat's own (it keeps those it was first seen with). */
export type Definitions = DefinitionValues;

/** An inbound record, as the explanation names it. */
export interface RecordRef {
  readonly partition: number;
  readonly offset: number;
  readonly receivedAt: number;
  /** The platform's event name (`messages.received`, …) or `tick` for a clock tick. */
  readonly event: string;
  readonly source: string;
  /** The input the record became: its kind, its platform id where it has one, and its record time. */
  readonly input: { readonly type: string; readonly id: string | null; readonly at: number | null } | null;
}

/** One figure of the session and what set it last. */
export interface FigureCause {
  readonly figure: string;
  readonly value: unknown;
  /** The session event that set it (id and type), and the record that caused that event. */
  readonly event: { readonly id: string; readonly type: string; readonly at: number } | null;
  readonly record: RecordRef | null;
}

/** One step of the chart that moved the session. */
export interface ChartStep {
  readonly record: RecordRef | null;
  /** What the record was to the chart (`fan.message`, `clock.tick`, …) and the states around it. */
  readonly input: string;
  readonly stateBefore: StateValue;
  readonly stateAfter: StateValue;
  readonly events: readonly { readonly id: string; readonly type: string }[];
}

/** A payment the session was credited with, and who each attribution model credits. */
export interface PaymentCause {
  readonly paymentId: string;
  readonly kind: string;
  readonly grossCents: number;
  readonly paidAt: number;
  /** The session model's chatter (the session's last human reply before it), the other models' with the rule and message each rests on, and a manager's reassignment, which wins over all. */
  readonly credits: {
    readonly session: string | null;
    readonly sender: { readonly chatterId: string | null; readonly messageId: string | null; readonly rule: string } | null;
    readonly converter: { readonly chatterId: string | null; readonly messageId: string | null; readonly rule: string } | null;
    readonly reassignedTo: string | null;
  };
  /** The record that brought the payment, and the one whose event last moved its credit. */
  readonly record: RecordRef | null;
  readonly creditedBy: { readonly event: { readonly id: string; readonly type: string; readonly at: number }; readonly record: RecordRef | null } | null;
}

export interface Explanation {
  readonly sessionId: string;
  readonly chatKey: string;
  readonly definitions: Definitions;
  readonly figures: readonly FigureCause[];
  readonly steps: readonly ChartStep[];
  /** The payments credited to the session (its revenue), with each model's credit. */
  readonly payments: readonly PaymentCause[];
  /** Inbound records read again: the chat's own and its partition's ticks, from the chat's first record. */
  readonly recordsRead: number;
  /** The session folded again equals the stored one (figures the projector's sweep alone set aside). */
  readonly agrees: boolean;
  readonly differences: readonly { readonly field: string; readonly stored: unknown; readonly derived: unknown }[];
}

export type ExplainOutcome =
  | { readonly kind: 'explained'; readonly explanation: Explanation }
  | { readonly kind: 'unknown-chat' }
  /** Some of the chat's records are past the log's retention: nothing is guessed. */
  | { readonly kind: 'records-gone'; readonly missing: number; readonly from: number; readonly to: number }
  /** Reading again would take more records than the bound. */
  | { readonly kind: 'too-long'; readonly records: number; readonly limit: number };

/** The figures an explanation names, in the order a manager reads them. */
export const FIGURES = [
  'status', 'openedAt', 'closedAt', 'closeReason', 'awaiting', 'waitingSince', 'firstFanMessageAt', 'firstResponseAt', 'firstResponseSec',
  'firstResponderId', 'lastHumanChatterId', 'messageCount', 'fanMessageCount', 'replyCount', 'revenueCents', 'paymentCount', 'lastMessageAt', 'closesAt', 'closesAs',
  'firstResponseBusinessSec', 'waitBusinessSec',
] as const satisfies readonly (keyof SessionDoc)[];

/**
 * Offsets of a partition read again at most, per explanation, by log: a chat active for months
 * on a busy partition is refused, not read past the request's timeout. The embedded log reads
 * about 200,000 records a second; kafkajs about 1,000 (bench/explain.ts, docs/benchmarks.md).
 */
export const EXPLAIN_MAX_OFFSETS = { embedded: 500_000, kafka: 10_000 } as const;

function inputId(input: ChatInput): string | null {
  switch (input.type) {
    case 'chat.message': return input.messageId;
    case 'chat.payment': return input.paymentId;
    default: return null;
  }
}

function inputAt(input: ChatInput): number | null {
  return 'at' in input && typeof input.at === 'number' ? input.at : null;
}

function refOf(rec: LogRecord, input: ChatInput | null): RecordRef {
  const meta = readInboundMeta(rec.headers);
  return {
    partition: rec.partition, offset: rec.offset, receivedAt: meta?.receivedAt ?? rec.timestamp, event: meta?.event ?? 'unknown', source: meta?.source ?? 'unknown',
    input: input ? { type: input.type, id: inputId(input), at: inputAt(input) } : null,
  };
}

/** The session an event moves, if any (the sessions projection's own choice). */
function sessionOf(e: SessionEvent): string | null {
  if (!sessionsProjection.canHandle(e)) return null;
  return sessionsProjection.documentIds({ event: e, partition: 0, offset: 0 })[0] ?? null;
}

/**
 * The pure part: the chat's records (its own and its partition's ticks, in offset order) decided
 * again from nothing, as the processor decides them, and the session explained from what they emit.
 */
export function explainRecords(records: readonly LogRecord[], topic: string, partition: number, chatKey: string, stored: SessionDoc, settings: RoundSettings, definitions: Definitions): Explanation {
  const taken: { before: StateValue; after: StateValue; input: ChatInput; events: SessionEvent[] }[] = [];
  const recording: typeof step = (state, input, machine) => {
    const out = step(state, input, machine);
    if (out.events.length > 0) taken.push({ before: state.value, after: out.state.value, input, events: out.events });
    return out;
  };
  const read = readRound([{ topic, partition, records }]);
  const result = decideRound(read, { states: new Map<string, ChatStateDoc>(), ledger: resolveLedger([], new Map()), due: new Map() }, { ...settings, step: recording });
  const byOffset = new Map(records.map((r) => [r.offset, r]));
  const inputs = new Map<number, ChatInput>();
  for (const n of read.records) if (n && 'input' in n) inputs.set(n.offset, n.input);
  const recordAt = (offset: number | undefined): RecordRef | null => {
    const rec = offset === undefined ? undefined : byOffset.get(offset);
    return rec ? refOf(rec, inputs.get(rec.offset) ?? null) : null;
  };
  const sourceOf = new Map(result.events.map((e) => [e.event.id, e.event.source?.offset]));

  // The session folded again, noting which event last set each figure.
  let doc: SessionDoc | undefined;
  const cause = new Map<string, SessionEvent>();
  // Every event is this chat's: the round knew no other chat's state, so its ticks stepped none.
  for (const { event } of result.events) {
    if (sessionOf(event) !== stored._id) continue;
    const next = sessionsProjection.evolve(doc, { event, partition, offset: event.source?.offset ?? 0 });
    if (!next) continue;
    for (const f of FIGURES) if (doc === undefined || JSON.stringify(doc[f]) !== JSON.stringify(next[f])) cause.set(f, event);
    doc = next;
  }
  const figures: FigureCause[] = FIGURES.map((figure) => {
    const e = cause.get(figure);
    return {
      figure, value: doc?.[figure] ?? null,
      event: e ? { id: e.id, type: e.type, at: e.at } : null,
      record: e ? recordAt(sourceOf.get(e.id)) : null,
    };
  });
  // The chat's payments folded again by the payments projection: those the session holds.
  const pays = new Map<string, { doc: PaymentDoc; recorded: SessionEvent | null; credited: SessionEvent | null }>();
  for (const { event } of result.events) {
    if (!paymentsProjection.canHandle(event)) continue;
    for (const id of paymentsProjection.documentIds({ event, partition, offset: event.source?.offset ?? 0 })) {
      const known = pays.get(id);
      const next = paymentsProjection.evolve(known?.doc, { event, partition, offset: event.source?.offset ?? 0 });
      if (!next) continue;
      pays.set(id, { doc: next, recorded: event.type === 'PaymentRecorded' ? event : known?.recorded ?? null, credited: event.type === 'PaymentRecorded' ? known?.credited ?? null : event });
    }
  }
  const payments: PaymentCause[] = [...pays.values()].filter((p) => p.doc.sessionId === stored._id).map(({ doc: p, recorded, credited }) => ({
    paymentId: p.paymentId, kind: p.kind, grossCents: p.grossCents, paidAt: p.paidAt,
    credits: { session: p.chatterId, sender: p.models?.sender ?? null, converter: p.models?.converter ?? null, reassignedTo: p.override?.chatterId ?? null },
    record: recorded ? recordAt(sourceOf.get(recorded.id)) : null,
    creditedBy: credited ? { event: { id: credited.id, type: credited.type, at: credited.at }, record: recordAt(sourceOf.get(credited.id)) } : null,
  }));
  const steps: ChartStep[] = taken
    .filter((t) => t.events.some((e) => sessionOf(e) === stored._id))
    .map((t) => ({
      record: recordAt(sourceOf.get((t.events[0] as SessionEvent).id)),
      input: t.input.type, stateBefore: t.before, stateAfter: t.after,
      events: t.events.map((e) => ({ id: e.id, type: e.type })),
    }));
  // The embedded projector's sweep closes a lapsed session in the read models ahead of the log:
  // what it alone set is not the log's to explain.
  const sweptOnly = stored.swept === true && doc?.swept !== true;
  const differences = FIGURES
    .filter((f) => !(sweptOnly && ['status', 'closedAt', 'closeReason', 'awaiting', 'waitingSince', 'closesAt', 'closesAs'].includes(f)))
    .filter((f) => JSON.stringify(stored[f] ?? null) !== JSON.stringify(doc?.[f] ?? null))
    .map((field) => ({ field, stored: stored[field] ?? null, derived: doc?.[field] ?? null }));
  return { sessionId: stored._id, chatKey, definitions, figures, steps, payments, recordsRead: records.length, agrees: differences.length === 0 && doc !== undefined, differences };
}

export interface ExplainDeps {
  readonly log: Log;
  readonly store: DocumentStore;
  readonly inboundTopic: string;
  /** The accounts' banned phrases and schedules as the processor judges records by them. */
  readonly bannedPhrases: RoundSettings['bannedPhrases'];
  /** The schedules' lookups, restated as the live generation's definitions say (DefinitionValues.businessHoursRestatedAt). */
  readonly schedules: (restatedAt: number | undefined) => Pick<RoundSettings, 'limitEnd' | 'scheduleAt'>;
  /** Brings those two up to date before a read. */
  readonly refresh: () => Promise<void>;
}

/** Reads the chat again and explains the session (the session document is the caller's: its read model version). */
export async function explainSession(deps: ExplainDeps, stored: SessionDoc): Promise<ExplainOutcome> {
  const chatKey = stored.chatKey;
  // The live definitions generation's chat states: the session document is from its read models.
  const generation = (await new ReadModelSet(deps.store).pointer()).generation;
  const states = generationStore(deps.store, generation);
  const restatedAt = generation === 0 ? undefined : (await new Generations(deps.store).get(generation))?.values?.businessHoursRestatedAt;
  const [state, ledger] = await Promise.all([
    states.collection<ChatStateDoc>(CHAT_STATE_COLLECTION).findOne({ _id: chatKey }),
    states.collection<LedgerDoc>(CHAT_LEDGER_COLLECTION).find({ _id: { $gte: ledgerDocId(chatKey, ''), $lt: `${chatKey}}` } }, { projection: { offset: 1, partition: 1 } }),
  ]);
  if (!state || ledger.length === 0) return { kind: 'unknown-chat' };
  const from = Math.min(...ledger.filter((l) => l.partition === state.partition).map((l) => l.offset));
  const to = state.offset + 1;
  if (!Number.isFinite(from)) return { kind: 'unknown-chat' };
  const limit = EXPLAIN_MAX_OFFSETS[deps.log.kind];
  if (to - from > limit) return { kind: 'too-long', records: to - from, limit };
  await deps.refresh();
  const { records, missing } = await readRange(deps.log, deps.inboundTopic, state.partition, from, to, (r) => r.key === chatKey || readInboundMeta(r.headers)?.source === 'tick');
  if (missing > 0) return { kind: 'records-gone', missing, from, to };
  // The chat decides under the values it was first seen with (they are in its state), whatever
  // the settings are now: a change reaches new chats only.
  const ctx = state.state.context;
  const d: Definitions = {
    sessionIdleSec: Math.round(ctx.idleMs / 1000), allowedLatenessSec: Math.round(ctx.lateMs / 1000), unansweredCloseSec: Math.round(ctx.unansweredMs / 1000),
    attributionLookbackSec: Math.round((ctx.lookbackMs ?? DEFAULT_LOOKBACK_MS) / 1000),
  };
  const settings: RoundSettings = {
    idleMs: ctx.idleMs, lateMs: ctx.lateMs, unansweredMs: ctx.unansweredMs, ...(ctx.lookbackMs !== undefined ? { lookbackMs: ctx.lookbackMs } : {}),
    ...(ctx.idTag !== undefined ? { idTag: ctx.idTag } : {}),
    ...(deps.bannedPhrases ? { bannedPhrases: deps.bannedPhrases } : {}), ...deps.schedules(restatedAt), now: Date.now(),
  };
  return { kind: 'explained', explanation: explainRecords(records, deps.inboundTopic, state.partition, chatKey, stored, settings, d) };
}
