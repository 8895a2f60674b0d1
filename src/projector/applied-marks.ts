// Read models that heal. Each projector round's store write ends with the partition's applied
// mark (the next `session-events` offset its read models include), per read-model version, so
// a mark that survived means the documents before it did. The consumer resumes at its committed
// offset, committed only after the round's write: a mark behind it means the store lost rounds
// (a MongoDB failover with a weak write concern, mongo-java-server's file mode after kill -9, a
// store put back from a copy while the log went on). The first round of such a partition folds
// the events in between again, read from the log a slice at a time, before its own: every document skips the
// events it has applied (per-chat sequences, the buckets' per-partition marks), so what the
// store kept is not counted twice and what it lost comes back. Each heal is recorded and shown
// by GET /api/admin/verify, as the processor's chat-state rollbacks are.
import type { BulkOp, CollectionWrite, Doc, DocumentStore } from '../adapters/store/store.js';

export const PROJECTOR_MARKS_COLLECTION = 'projector_applied_marks';
export const READ_MODEL_HEALS_COLLECTION = 'read_model_heals';

export interface ProjectorMarkDoc extends Doc {
  readonly version: number;
  readonly partition: number;
  /** The next `session-events` offset of this partition not yet in this version's read models. */
  readonly next: number;
}

/** A gap found between a partition's applied mark and where its consumer resumed, and its re-fold. */
export interface ReadModelHealDoc extends Doc {
  readonly version: number;
  readonly partition: number;
  /** The mark found: the first offset folded again. */
  readonly from: number;
  /** Where the consumer resumed: the first offset not in the gap. */
  readonly to: number;
  readonly detectedAt: number;
  /** When the round that folded the gap again was written; null: not yet. */
  readonly recoveredAt: number | null;
  /** Events of the gap the log no longer held (retention): the read models go on without them. */
  readonly eventsMissing: number;
}

const markId = (version: number, partition: number): string => `v${version}:p${partition}`;

/** The marks of these partitions in this version (absent: never written: a new version, or a store from before marks). */
export async function projectorMarks(store: DocumentStore, version: number, partitions: readonly number[]): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  const found = await store.collection<ProjectorMarkDoc>(PROJECTOR_MARKS_COLLECTION).find({ _id: { $in: partitions.map((p) => markId(version, p)) } });
  for (const m of found) out.set(m.partition, m.next);
  return out;
}

/** The round's mark write, last in its store write: the next offset per partition, never moved back. */
export function projectorMarkWrite(version: number, next: ReadonlyMap<number, number>): CollectionWrite {
  return {
    collection: PROJECTOR_MARKS_COLLECTION,
    ops: [...next].map(([partition, at]): BulkOp<Doc> => ({
      updateOne: { filter: { _id: markId(version, partition) }, update: { $max: { next: at }, $set: { version, partition } }, upsert: true },
    })),
  };
}

interface HealFound {
  readonly version: number;
  readonly partition: number;
  readonly from: number;
  readonly to: number;
  readonly detectedAt: number;
  readonly eventsMissing: number;
}

/** Recorded when found, before the re-fold: a process that stops first leaves it unrecovered for verify to show. */
export async function recordHeal(store: DocumentStore, h: HealFound): Promise<string> {
  const _id = `v${h.version}:p${h.partition}:${h.from}-${h.to}`;
  await store.collection<ReadModelHealDoc>(READ_MODEL_HEALS_COLLECTION).replaceOne({ _id }, { _id, ...h, recoveredAt: null }, { upsert: true });
  return _id;
}

/** Marks a heal recovered, with the events of its gap the log no longer held, in the store write of the gap's last slice. */
export function healRecoveredWrite(_id: string, at: number, eventsMissing: number): CollectionWrite {
  return { collection: READ_MODEL_HEALS_COLLECTION, ops: [{ updateOne: { filter: { _id }, update: { $set: { recoveredAt: at, eventsMissing } } } }] };
}

/** Events of a gap read and folded per store write: bounded memory, and bounded `$in` reads of their ids. */
export const GAP_SLICE = 10_000;
