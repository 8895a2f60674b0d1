// A chat state the store handed back older than one this processor stored and was told was
// stored: the store lost acknowledged writes (mongo-java-server's file mode on kill -9, a
// failover with a weak write concern, a restored backup, an operator's mistake). Stepping the
// next records from it would issue its event sequences again, with different content, next to
// the events the lost states had already appended. Instead the processor re-derives the chat
// from `inbound` (kept forever): the records between the state's offset and the round are read
// again and stepped, their events (already in `session-events`, identical) not appended again,
// and the round goes on from the state those records lead to. Each rollback is kept here, for
// GET /api/admin/verify, logged and counted (convops_chat_state_rollbacks_total).
import type { BulkOp, CollectionWrite, Doc, DocumentStore } from '../adapters/store/store.js';
import type { Log, LogRecord } from '../adapters/log/log.js';

export const STATE_ROLLBACKS_COLLECTION = 'chat_state_rollbacks';

export interface StateRollbackDoc extends Doc, Rollback {
  /** `<chat key>@<partition>:<stored offset><<known offset>`: one per lost state, a redetection writes nothing. */
  readonly _id: string;
  readonly detectedAt: number;
  /** Set once the chat was re-derived and its state stored again. */
  readonly recoveredAt?: number | null;
  /** Inbound records of the chat (and clock ticks) stepped again to re-derive it. */
  readonly recordsRederived?: number;
  /** Records in the range re-read that the log no longer held (retention): the state went on without them. */
  readonly recordsMissing?: number;
}

/** One chat found rolled back by a round. */
export interface Rollback {
  readonly chatKey: string;
  readonly partition: number;
  /** Offset and event sequence of the state the store handed back. */
  readonly storedOffset: number;
  readonly storedSeq: number | null;
  /** Offset and sequence of the state this processor had stored (its cache). */
  readonly knownOffset: number;
  readonly knownSeq: number | null;
}

export const rollbackId = (r: Rollback): string => `${r.chatKey.slice(0, 300)}@${r.partition}:${r.storedOffset}<${r.knownOffset}`;

/** What a fence message says it saw for a rollback. */
export function describeRollbacks(rs: readonly Rollback[]): string {
  const first = rs.slice(0, 3).map((r) => `${r.chatKey.slice(0, 120)} stored offset ${r.storedOffset} seq ${r.storedSeq ?? '?'} < cached offset ${r.knownOffset} seq ${r.knownSeq ?? '?'}`);
  return `the store handed back an older chat state (${first.join('; ')}${rs.length > 3 ? `; and ${rs.length - 3} more` : ''}): acknowledged writes were lost; re-deriving from inbound`;
}

/** Stores what was seen (insert only: the first detection's time stays). */
export async function recordRollbacks(store: DocumentStore, rs: readonly Rollback[], now: number): Promise<void> {
  if (rs.length === 0) return;
  await store.collection<StateRollbackDoc>(STATE_ROLLBACKS_COLLECTION).bulkWrite(rs.map((r) => ({
    updateOne: { filter: { _id: rollbackId(r) }, update: { $setOnInsert: { ...r, detectedAt: now, recoveredAt: null } }, upsert: true },
  })));
}

/** Marks rollbacks re-derived and stored again. */
export async function markRecovered(store: DocumentStore, ids: readonly string[], rederived: number, now: number, missing = 0): Promise<void> {
  if (ids.length === 0) return;
  await store.collection<StateRollbackDoc>(STATE_ROLLBACKS_COLLECTION).bulkWrite(ids.map((id) => ({
    updateOne: { filter: { _id: id }, update: { $set: { recoveredAt: now, recordsRederived: rederived, recordsMissing: missing } } },
  })));
}

/** Rollbacks of a partition found and recorded but not re-derived (the process that found them stopped first). */
export function unrecoveredRollbacks(store: DocumentStore, partition: number): Promise<StateRollbackDoc[]> {
  return store.collection<StateRollbackDoc>(STATE_ROLLBACKS_COLLECTION).find({ partition, recoveredAt: null }, { limit: 10_000 });
}

/** The applied marks of these partitions (absent: never written, or dropped by a reset). */
export async function appliedMarks(store: DocumentStore, partitions: readonly number[]): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  for (const m of await store.collection<AppliedMarkDoc>(APPLIED_MARKS_COLLECTION).find({ _id: { $in: partitions.map(markId) } })) out.set(m.partition, m.next);
  return out;
}

