// A chat state the store handed back older than one this processor stored and was told was
// stored: the store lost acknowledged writes (mongo-java-server's file mode on kill -9, a
// failover with a weak write concern, a restored backup, an operator's mistake). Stepping the
// next records from it would issue its event sequences again, with different content, next to
// the events the lost states had already appended. Instead the processor re-derives the chat
// from `inbound` (kept forever): the records between the state's offset and the round are read
// again and stepped, their events (already in `session-events`, identical) not appended again,
// and the round goes on from the state those records lead to. Each rollback is kept here, for
// GET /api/admin/verify, logged and counted (convops_chat_state_rollbacks_total).
import type { Doc, DocumentStore } from '../adapters/store/store.js';
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
export async function markRecovered(store: DocumentStore, ids: readonly string[], rederived: number, now: number): Promise<void> {
  if (ids.length === 0) return;
  await store.collection<StateRollbackDoc>(STATE_ROLLBACKS_COLLECTION).bulkWrite(ids.map((id) => ({
    updateOne: { filter: { _id: id }, update: { $set: { recoveredAt: now, recordsRederived: rederived } } },
  })));
}

/**
 * The records of `[from, to)` of one partition, in offset order, those `keep` accepts. A record
 * the log no longer holds (retention) is missing from the answer: the caller cannot re-derive
 * past it and says so.
 */
export async function readRange(log: Log, topic: string, partition: number, from: number, to: number, keep: (r: LogRecord) => boolean): Promise<{ records: LogRecord[]; missing: number }> {
  if (to <= from) return { records: [], missing: 0 };
  const held = await log.readRange(topic, partition, from, to);
  return { records: held.filter(keep), missing: to - from - held.length };
}
