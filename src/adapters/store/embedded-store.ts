// The embedded document store: one LMDB sub-database per collection, keyed by _id, with
// MongoDB filters, update operators and pipelines evaluated by mingo. Each write is one LMDB
// transaction, awaited until flushed to disk, and all-or-nothing: an operation that throws
// (a conflict, a duplicate key, a key LMDB refuses) leaves nothing of its write stored, in any
// collection or index.
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { TransactionFlags, type Database, type RootDatabase } from 'lmdb';
import { Aggregator, Query, update as applyUpdate } from 'mingo';
import { compileFilter, compileProjection } from './fast-filter.js';
import type { BulkOp, Collection, CollectionWrite, Doc, DocumentStore, Filter, FindOptions, IndexSpec, IterateOptions, SortSpec, UpdateOutcome, UpdateSpec, WriteOptions } from './store.js';
import { DuplicateKeyError, WriteConflictError } from './store.js';
import { indexKey, indexName, plan, type KeyPart } from './embedded-index.js';
import { applyPlainUpdate } from './plain-update.js';
import { openSharedRoot, type SharedRoot } from '../lmdb-roots.js';
import { SHARED_STRUCTURES } from '../lmdb-structures.js';
import { SharedReads } from './shared-reads.js';

type AnyObject = Record<string, unknown>;

/** One turn of the event loop, for other work between synchronous stretches. */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function isOperatorObject(v: unknown): boolean {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).some((k) => k.startsWith('$'));
}

/** The fields an upsert copies from its filter: plain equality conditions, as MongoDB does. */
function equalityFields(filter: Filter): AnyObject {
  const out: AnyObject = {};
  for (const [k, v] of Object.entries(filter)) {
    if (k.startsWith('$')) continue;
    if (isOperatorObject(v)) {
      const eq = (v as AnyObject).$eq;
      if (eq !== undefined) out[k] = eq;
      continue;
    }
    out[k] = v;
  }
  return out;
}

function validateUpdate(update: UpdateSpec): void {
  const keys = Object.keys(update);
  if (keys.length === 0 || keys.some((k) => !k.startsWith('$'))) {
    throw new Error('update document must contain only update operators');
  }
}

function valueAt(doc: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((v, k) => (typeof v === 'object' && v !== null ? (v as AnyObject)[k] : undefined), doc);
}

function setPath(doc: AnyObject, path: string, value: unknown): void {
  const parts = path.split('.');
  let cur = doc;
  for (const p of parts.slice(0, -1)) {
    if (typeof cur[p] !== 'object' || cur[p] === null) cur[p] = {};
    cur = cur[p] as AnyObject;
  }
  cur[parts[parts.length - 1] as string] = value;
}

/** The ids an `_id` equality or `$in` names, or undefined when the filter is not of that form. */
function idsOf(filter: Filter): unknown[] | undefined {
  const id = filter._id;
  if (typeof id === 'string') return [id];
  if (typeof id === 'object' && id !== null && Array.isArray((id as { $in?: unknown }).$in) && Object.keys(id).length === 1) {
    return (id as { $in: unknown[] }).$in;
  }
  return undefined;
}

/**
 * LMDB key bounds for an `_id` range of strings ($gte/$gt with $lt/$lte); the filter is still
 * tested on each document, so the exclusive ends ($gt, $lte) only need to be covered.
 */
function idRangeOf(filter: Filter): { start?: string; end?: string } | undefined {
  const id = filter._id;
  if (typeof id !== 'object' || id === null || Array.isArray(id)) return undefined;
  const ops = id as Record<string, unknown>;
  const keys = Object.keys(ops);
  if (keys.length === 0 || !keys.every((k) => ['$gte', '$gt', '$lt', '$lte'].includes(k) && typeof ops[k] === 'string')) return undefined;
  const lower = (ops.$gte ?? ops.$gt) as string | undefined;
  const upper = ops.$lt as string | undefined;
  // $lte x: everything up to and including x, i.e. below x followed by the smallest character.
  const end = upper ?? (typeof ops.$lte === 'string' ? `${ops.$lte}\u0000` : undefined);
  return { ...(lower !== undefined ? { start: lower } : {}), ...(end !== undefined ? { end } : {}) };
}

/** The filter's test: compiled where fast-filter.ts can, mingo for the rest (and for what the compiled test leaves undecided). */
function matcher(filter: Filter): (doc: object) => boolean {
  const fast = compileFilter(filter);
  let q: Query | undefined;
  const slow = (doc: object) => (q ??= new Query(filter)).test(doc as AnyObject);
  return fast ? (doc) => fast(doc as AnyObject) ?? slow(doc) : slow;
}