/**
 * The records of `[from, to)` of one partition, in offset order, those `keep` accepts. A record
 * the log no longer holds (retention) is missing from the answer: the caller cannot re-derive
 * past it and says so.
 */
export async function readRange(log: Log, topic: string, partition: number, from: number, to: number, keep: (r: LogRecord) => boolean): Promise<{ records: LogRecord[]; missing: number }> {
  if (to <= from) return { records: [], missing: 0 };
  const { records, held } = await log.readRange(topic, partition, from, to, keep);
  return { records, missing: to - from - held };
}

// After a restart the cache is empty, so a lost write is seen another way: each round's store
// write ends with the partition's applied mark (the next inbound offset its states include),
// written last, so a mark that survived means the states before it did. The consumer resumes at
// its committed offset, which is committed only after the round's write: a mark behind it means
// the store lost the rounds in between, and the chats they touched are checked.
export const APPLIED_MARKS_COLLECTION = 'processor_applied_marks';

export interface AppliedMarkDoc extends Doc {
  readonly partition: number;
  /** The next `inbound` offset of this partition not yet included in the stored states. */
  readonly next: number;
}

const markId = (partition: number): string => `p${partition}`;

/** The round's mark write: the next offset per partition, never moved back. */
export function appliedMarkWrite(next: ReadonlyMap<number, number>): CollectionWrite {
  return {
    collection: APPLIED_MARKS_COLLECTION,
    ops: [...next].map(([partition, at]): BulkOp<Doc> => ({
      updateOne: { filter: { _id: markId(partition) }, update: { $max: { next: at }, $set: { partition } }, upsert: true },
    })),
  };
}

/** What a stored chat state tells a mark check. */
export interface StatePlace {
  readonly _id: string;
  readonly partition: number;
  readonly offset: number;
  readonly seq: number | null;
}

export interface MarkCheckReads {
  /** Stored states of these chats. */
  states(keys: readonly string[]): Promise<StatePlace[]>;
  /** Stored states of the partition a tick at `at` (offset `offset`) would have settled had it been applied. */
  dueBefore(partition: number, at: number, offset: number): Promise<StatePlace[]>;
}

/**
 * Chats whose stored state may be behind records the group has committed: the partition's mark
 * is behind `first` (where the consumer resumed). Candidates, not findings: a chat whose last
 * record in the gap was a duplicate never moved its state, so only a re-derivation that changes
 * a state confirms it was lost.
 */
export async function rollbacksBehindMark(
  store: DocumentStore, log: Log, topic: string, partition: number, first: number, reads: MarkCheckReads,
  tickAt: (r: LogRecord) => number | null,
): Promise<{ from: number; rollbacks: Rollback[] } | null> {
  const next = (await appliedMarks(store, [partition])).get(partition);
  if (next === undefined || next >= first) return null;
  const gap = (await log.readRange(topic, partition, next, first)).records;
  const lastOf = new Map<string, number>();
  let lastTick: { at: number; offset: number } | null = null;
  for (const r of gap) {
    const at = tickAt(r);
    if (at !== null) lastTick = { at, offset: r.offset };
    else if (r.key) lastOf.set(r.key, r.offset);
  }
  const out = new Map<string, Rollback>();
  const behind = (s: StatePlace | undefined, chatKey: string, knownOffset: number): void => {
    // A chat first seen in the gap has no state at all: it is re-derived from the gap's start.
    if (!s) out.set(chatKey, { chatKey, partition, storedOffset: next - 1, storedSeq: null, knownOffset, knownSeq: null });
    else if (s.partition === partition && s.offset < knownOffset) out.set(chatKey, { chatKey, partition, storedOffset: s.offset, storedSeq: s.seq, knownOffset, knownSeq: null });
  };
  const keys = [...lastOf.keys()];
  for (let i = 0; i < keys.length; i += 1000) {
    const slice = keys.slice(i, i + 1000);
    const found = new Map((await reads.states(slice)).map((s) => [s._id, s]));
    for (const k of slice) behind(found.get(k), k, lastOf.get(k) ?? first);
  }
  // A tick applied settles every due chat and moves its offset to the tick's: one still due
  // behind the gap's last tick lost that write.
  if (lastTick) for (const s of await reads.dueBefore(partition, lastTick.at, lastTick.offset)) if (!out.has(s._id)) behind(s, s._id, lastTick.offset);
  return { from: next, rollbacks: [...out.values()] };
}
