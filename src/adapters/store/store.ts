// The document-store seam: the subset of MongoDB collection operations the read models use.
// Filters, updates and pipelines are MongoDB syntax, so read-model code is written once.

export type Doc = { _id: string } & Record<string, unknown>;
export type Filter = Record<string, unknown>;
export type UpdateSpec = Record<string, unknown>;
export type SortSpec = Record<string, 1 | -1>;

export interface FindOptions {
  readonly sort?: SortSpec;
  readonly skip?: number;
  readonly limit?: number;
  readonly projection?: Record<string, 0 | 1>;
  /**
   * The caller will not modify the documents it gets: the store may hand out the same frozen
   * objects to every such reader while the stored documents stay unchanged (the embedded store
   * does, for reads by an `_id` range without projection; MongoDB ignores it).
   */
  readonly shared?: boolean;
}

/**
 * A streaming read (`Collection.iterate`): the matching documents as they are read, a batch at
 * a time, so a caller that takes them one by one (an export) holds one batch in memory however
 * many match.
 */
export interface IterateOptions {
  /**
   * Ascending fields to order by. Without it, documents come in `_id` order. With it, they come
   * in that order (ties in no particular order on MongoDB; by `_id` on the embedded store). Only
   * a sort an index serves streams: the embedded store walks the index whose fields (after any
   * equalities of the filter) start with these; without one, both stores read and sort every
   * match at once (MongoDB in memory, within its sort limit).
   */
  readonly sort?: Record<string, 1>;
  /** Documents read per batch (the driver's batchSize; entries scanned per turn of the embedded store); default 500. */
  readonly batchSize?: number;
}

export interface UpdateOutcome {
  readonly matched: number;
  readonly modified: number;
  readonly upserted: boolean;
}

/**
 * A conditional write (`requireMatch`) fails the whole bulk write with WriteConflictError when
 * its filter matches nothing: the document changed since it was read (a writer that lost its
 * partition, or a concurrent one). On the embedded store the write is one transaction and
 * nothing of it lands; on MongoDB the other ops of the write may have landed (a conditional op
 * that matches nothing is no error there), so callers retry from a fresh read, and every op
 * must be safe to repeat (each carries its own condition, or inserts a deterministic document). Conditional ops may share a bulk write only with inserts and other conditional
 * ops (MongoDB reports matches for the whole write, not per op).
 */
export type BulkOp<T extends Doc> =
  | { readonly updateOne: { readonly filter: Filter; readonly update: UpdateSpec; readonly upsert?: boolean; readonly requireMatch?: boolean } }
  | { readonly replaceOne: { readonly filter: Filter; readonly replacement: T; readonly upsert?: boolean; readonly requireMatch?: boolean } }
  | { readonly insertOne: { readonly document: T } }
  | { readonly deleteOne: { readonly filter: Filter } };

export interface IndexSpec {
  readonly keys: Record<string, 1 | -1>;
  readonly unique?: boolean;
  readonly name?: string;
}

export interface Collection<T extends Doc> {
  readonly name: string;
  /**
   * How many times documents were removed through this handle (a delete, a drop), in this
   * process: a reader that keeps what it worked out from a collection that otherwise only grows
   * starts afresh when it changes. The embedded store hands out one handle per collection.
   */
  readonly removals: number;
  findOne(filter: Filter): Promise<T | null>;
  find(filter: Filter, options?: FindOptions): Promise<T[]>;
  countDocuments(filter?: Filter): Promise<number>;
  /** How many documents it holds, from the store's own bookkeeping (no scan): for metrics. */
  estimatedCount(): Promise<number>;
  /**
   * The documents matching `filter`, read in batches as the caller takes them (see
   * IterateOptions). Not a snapshot: each batch reads what is stored then; a document whose sort
   * fields do not change comes at most once, and one written meanwhile may or may not come.
   * Stopping early (`break`, `return()`) releases the cursor.
   */
  iterate(filter: Filter, options?: IterateOptions): AsyncIterable<T>;
  insertOne(doc: T): Promise<void>;
  updateOne(filter: Filter, update: UpdateSpec, options?: { upsert?: boolean }): Promise<UpdateOutcome>;
  replaceOne(filter: Filter, doc: T, options?: { upsert?: boolean }): Promise<UpdateOutcome>;
  deleteMany(filter: Filter): Promise<number>;
  /** Ordered; stops at the first failure like MongoDB's ordered bulk write. */
  bulkWrite(ops: readonly BulkOp<T>[]): Promise<void>;
  aggregate<R = Record<string, unknown>>(pipeline: readonly Record<string, unknown>[]): Promise<R[]>;
  createIndex(spec: IndexSpec): Promise<void>;
  drop(): Promise<void>;
}

export interface CollectionWrite {
  readonly collection: string;
  readonly ops: readonly BulkOp<Doc>[];
}

/** How a long write shares the event loop. */
export interface WriteOptions {
  /**
   * A write whose operations take longer than this (ms of event-loop time) takes a turn of the
   * loop every so long. The embedded store applies a transaction's operations on the event loop,
   * all in one piece by default; with this it keeps the one transaction (all or nothing, one
   * commit) open across turns, holding the write lock meanwhile, so other writes wait for it.
   * Stores whose writes are I/O ignore it.
   */
  readonly turnEveryMs?: number;
}

export interface DocumentStore {
  readonly kind: 'mongo' | 'embedded';
  collection<T extends Doc>(name: string): Collection<T>;
  /**
   * Ordered bulk writes to several collections, in the order given. The embedded store makes
   * them one transaction (one disk flush); MongoDB runs them one collection after another.
   */
  bulkWriteMany(writes: readonly CollectionWrite[], options?: WriteOptions): Promise<void>;
  listCollections(): Promise<string[]>;
  /**
   * How many documents the store has read to find matches, per collection, since it opened:
   * what queries cost whatever they return (a count that grows with history is a scan). The
   * embedded store keeps it; MongoDB keeps its own (explain's docsExamined), so it has none.
   */
  documentsExamined?(): ReadonlyMap<string, number>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export class DuplicateKeyError extends Error {
  constructor(readonly collection: string, readonly key: string) {
    super(`duplicate key in ${collection}: ${key}`);
    this.name = 'DuplicateKeyError';
  }
}

/** A conditional write found its document changed since it was read: re-read and retry, or stop writing. */
export class WriteConflictError extends Error {
  constructor(readonly collection: string, detail: string) {
    super(`write conflict in ${collection}: ${detail}`);
    this.name = 'WriteConflictError';
  }
}

/** The store cannot be reached (down, restarting, network): callers answer 503, not 500. */
export class StoreUnavailableError extends Error {
  constructor(reason: string) {
    super(`the store is unavailable: ${reason}`);
    this.name = 'StoreUnavailableError';
  }
}
