// Applies a run of session events to one version of the read models, through any list of
// document projections: every document the events touch (each projection's documentIds) is
// loaded, evolved in memory, and what changed is written conditionally. The live projector and
// the replay job both use it, so a replay builds exactly what live projection builds.
// An event whose fold throws (a malformed event, a fold that cannot take it) is set aside in
// the same store write when the caller gives a place for it: its documents stay as they were
// before it, and the other events are applied. Folds are pure, so a redelivery or a replay
// throws the same way. Without one, the error fails the application as before.
import type { BulkOp, Collection, CollectionWrite, Doc, DocumentStore, WriteOptions } from '../adapters/store/store.js';
import { bodyPrefix, errorMessage, setAsideId, setAsideWrite, type SetAsideDoc } from '../pipeline/set-aside.js';
import { collectionName, type ReadModelCollections } from '../read-models/read-model-set.js';
import { PROJECTIONS, WRITE_ORDER } from '../read-models/index.js';
import { REPORT_BUCKETS, type ReadModel, type ReadModelName } from '../read-models/names.js';
import { sourceOf, type AnyProjection, type DocChange, type Positioned } from '../read-models/projection.js';
import { transitionIncrements, type BucketedModel, type Increment } from '../read-models/report-buckets/contributions.js';
import { BucketWrites, type EventMark, type ReportBucketDoc } from '../read-models/report-buckets/document.js';
import { unswept } from '../read-models/sessions/lapse.js';
import type { SessionDoc } from '../read-models/sessions/projection.js';

const isBucketed = (m: ReadModel): m is BucketedModel => m === 'sessions' || m === 'messages' || m === 'payments' || m === 'ppvs' || m === 'clock_intervals';

/** One document an event touches, and the projection that evolves it. */
export interface DocTarget {
  readonly projection: AnyProjection;
  readonly id: string;
}

/** Every document a positioned event touches, in the projections' order. */
export function targetsOf(projections: readonly AnyProjection[], p: Positioned): DocTarget[] {
  const t: DocTarget[] = [];
  for (const projection of projections) {
    if (projection.canHandle(p.event)) for (const id of projection.documentIds(p)) t.push({ projection, id });
  }
  return t;
}

/**
 * Folds one event into every document it touches, in the projections' order (pure): each
 * projection derived from others' changes sees what the ones before it changed. Throws what a
 * fold throws, leaving nothing applied.
 */
export function foldEvent(targets: readonly DocTarget[], current: (model: ReadModel, id: string) => Doc | undefined, p: Positioned): { nexts: [DocTarget, Doc][]; changes: DocChange[] } {
  const nexts: [DocTarget, Doc][] = [];
  const changes: DocChange[] = [];
  for (const t of targets) {
    const model = t.projection.name;
    const before = current(model, t.id);
    const next = t.projection.evolveFromChanges ? t.projection.evolveFromChanges(before, p, changes) : t.projection.evolve(before, p);
    if (!next) continue;
    nexts.push([t, next]);
    changes.push({ model, before, after: next });
  }
  return { nexts, changes };
}

/** Where events whose fold throws are set aside: the store the read models live in, and the events' topic. */
export interface FoldSetAside {
  readonly store: DocumentStore;
  readonly topic: string;
  /** Events (by `<topic>:<partition>:<offset>`) whose own application failed twice: set aside unfolded, stage 'write'. */
  readonly poisoned?: ReadonlyMap<string, string>;
  /**
   * Writes that go first in the application's one store write (the projector's event digests
   * and the conflicts they found): on the embedded store one transaction and one commit with
   * the read models, on MongoDB before them.
   */
  readonly before?: readonly CollectionWrite[];
  /** Writes that go last in it (the projector's applied marks: on MongoDB, a mark that landed means the documents before it did). */
  readonly after?: readonly CollectionWrite[];
}