/** Whether some top-level scalar of `b` differs from `a`'s (false says nothing about nested values). */
function differsAtTop(a: object, b: object): boolean {
  for (const [k, v] of Object.entries(b)) {
    if ((v === null || typeof v !== 'object') && (a as AnyObject)[k] !== v) return true;
  }
  return false;
}

function sameDoc(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

class EmbeddedCollection<T extends Doc> implements Collection<T> {
  removals = 0;
  /** Documents read to find matches, since the store opened (DocumentStore.documentsExamined). */
  examined = 0;

  constructor(
    private readonly store: EmbeddedStore,
    private readonly root: RootDatabase,
    private readonly db: Database<T, string>,
    readonly name: string,
    private readonly shared: SharedReads,
  ) {}

  private all(): T[] {
    const docs = Array.from(this.db.getRange(), ({ value }) => value);
    this.examined += docs.length;
    return docs;
  }

  /**
   * Documents matching `filter`, read through the best index when one applies. With a sort the
   * index follows and a limit, reading stops once `want` documents and their ties are in.
   */
  private indexed(filter: Filter, sort: SortSpec | undefined, want: number): T[] | undefined {
    const p = plan(this.store.indexes(this.name), filter, sort);
    if (!p) return undefined;
    const index = this.store.indexDb(this.name, p.spec);
    const matches = matcher(filter);
    const out: T[] = [];
    let boundary: string | undefined;
    const range = p.reverse ? { start: p.end, end: p.start, reverse: true } : { start: p.start, end: p.end };
    for (const key of index.getKeys(range) as Iterable<KeyPart[]>) {
      if (boundary !== undefined && JSON.stringify(key.slice(...p.sortParts)) !== boundary) break;
      const doc = this.db.get(String(key[key.length - 1]));
      this.examined++;
      if (!doc || !matches(doc)) continue;
      out.push(doc);
      if (p.sorted && boundary === undefined && out.length >= want) boundary = JSON.stringify(key.slice(...p.sortParts));
    }
    return out;
  }

  /** Candidates for a filter: direct gets for an _id equality or $in, an _id range, an index, or a scan. */
  private candidates(filter: Filter, sort?: SortSpec, want = Infinity): T[] {
    const ids = idsOf(filter);
    if (!ids) {
      const range = idRangeOf(filter);
      if (range) {
        // In _id order already: a page by _id reads only its page (one more for an exclusive start).
        const byId = !sort || (Object.keys(sort).length === 1 && sort._id === 1);
        const limit = byId && Number.isFinite(want) ? want + 1 : undefined;
        const docs = Array.from(this.db.getRange({ ...range, ...(limit !== undefined ? { limit } : {}) }), ({ value }) => value);
        this.examined += docs.length;
        return docs;
      }
      return this.indexed(filter, sort, want) ?? this.all();
    }
    const out: T[] = [];
    for (const k of new Set(ids)) {
      if (typeof k !== 'string') continue;
      const doc = this.db.get(k);
      this.examined++;
      if (doc) out.push(doc);
    }
    return out;
  }

  private matching(filter: Filter): T[] {
    // Writes address documents by _id; those need no query evaluation at all.
    if (Object.keys(filter).length === 1 && idsOf(filter)) return this.candidates(filter);
    // Conditional writes add plain equalities (a revision, an offset): compare them directly.
    const extra = Object.entries(filter).filter(([k]) => k !== '_id');
    if (idsOf(filter) && extra.every(([, v]) => v === null || ['string', 'number', 'boolean'].includes(typeof v))) {
      return this.candidates(filter).filter((d) => extra.every(([k, v]) => { const at = valueAt(d, k); return at === v || (v === null && at === undefined); }));
    }
    const matches = matcher(filter);
    return this.candidates(filter).filter((d) => matches(d));
  }

  async findOne(filter: Filter): Promise<T | null> {
    return this.matching(filter)[0] ?? null;
  }

  /**
   * An `_id` range read for a caller that will not modify what it gets: documents whose stored
   * bytes are unchanged since an earlier such read come back as the same decoded objects.
   */
  private sharedRange(filter: Filter, range: { start?: string; end?: string }, limit: number | undefined, omit: readonly string[]): T[] {
    // A [$gte, $lt) range is exactly the keys read: nothing left to test (a report's buckets are read so).
    const exact = Object.keys(filter._id as object).every((op) => op === '$gte' || op === '$lt');
    const q = exact ? null : new Query(filter);
    const out: T[] = [];
    const decode = (key: string): T | undefined => {
      const doc = this.db.get(key);
      if (doc) for (const f of omit) delete (doc as AnyObject)[f];
      return doc;
    };
    const prefix = `${this.name}\u0000${omit.join(',')}\u0000`;
    // Keys, bytes and decoding all within one synchronous stretch: one read snapshot.
    for (const key of this.db.getKeys({ ...range, ...(limit !== undefined ? { limit } : {}) })) {
      // LMDB's transient read (no copy): lmdb-js hands out its whole read buffer with `length`
      // set to the value's, so view exactly the value; SharedReads copies it only if it changed.
      const fast = this.db.getBinaryFast(key);
      this.examined++;
      if (fast === undefined) continue;
      const bytes = Buffer.from(fast.buffer, fast.byteOffset, fast.length);
      const doc = this.shared.get(prefix + key, bytes, () => decode(key));
      if (doc && (q === null || q.test(doc))) out.push(doc);
    }
    return out;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    const want = options.limit ? (options.skip ?? 0) + options.limit : Infinity;
    // Shared reads: an `_id` range, in `_id` order, leaving out top-level fields or none.
    const omit = Object.entries(options.projection ?? {}).map(([k, v]) => (v === 0 && !k.includes('.') && k !== '_id' ? k : null));
    if (options.shared && !options.skip && Object.keys(filter).length === 1 && omit.every((k) => k !== null)) {
      const range = idRangeOf(filter);
      const byId = !options.sort || (Object.keys(options.sort).length === 1 && options.sort._id === 1);
      if (range && byId) return this.sharedRange(filter, range, Number.isFinite(want) ? want + 1 : undefined, (omit as string[]).sort()).slice(0, want);
    }
    const candidates = this.candidates(filter, options.sort, want);
    // A filter on _id alone was answered exactly by direct gets; re-testing a large $in per
    // document would cost O(n²) (the projector loads its documents this way).
    if (Object.keys(filter).length === 1 && idsOf(filter) && !options.sort && !options.skip && !options.limit) {
      const p = options.projection;
      if (!p) return candidates;
      // An inclusion projection by _id (the processor checks its cache this way): pick the fields.
      const fields = Object.entries(p).filter(([, v]) => v === 1).map(([k]) => k);
      if (fields.length === Object.keys(p).length && fields.every((f) => !f.includes('.'))) {
        return candidates.map((d) => Object.fromEntries([['_id', d._id], ...fields.filter((f) => f in d).map((f) => [f, (d as AnyObject)[f]])]) as T);
      }
    }
    const fast = compileFilter(filter);
    const project = compileProjection(options.projection);
    if (fast && project) {
      // The common filters and projections as plain functions; mingo only for what they leave undecided.
      let q: Query | undefined;
      let docs = candidates.filter((d) => fast(d as AnyObject) ?? (q ??= new Query(filter)).test(d));
      if (options.sort) docs = new Query({}).find<T>(docs).sort(options.sort).all();
      if (options.skip || options.limit) docs = docs.slice(options.skip ?? 0, options.limit ? (options.skip ?? 0) + options.limit : undefined);
      return options.projection === undefined ? docs : docs.map((d) => project(d as AnyObject) as T);
    }
    let cursor = new Query(filter).find<T>(candidates, options.projection as never);
    if (options.sort) cursor = cursor.sort(options.sort);
    if (options.skip) cursor = cursor.skip(options.skip);
    if (options.limit) cursor = cursor.limit(options.limit);
    return cursor.all();
  }

  /**
   * A streaming read: each batch is one synchronous stretch of LMDB reads (one snapshot, no
   * read transaction held across turns, so a slow reader keeps no old pages alive), resumed
   * after the last key it read. In `_id` order the documents' own keys are walked (within the
   * filter's `_id` range); with a sort, the keys of an index that serves it, which hold the
   * sorted fields and then the `_id`, so ties come by `_id`.
   */
  async *iterate(filter: Filter, options: IterateOptions = {}): AsyncGenerator<T> {
    const batch = Math.max(1, options.batchSize ?? 500);
    const q = new Query(filter);
    const sortFields = Object.entries(options.sort ?? {}).filter(([k]) => k !== '_id');
    if (sortFields.some(([, d]) => d !== 1)) throw new Error(`iterate: sort ${JSON.stringify(options.sort)} must be ascending`);
    if (sortFields.length === 0) {
      const range = idRangeOf(filter) ?? {};
      let after: string | undefined;
      for (;;) {
        const out: T[] = [];
        let read = 0;
        for (const { key, value } of this.db.getRange({ ...range, ...(after !== undefined ? { start: after } : {}), limit: batch + 1 })) {
          read++;
          this.examined++;
          if (key === after) continue;
          after = key;
          if (q.test(value)) out.push(value);
        }
        yield* out;
        if (read < batch + 1) return;
        // A batch with no match yields nothing, so nothing awaited: a turn of the loop here, or a
        // long run of keys the filter refuses would be one synchronous stretch.
        if (out.length === 0) await turn();
      }
    }
    // An index whose fields, after the filter's equalities, are the sort's: its keys are in order.
    const sort = Object.fromEntries(sortFields) as SortSpec;
    const p = this.store.indexes(this.name)
      .map((spec) => plan([spec], filter, sort))
      .filter((x): x is NonNullable<typeof x> => x !== undefined && x.sorted && x.sortParts[1] > x.sortParts[0])
      .sort((a, b) => b.sortParts[0] - a.sortParts[0])[0];
    if (!p) {
      // No index serves it: every match read and sorted at once, as MongoDB sorts in memory.
      yield* await this.find(filter, { sort: { ...sort, _id: 1 } });
      return;
    }
    const index = this.store.indexDb(this.name, p.spec);
    let after: KeyPart[] | undefined;
    for (;;) {
      const out: T[] = [];
      let read = 0;
      for (const key of index.getKeys({ start: after ?? p.start, end: p.end, limit: batch + 1 }) as Iterable<KeyPart[]>) {
        read++;
        if (after !== undefined && sameKey(key, after)) continue;
        after = key;
        const doc = this.db.get(String(key[key.length - 1]));
        this.examined++;
        if (doc && q.test(doc)) out.push(doc);
      }
      yield* out;
      if (read < batch + 1) return;
      if (out.length === 0) await turn();
    }
  }

  async estimatedCount(): Promise<number> {
    // LMDB keeps the entry count of each database (mdb_stat): exact, and no scan (getCount walks
    // a cursor). One entry is msgpack's shared structures, once a document has been written.
    const entries = (this.db.getStats() as { entryCount: number }).entryCount;
    return entries - (this.db.doesExist(SHARED_STRUCTURES as unknown as string) ? 1 : 0);
  }

  async countDocuments(filter: Filter = {}): Promise<number> {
    if (Object.keys(filter).length === 0) {
      // getCount walks a cursor over every entry.
      const n = this.db.getCount();
      this.examined += n;
      return n;
    }
    return this.matching(filter).length;
  }

  private checkUnique(doc: T): void {
    for (const idx of this.store.uniqueIndexes(this.name)) {
      const probe: AnyObject = {};
      for (const k of Object.keys(idx.keys)) probe[k] = valueAt(doc, k) ?? null;
      const q = new Query(probe);
      for (const other of this.all()) {
        if (other._id !== doc._id && q.test(other)) throw new DuplicateKeyError(this.name, JSON.stringify(probe));
      }
    }
  }

  /**
   * Writes `doc` and its index entries, inside the current LMDB transaction; throwing aborts the
   * whole write (EmbeddedStore.transaction). `oldKeys`: the stored version's index keys (in
   * `indexes()` order, `keysOf`), null when there is none: every caller has read that version
   * already, so the stored document is not read and decoded again.
   */
  private put(doc: T, oldKeys: readonly KeyPart[][] | null): void {
    this.checkUnique(doc);
    const specs = this.store.indexes(this.name);
    // Keys taken against another index list would leave stale entries (none can change within a write): refused.
    if (oldKeys !== null && oldKeys.length !== specs.length) throw new Error(`index keys for ${specs.length} indexes expected, ${oldKeys.length} given`);
    for (let i = 0; i < specs.length; i++) {
      const spec = specs[i] as IndexSpec;
      const index = this.store.indexDb(this.name, spec);
      const key = indexKey(spec, doc);
      const old = oldKeys?.[i];
      if (old !== undefined) {
        // Most updates leave most indexed fields alone: their entries stay as they are.
        if (sameKey(old, key)) continue;
        void index.remove(old);
      }
      void index.put(key, PRESENT);
    }
    void this.db.put(doc._id, doc);
  }

  /** The document's index keys, in `indexes()` order (what `put` replaces). */
  private keysOf(doc: T): KeyPart[][] {
    return this.store.indexes(this.name).map((spec) => indexKey(spec, doc));
  }

  private removeDoc(doc: T): void {
    this.removals++;
    for (const spec of this.store.indexes(this.name)) void this.store.indexDb(this.name, spec).remove(indexKey(spec, doc));
    void this.db.remove(doc._id);
  }

  private insertSync(doc: T): void {
    const withId = (doc._id === undefined ? { ...doc, _id: randomBytes(12).toString('hex') } : doc) as T;
    if (this.db.get(withId._id) !== undefined) throw new DuplicateKeyError(this.name, `_id ${withId._id}`);
    this.put(withId, null);
  }

  private updateSync(filter: Filter, update: UpdateSpec, upsert: boolean): UpdateOutcome {
    validateUpdate(update);
    const { $setOnInsert, ...modifier } = update as { $setOnInsert?: AnyObject } & AnyObject;
    const target = this.matching(filter)[0];
    if (target) {
      // The update changes `target` in place: its index keys are taken first, so the write
      // need not read and decode the stored document again (a report bucket of a month is
      // thousands of fields, rewritten every projector round).
      const keys = this.keysOf(target);
      // mingo lists the paths it changed; serialising the document twice to compare (what this
      // did) cost most of an update of a month's report bucket, thousands of fields.
      const changed = Object.keys(modifier).length > 0
        && (applyPlainUpdate(target, modifier) ?? applyUpdate(target, modifier, undefined, undefined, { cloneMode: 'deep' }).length > 0);
      if (changed) this.put(target, keys);
      return { matched: 1, modified: changed ? 1 : 0, upserted: false };
    }
    if (!upsert) return { matched: 0, modified: 0, upserted: false };
    const doc: AnyObject = {};
    for (const [path, v] of Object.entries(equalityFields(filter))) setPath(doc, path, structuredClone(v));
    if (Object.keys(modifier).length > 0 && applyPlainUpdate(doc, modifier) === undefined) applyUpdate(doc, modifier, undefined, undefined, { cloneMode: 'deep' });
    if ($setOnInsert) applyUpdate(doc, { $set: $setOnInsert }, undefined, undefined, { cloneMode: 'deep' });
    this.insertSync(doc as T);
    return { matched: 0, modified: 0, upserted: true };
  }

  private replaceSync(filter: Filter, replacement: T, upsert: boolean): UpdateOutcome {
    const target = this.matching(filter)[0];
    if (target) {
      if (replacement._id !== undefined && replacement._id !== target._id) {
        throw new Error(`replaceOne may not change _id of ${target._id}`);
      }
      // Copied only to add the _id (a spread with an override costs microseconds per document).
      const next = replacement._id === target._id ? replacement : ({ ...replacement, _id: target._id } as T);
      // A top-level field that differs settles it without serialising both documents (a
      // projector's replacement always carries a new revision).
      const changed = differsAtTop(target, next) || !sameDoc(target, next);
      if (changed) this.put(next, this.keysOf(target));
      return { matched: 1, modified: changed ? 1 : 0, upserted: false };
    }
    if (!upsert) return { matched: 0, modified: 0, upserted: false };
    this.insertSync({ ...equalityFields(filter), ...replacement } as T);
    return { matched: 0, modified: 0, upserted: true };
  }

  private async write<R>(fn: () => R): Promise<R> {
    const result = await this.store.transaction(fn);
    await this.root.flushed;
    return result;
  }

  insertOne(doc: T): Promise<void> {
    return this.write(() => this.insertSync(doc));
  }

  updateOne(filter: Filter, update: UpdateSpec, options: { upsert?: boolean } = {}): Promise<UpdateOutcome> {
    return this.write(() => this.updateSync(filter, update, options.upsert ?? false));
  }

  replaceOne(filter: Filter, doc: T, options: { upsert?: boolean } = {}): Promise<UpdateOutcome> {
    return this.write(() => this.replaceSync(filter, doc, options.upsert ?? false));
  }

  deleteMany(filter: Filter): Promise<number> {
    return this.write(() => {
      const victims = this.matching(filter);
      for (const d of victims) this.removeDoc(d);
      return victims.length;
    });
  }

  bulkWrite(ops: readonly BulkOp<T>[]): Promise<void> {
    if (ops.length === 0) return Promise.resolve();
    return this.write(() => this.applyOps(ops));
  }

  /** Runs inside a transaction the caller opened. */
  applyOps(ops: readonly BulkOp<T>[]): void {
    for (const op of ops) {
      if ('updateOne' in op) {
        const r = this.updateSync(op.updateOne.filter, op.updateOne.update, op.updateOne.upsert ?? false);
        if (op.updateOne.requireMatch && r.matched === 0) throw new WriteConflictError(this.name, JSON.stringify(op.updateOne.filter));
      } else if ('replaceOne' in op) {
        const r = this.replaceSync(op.replaceOne.filter, op.replaceOne.replacement, op.replaceOne.upsert ?? false);
        if (op.replaceOne.requireMatch && r.matched === 0) throw new WriteConflictError(this.name, JSON.stringify(op.replaceOne.filter));
      } else if ('insertOne' in op) this.insertSync(op.insertOne.document);
      else {
        const victim = this.matching(op.deleteOne.filter)[0];
        if (victim) this.removeDoc(victim);
      }
    }
  }

  async aggregate<R>(pipeline: readonly Record<string, unknown>[]): Promise<R[]> {
    return new Aggregator([...pipeline]).run(this.all()) as R[];
  }

  async createIndex(spec: IndexSpec): Promise<void> {
    // Opened before the transaction: a handle opened inside one that aborts is unusable.
    const index = this.store.indexDb(this.name, spec);
    // Recorded in the collection's index list and built over the documents already there in
    // one transaction: every write after it maintains the index, and none before it can have
    // been missed; a crash leaves neither the record nor the entries.
    await this.write(() => {
      if (!this.store.recordIndex(this.name, spec)) return;
      for (const { value } of this.db.getRange()) void index.put(indexKey(spec, value), PRESENT);
    });
  }

  /** msgpack's record structures of this collection, kept in memory, are reloaded from the store on the next write. */
  reloadStructures(): void {
    const encoder = (this.db as { encoder?: { structures?: unknown } }).encoder;
    if (!encoder?.structures) return;
    // msgpackr's mark for structures to load (from the write transaction, inside one) before use.
    const fresh: unknown[] & { uninitialized?: boolean } = [];
    fresh.uninitialized = true;
    encoder.structures = fresh;
  }

  async drop(): Promise<void> {
    this.removals++;
    // Cleared rather than dropped, so handles to this collection held elsewhere stay valid.
    for (const spec of this.store.indexes(this.name)) await this.store.indexDb(this.name, spec).clearAsync();
    await this.db.clearAsync();
    await this.store.forget(this.name);
  }
}

/** An index entry's value (msgpack's encoding of 1). */
const PRESENT = Buffer.from([1]);

function sameKey(a: readonly KeyPart[], b: readonly KeyPart[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

interface CollectionMeta {
  indexes: IndexSpec[];
}

interface IndexLists {
  readonly bytes: Buffer;
  readonly all: IndexSpec[];
  readonly unique: IndexSpec[];
}

const NO_INDEXES: IndexLists = { bytes: Buffer.alloc(0), all: [], unique: [] };

// LMDB writes inside a transaction callback resolve with the transaction, which is awaited;
// `void` marks the single puts and removes whose promises are deliberately not.
/** Operations applied between looks at the clock in a write that takes turns. */
const OPS_BETWEEN_CLOCK_READS = 32;

/** What a store folder's environment holds for its stores, shared by those open on it (see lmdb-roots). */
/** The store folder's environment, as every user of it in this process opens it: the store, and a backup that finds it closed. */
export function openStoreRoot(path: string): SharedRoot<StoreRoot> {
  return openSharedRoot(path, { maxDbs: 256, mapSize: 2 ** 35, overlappingSync: false }, (root): StoreRoot => ({
    meta: root.openDB<CollectionMeta, string>({ name: '$meta', encoding: 'msgpack' }),
    turning: null,
  }));
}

interface StoreRoot {
  readonly meta: Database<CollectionMeta, string>;
  /** Settles once a write that takes turns (see `transaction`), under way now, has ended. */
  turning: Promise<void> | null;
}

export class EmbeddedStore implements DocumentStore {
  readonly kind = 'embedded' as const;
  // One opened environment per folder and process, however many stores are open on it: see
  // lmdb-roots for the hang two would make.
  private readonly shared: SharedRoot<StoreRoot>;
  private readonly root: RootDatabase;
  private readonly meta: Database<CollectionMeta, string>;
  private readonly open = new Map<string, EmbeddedCollection<Doc>>();
  private readonly indexDbs = new Map<string, Database<Buffer, KeyPart[]>>();
  private readonly indexDbBySpec = new WeakMap<IndexSpec, Map<string, Database<Buffer, KeyPart[]>>>();
  private readonly sharedReads = new SharedReads();
  private readonly indexLists = new Map<string, IndexLists>();
  private txnIndexLists: Map<string, IndexLists> | null = null;
  /** Index databases first opened inside the running transaction (see `transaction`). */
  private txnOpened: { name: string; spec: IndexSpec; collection: string }[] | null = null;

  constructor(dataDir: string) {
    const path = join(dataDir, 'store');
    mkdirSync(path, { recursive: true });
    this.shared = openStoreRoot(path);
    this.root = this.shared.root;
    this.meta = this.shared.opened.meta;
  }

  collection<T extends Doc>(name: string): Collection<T> {
    if (!/^[A-Za-z0-9_.-]{1,120}$/.test(name)) throw new Error(`invalid collection name ${name}`);
    let c = this.open.get(name);
    if (!c) {
      const db = this.root.openDB<Doc, string>({ name: `c:${name}`, encoding: 'msgpack', sharedStructuresKey: SHARED_STRUCTURES });
      c = new EmbeddedCollection<Doc>(this, this.root, db, name, this.sharedReads);
      this.open.set(name, c);
    }
    this.register(name);
    return c as unknown as Collection<T>;
  }

  async bulkWriteMany(writes: readonly CollectionWrite[], options: WriteOptions = {}): Promise<void> {
    const targets = writes.filter((w) => w.ops.length > 0).map((w) => ({ c: this.collection(w.collection) as unknown as EmbeddedCollection<Doc>, ops: w.ops }));
    if (targets.length === 0) return;
    const { turnEveryMs } = options;
    if (turnEveryMs === undefined) {
      await this.transaction(() => {
        for (const t of targets) t.c.applyOps(t.ops);
      });
    } else {
      await this.transaction(async () => {
        let since = performance.now();
        for (const t of targets) {
          for (let i = 0; i < t.ops.length; i += OPS_BETWEEN_CLOCK_READS) {
            t.c.applyOps(i === 0 && t.ops.length <= OPS_BETWEEN_CLOCK_READS ? t.ops : t.ops.slice(i, i + OPS_BETWEEN_CLOCK_READS));
            if (performance.now() - since >= turnEveryMs) {
              await new Promise<void>((resolve) => setImmediate(resolve));
              since = performance.now();
            }
          }
        }
      });
    }
    await this.root.flushed;
  }

  /**
   * Runs `fn` in a write transaction of its own (synchronously, when the writer gets to it): all
   * of its writes land, or, when it throws, none of them, and the promise rejects with what it
   * threw. lmdb-js commits whatever a plain `transaction` callback wrote before it threw (and
   * batches callbacks of one event turn into one LMDB transaction), so each runs as an LMDB
   * child transaction of the batch, aborted on a throw; other writes in the batch still land.
   *
   * An aborted child takes with it two things lmdb-js keeps in memory, repaired here: database
   * handles first opened inside it (LMDB closes them; `indexDb` opens them again), and msgpack
   * record structures a write saved in it (the encoder would keep using their ids, and later
   * documents would be stored pointing at structures the store never got, read back wrongly).
   */
  transaction<R>(fn: () => R | Promise<R>): Promise<R> {
    const shared = this.shared.opened;
    // A write that takes turns keeps lmdb-js's write transaction open across them, and lmdb-js
    // runs a transaction started meanwhile (from this store or another on the folder) inside it:
    // in the middle of it, and gone with it when it aborts, though its promise resolved. It
    // waits for that write to end instead, as WriteOptions.turnEveryMs says.
    if (shared.turning) {
      const after = (): Promise<R> => this.transaction(fn);
      return shared.turning.then(after, after);
    }
    let ended!: () => void;
    const end = new Promise<void>((resolve) => { ended = resolve; });
    const txn = Promise.resolve(this.root.childTransaction(() => {
      const opened: { name: string; spec: IndexSpec; collection: string }[] = [];
      this.txnIndexLists = new Map();
      this.txnOpened = opened;
      const over = (): void => {
        this.txnIndexLists = null;
        this.txnOpened = null;
      };
      let result: R | Promise<R>;
      try {
        result = fn();
      } catch (err) {
        over();
        this.afterAbort(opened);
        throw err;
      }
      if (!(result instanceof Promise)) {
        over();
        return result;
      }
      // An asynchronous callback keeps the child transaction open until it settles (lmdb-js
      // runs the batch's next callback after it): see WriteOptions.turnEveryMs.
      shared.turning = end;
      return result.then((value) => {
        over();
        return value;
      }, (err: unknown) => {
        over();
        this.afterAbort(opened);
        throw err;
      });
    }) as R | Promise<R>);
    // Settled once lmdb-js has committed the batch and left its write transaction.
    const finish = (): void => {
      if (shared.turning === end) shared.turning = null;
      ended();
    };
    void txn.then(finish, finish);
    return txn;
  }

  private afterAbort(opened: readonly { name: string; spec: IndexSpec; collection: string }[]): void {
    for (const o of opened) {
      this.indexDbs.delete(o.name);
      this.indexDbBySpec.get(o.spec)?.delete(o.collection);
    }
    // All open collections, not only the written ones: aborts are rare (a fenced round), and a
    // reload is one read of the structures on the next write.
    for (const c of this.open.values()) c.reloadStructures();
  }

  /**
   * Listed once it exists, as MongoDB lists a collection once it is first used. Checked again
   * and written in one write transaction: another process may have listed the collection, and
   * recorded its indexes, since the read (an empty list written over it would lose them).
   */
  register(name: string): void {
    if (this.meta.getBinary(name) !== undefined) return;
    this.root.transactionSync(() => {
      if (this.meta.getBinary(name) === undefined) void this.meta.put(name, { indexes: [] });
    }, TransactionFlags.SYNCHRONOUS_COMMIT);
  }

  uniqueIndexes(name: string): IndexSpec[] {
    return this.indexSpecs(name).unique;
  }

  indexes(name: string): IndexSpec[] {
    return this.indexSpecs(name).all;
  }

  /**
   * The collection's index list, decoded again only when its stored bytes change. Every write
   * asks for it (twice), and decoding it each time was an eighth of a replay's CPU; comparing
   * bytes rather than caching outright keeps a list another process recorded visible.
   */
  private indexSpecs(name: string): IndexLists {
    // Inside a write transaction no other process can change the list (LMDB has one writer).
    const fixed = this.txnIndexLists?.get(name);
    if (fixed) return fixed;
    const lists = this.readIndexSpecs(name);
    this.txnIndexLists?.set(name, lists);
    return lists;
  }

  private readIndexSpecs(name: string): IndexLists {
    const bytes = this.meta.getBinary(name);
    if (bytes === undefined) return NO_INDEXES;
    const hit = this.indexLists.get(name);
    if (hit && hit.bytes.equals(bytes)) return hit;
    const all = this.meta.get(name)?.indexes ?? [];
    const lists: IndexLists = { bytes, all, unique: all.filter((i) => i.unique) };
    this.indexLists.set(name, lists);
    return lists;
  }

  indexDb(collection: string, spec: IndexSpec): Database<Buffer, KeyPart[]> {
    // Asked once per index per written document: the spec objects are the cached lists' own.
    let byCollection = this.indexDbBySpec.get(spec);
    const known = byCollection?.get(collection);
    if (known) return known;
    const name = `x:${collection}:${indexName(spec)}`;
    let db = this.indexDbs.get(name);
    if (!db) {
      // Inside a transaction that then aborts, LMDB closes the handle: forget it then (`transaction`).
      this.txnOpened?.push({ name, spec, collection });
      // Values are raw bytes: an entry's presence is all it says, and encoding the same value
      // for every entry was a tenth of a replay's writes. PRESENT is msgpack's 1, which stores
      // written before held, so both read alike.
      db = this.root.openDB<Buffer, KeyPart[]>({ name, keyEncoding: 'ordered-binary', encoding: 'binary' });
      this.indexDbs.set(name, db);
    }
    if (!byCollection) this.indexDbBySpec.set(spec, (byCollection = new Map()));
    byCollection.set(collection, db);
    return db;
  }

  /**
   * Adds the index to the collection's list, inside the caller's write transaction: read, merged
   * and written under LMDB's single writer, so an index another process (or another store on
   * the same folder) recorded meanwhile is kept. False when it is recorded and built already;
   * data stores from before indexes were built get them now.
   */
  recordIndex(name: string, spec: IndexSpec): boolean {
    const meta = this.meta.get(name) ?? { indexes: [] };
    const existing = meta.indexes.find((i) => sameDoc(i.keys, spec.keys)) as (IndexSpec & { built?: boolean }) | undefined;
    if (existing?.built) return false;
    meta.indexes = [...meta.indexes.filter((i) => i !== existing), { ...spec, built: true } as IndexSpec];
    void this.meta.put(name, meta);
    return true;
  }

  async forget(name: string): Promise<void> {
    await this.meta.remove(name);
  }

  documentsExamined(): ReadonlyMap<string, number> {
    return new Map([...this.open].map(([name, c]) => [name, c.examined]));
  }

  async listCollections(): Promise<string[]> {
    return this.meta.getKeys().asArray;
  }

  async ping(): Promise<boolean> {
    return true;
  }

  async close(): Promise<void> {
    // Closes the environment once this store's writes are flushed, unless another store has
    // it open.
    await this.shared.release();
  }
}