/** How an application shares the event loop: a turn after every `yieldEvery` events it looks at, and between loads (a replay's slices). */
export interface ApplyPacing {
  readonly yieldEvery?: number;
  /** The write takes a turn every so many ms (WriteOptions.turnEveryMs). */
  readonly writeTurnEveryMs?: number;
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Applies the events to every read model (models/index.ts); answers those it set aside (written with the read models). */
export async function applyEvents(rm: ReadModelCollections, events: readonly Positioned[], setAside?: FoldSetAside, pacing: ApplyPacing = {}): Promise<SetAsideDoc[]> {
  return applyProjections(rm, PROJECTIONS, WRITE_ORDER, events, setAside, pacing);
}

/**
 * Applies the events through `projections` (folded in that order) and writes their changes in
 * `writeOrder`, after the report buckets derived from them.
 */
export async function applyProjections(
  rm: ReadModelCollections, projections: readonly AnyProjection[], writeOrder: readonly ReadModel[], events: readonly Positioned[], setAside?: FoldSetAside, pacing: ApplyPacing = {},
): Promise<SetAsideDoc[]> {
  if (events.length === 0) return [];
  return writeApplication(rm, await prepareApplication(rm, projections, writeOrder, events, setAside, pacing), setAside, pacing);
}

/** The documents an application changes, by read model, as it writes them (revision included). */
export type WrittenDocs = ReadonlyMap<ReadModel, ReadonlyMap<string, Doc>>;

/** An application folded and not yet written: its document writes, its bucket increments, what it set aside. */
export interface PreparedApplication {
  readonly modelWrites: readonly { readonly model: ReadModelName; readonly ops: readonly BulkOp<Doc>[] }[];
  readonly bucketed: readonly { readonly mark: EventMark; readonly increments: Increment[] }[];
  readonly asides: readonly SetAsideDoc[];
  /** What a following application reads in place of the store while this one's write is under way. */
  readonly written: WrittenDocs;
}

/**
 * Finds, loads and folds the documents the events touch (everything of an application but the
 * report buckets and the write). `pending` holds the documents of an application whose write is
 * still under way (a replay folds its next slice meanwhile): they are read from it, not from
 * the store; that write must land before this application's `writeApplication`.
 */
export async function prepareApplication(
  rm: ReadModelCollections, projections: readonly AnyProjection[], writeOrder: readonly ReadModel[], events: readonly Positioned[], setAside?: FoldSetAside, pacing: ApplyPacing = {}, pending?: WrittenDocs,
): Promise<PreparedApplication> {
  const every = pacing.yieldEvery ?? 0;
  // Nothing of this application is written until its one store write: a turn in between
  // changes nothing it has read (the caller runs one application at a time per version, and
  // hands over the documents of one still being written).
  let seen = 0;
  const models = projections.map((p) => p.name);
  const asides: SetAsideDoc[] = [];
  const fail = (p: Positioned, err: unknown, stage: 'fold' | 'write' = 'fold'): void => {
    if (!setAside) throw err;
    const e = p.event as unknown as Record<string, unknown> | null;
    asides.push({
      _id: setAsideId(setAside.topic, p.partition, p.offset), stage, topic: setAside.topic, partition: p.partition, offset: p.offset,
      chatKey: typeof e?.chatKey === 'string' ? e.chatKey.slice(0, 300) : null, event: typeof e?.type === 'string' ? e.type.slice(0, 100) : null,
      error: errorMessage(err), receivedAt: null, setAsideAt: Date.now(), body: bodyPrefix(JSON.stringify(p.event) ?? ''),
    });
  };
  const targets = new Map<Positioned, DocTarget[]>();
  for (const p of events) {
    if (every > 0 && ++seen % every === 0) await nextTurn();
    const poisoned = setAside?.poisoned?.get(`${setAside.topic}:${p.partition}:${p.offset}`);
    if (poisoned !== undefined) {
      fail(p, poisoned, 'write');
      continue;
    }
    try {
      targets.set(p, targetsOf(projections, p));
    } catch (err) {
      fail(p, err);
    }
  }
  const bucketed: { mark: EventMark; increments: Increment[] }[] = [];
  const ids = new Map<ReadModel, Set<string>>(models.map((m) => [m, new Set<string>()]));
  for (const ts of targets.values()) for (const t of ts) ids.get(t.projection.name)?.add(t.id);
  const docs = new Map<ReadModel, Map<string, Doc>>();
  const loadModel = async (m: ReadModel): Promise<void> => {
    docs.set(m, await load(rm[m] as unknown as Collection<Doc>, ids.get(m) ?? new Set(), pending?.get(m), every));
  };
  if (every > 0) {
    for (const m of models) {
      await loadModel(m);
      await nextTurn();
    }
  } else {
    await Promise.all(models.map(loadModel));
  }
  // A session the projector swept closed at its deadline is folded from where its events left
  // it (every projection sees the log's own history), while the buckets net the change against
  // what the swept document contributed, which is what they hold (read-models/sessions/lapse.ts).
  const sweptOf = new Map<Doc, Doc>();
  const sessionDocs = docs.get('sessions');
  for (const [id, d] of sessionDocs ?? []) {
    if ((d as SessionDoc).swept !== true) continue;
    const open = unswept(d as SessionDoc) as Doc;
    sweptOf.set(open, d);
    sessionDocs?.set(id, open);
  }
  const original = new Map<ReadModel, Map<string, Doc>>([...docs].map(([m, d]) => [m, new Map(d)]));
  const changed = new Map<ReadModel, Map<string, Doc>>(models.map((m) => [m, new Map()]));
  for (const p of events) {
    if (every > 0 && ++seen % every === 0) await nextTurn();
    const ts = targets.get(p);
    if (!ts) continue;
    // Every fold of the event first (each target is another collection), so one that throws
    // leaves none of the event's changes behind.
    let nexts: [DocTarget, Doc][];
    let increments: Increment[] = [];
    try {
      const folded = foldEvent(ts, (model, id) => docs.get(model)?.get(id), p);
      nexts = folded.nexts;
      for (const c of folded.changes) if (isBucketed(c.model)) increments = increments.concat(transitionIncrements(c.model, c.before === undefined ? undefined : sweptOf.get(c.before) ?? c.before, c.after));
    } catch (err) {
      fail(p, err);
      continue;
    }
    for (const [t, next] of nexts) {
      docs.get(t.projection.name)?.set(t.id, next);
      changed.get(t.projection.name)?.set(t.id, next);
    }
    if (increments.length > 0) {
      const { partition, offset } = sourceOf(p);
      bucketed.push({ mark: { partition, offset, id: p.event.id }, increments });
    }
  }
  // Every write is conditional on the revision it was read at (or is an insert), so a
  // projector that lost its partition, or a concurrent one, cannot overwrite newer work: the
  // whole application fails with WriteConflictError and is retried from a fresh read.
  const modelWrites = writeOrder.map((model): { model: ReadModelName; ops: readonly BulkOp<Doc>[] } => {
    const ops = [...(changed.get(model)?.entries() ?? [])].map(([id, next]): BulkOp<Doc> => {
      const before = original.get(model)?.get(id);
      // Folding is over, and each fold made `next` afresh: it takes its revision in place (a
      // copy by spread with an override costs V8 microseconds per document).
      // (A fold that handed back the document it was given would share it with the write it
      // came from, which may still be under way: that one keeps its own.)
      const doc = (next === before ? { ...next } : next) as Doc & { _rev?: number };
      if (doc !== next) changed.get(model)?.set(id, doc);
      if (before === undefined) {
        doc._rev = 1;
        return { insertOne: { document: doc } };
      }
      const rev = typeof before._rev === 'number' ? before._rev : null;
      doc._rev = (rev ?? 0) + 1;
      return { replaceOne: { filter: { _id: id, _rev: rev }, replacement: doc, requireMatch: true } };
    });
    return { model, ops };
  });
  return { modelWrites, bucketed, asides, written: changed };
}

/**
 * Loads the report buckets the application moves (after any write it was prepared behind has
 * landed) and writes everything in one store write.
 */
export async function writeApplication(rm: ReadModelCollections, prepared: PreparedApplication, setAside?: FoldSetAside, pacing: ApplyPacing = {}): Promise<SetAsideDoc[]> {
  const { modelWrites, bucketed, asides } = prepared;
  const options: WriteOptions | undefined = pacing.writeTurnEveryMs === undefined ? undefined : { turnEveryMs: pacing.writeTurnEveryMs };
  // The report buckets these changes move, loaded once for the whole run of events.
  const bucketDocs = await loadBuckets(rm.report_buckets, bucketed, pacing.yieldEvery ?? 0);
  const buckets = new BucketWrites(bucketDocs);
  for (const b of bucketed) buckets.add(b.mark, b.increments);
  const bucketOps = buckets.ops();
  // Buckets first: each skips events it has applied, but a document's change is seen only once
  // (a retry finds the document already changed), so on MongoDB, where a write that fails half
  // way keeps what landed, a bucket must never lag a document it was derived from.
  const writes: { model: ReadModelName; ops: readonly BulkOp<Doc>[] }[] = [
    { model: REPORT_BUCKETS, ops: bucketOps.inserts as BulkOp<Doc>[] },
    { model: REPORT_BUCKETS, ops: bucketOps.updates as BulkOp<Doc>[] },
    ...modelWrites,
  ].filter((w) => w.ops.length > 0);
  const before = setAside?.before?.filter((w) => w.ops.length > 0) ?? [];
  const after = setAside?.after?.filter((w) => w.ops.length > 0) ?? [];
  if (!setAside || (asides.length === 0 && before.length === 0 && after.length === 0)) {
    await rm.writeAll(writes, options);
  } else {
    // The set-aside documents first, in the same store write (what rm.writeAll writes, plus
    // them): once a read model has moved past an event, its document exists.
    await setAside.store.bulkWriteMany([...before, setAsideWrite(asides), ...writes.map((w) => ({ collection: collectionName(w.model, rm.version), ops: w.ops })), ...after].filter((w) => w.ops.length > 0), options);
  }
  return [...asides];
}

async function loadBuckets(c: Collection<ReportBucketDoc>, bucketed: readonly { increments: Increment[] }[], every: number): Promise<Map<string, ReportBucketDoc>> {
  const ids = new Set<string>();
  for (const b of bucketed) BucketWrites.addIds(b.increments, ids);
  return load(c as unknown as Collection<Doc>, ids, undefined, every) as Promise<Map<string, ReportBucketDoc>>;
}

/**
 * The documents with these ids (those in `pending` from it). With `every`, in reads of at most
 * that many ids with a turn of the event loop between them: on the embedded store a read is
 * synchronous, and thousands of documents decoded in one piece held the loop for tens of ms.
 */
async function load(c: Collection<Doc>, ids: Set<string>, pending?: ReadonlyMap<string, Doc>, every = 0): Promise<Map<string, Doc>> {
  const out = new Map<string, Doc>();
  if (ids.size === 0) return out;
  const fromStore: string[] = [];
  for (const id of ids) {
    const d = pending?.get(id);
    if (d === undefined) fromStore.push(id);
    else out.set(id, d);
  }
  const step = every > 0 ? every : fromStore.length;
  for (let i = 0; i < fromStore.length; i += step) {
    if (i > 0) await nextTurn();
    for (const d of await c.find({ _id: { $in: step >= fromStore.length ? fromStore : fromStore.slice(i, i + step) } })) out.set(d._id, d);
  }
  return out;
}
