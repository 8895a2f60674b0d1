// The document store on MongoDB (or any Mongo-wire server) through the official driver.
import {
  MongoAPIError, MongoBulkWriteError, MongoClient, MongoError, MongoMissingDependencyError, MongoNetworkError, MongoParseError, MongoNotConnectedError, MongoServerError, MongoServerSelectionError, MongoTopologyClosedError,
  type Db, type AnyBulkWriteOperation,
} from 'mongodb';
import type { BulkOp, Collection, CollectionWrite, Doc, DocumentStore, Filter, FindOptions, IndexSpec, IterateOptions, UpdateOutcome, UpdateSpec } from './store.js';
import { DuplicateKeyError, StoreUnavailableError, WriteConflictError } from './store.js';
import { ConfigError } from '../../config.js';
import type { Logger } from '../../support/logger.js';

function isUnreachable(err: unknown): boolean {
  if (err instanceof MongoServerSelectionError || err instanceof MongoNetworkError
    || err instanceof MongoNotConnectedError || err instanceof MongoTopologyClosedError) return true;
  // A bulk write wraps the failure of its command.
  return err instanceof MongoBulkWriteError && isUnreachable(err.errorResponse);
}

/** Start-up's view of a failed connect: waiting may help (StoreUnavailableError), or the setting must change (ConfigError). */
function connectError(err: unknown): Error {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof MongoParseError || err instanceof MongoAPIError || err instanceof MongoMissingDependencyError) {
    return new ConfigError('MONGO_URL', `cannot be used: ${message}`);
  }
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 18 || code === 13 || /authentication failed/i.test(message)) return new ConfigError('MONGO_URL', `credentials were refused: ${message}`);
  if (err instanceof MongoError) return new StoreUnavailableError(message);
  return err instanceof Error ? err : new Error(message);
}

/** Translates driver failures into the store seam's errors. */
async function guarded<R>(collection: string, op: () => Promise<R>): Promise<R> {
  try {
    return await op();
  } catch (err) {
    throw translated(collection, err);
  }
}

function translated(collection: string, err: unknown): unknown {
  if (isDuplicate(err)) return new DuplicateKeyError(collection, err instanceof Error ? err.message : String(err));
  if (isUnreachable(err)) return new StoreUnavailableError(err instanceof Error ? err.message : String(err));
  return err;
}

function isDuplicate(err: unknown): boolean {
  if (err instanceof MongoServerError && err.code === 11000) return true;
  // Bulk write errors carry the code of the first failed operation.
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 11000;
}

/**
 * The second field of a conditional write's filter (`{_id, _rev}`, `{_id, offset}`), if the
 * filter is exactly that: `_id` and one plain value.
 */
function conditionField(filter: Filter): string | null {
  const keys = Object.keys(filter);
  if (keys.length !== 2 || !keys.includes('_id')) return null;
  const field = keys[0] === '_id' ? keys[1] : keys[0];
  if (field === undefined || field.startsWith('$')) return null;
  const value = filter[field];
  return value === null || typeof value !== 'object' ? field : null;
}

/**
 * Indexes for conditional writes, on servers whose planner uses an index only when a query
 * names exactly that index's fields (mongo-java-server, the test server: it scans the whole
 * collection for `{_id, _rev}`, 338 writes/s against 10,695/s with the index at 20,000
 * documents; bench/mongo-bare.ts). MongoDB itself finds such a document by `_id`, so there
 * the index would only cost writes, and it is not made.
 */
class ConditionIndexes {
  private readonly made = new Map<string, Promise<void>>();

  constructor(private readonly db: Db) {}

  ensure(collection: string, field: string): Promise<void> {
    const key = `${collection}\u0000${field}`;
    let made = this.made.get(key);
    if (!made) {
      made = guarded(collection, () => this.db.collection(collection).createIndex({ _id: 1, [field]: 1 }, { unique: true, name: `_id_${field}_condition` }))
        .then(() => undefined, (err: unknown) => {
          this.made.delete(key);
          throw err;
        });
      this.made.set(key, made);
    }
    return made;
  }

  /** The collection was dropped (by this process): its indexes went with it. */
  forget(collection: string): void {
    for (const key of [...this.made.keys()]) if (key.startsWith(`${collection}\u0000`)) this.made.delete(key);
  }
}

class MongoCollection<T extends Doc> implements Collection<T> {
  removals = 0;

  constructor(private readonly db: Db, readonly name: string, private readonly conditions: ConditionIndexes | null) {}

  private get c() {
    return this.db.collection<Doc>(this.name);
  }

  private guard<R>(op: () => Promise<R>): Promise<R> {
    return guarded(this.name, op);
  }

  async findOne(filter: Filter): Promise<T | null> {
    return (await this.guard(() => this.c.findOne(filter))) as unknown as T | null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    let cursor = this.c.find(filter);
    if (options.projection) cursor = cursor.project(options.projection);
    if (options.sort) cursor = cursor.sort(options.sort);
    if (options.skip) cursor = cursor.skip(options.skip);
    if (options.limit) cursor = cursor.limit(options.limit);
    return (await this.guard(() => cursor.toArray())) as unknown as T[];
  }

  countDocuments(filter: Filter = {}): Promise<number> {
    return this.guard(() => this.c.countDocuments(filter));
  }

  estimatedCount(): Promise<number> {
    return this.guard(() => this.c.estimatedDocumentCount());
  }

  /** A driver cursor: the server hands out `batchSize` documents per getMore, as the caller takes them. */
  async *iterate(filter: Filter, options: IterateOptions = {}): AsyncGenerator<T> {
    const sort = options.sort && Object.keys(options.sort).some((k) => k !== '_id') ? options.sort : { _id: 1 as const };
    const cursor = this.c.find(filter, { batchSize: Math.max(1, options.batchSize ?? 500) }).sort(sort);
    try {
      for await (const doc of cursor) yield doc as unknown as T;
    } catch (err) {
      throw translated(this.name, err);
    } finally {
      await cursor.close().catch(() => undefined);
    }
  }

  async insertOne(doc: T): Promise<void> {
    await this.guard(() => this.c.insertOne(doc));
  }

  async updateOne(filter: Filter, update: UpdateSpec, options: { upsert?: boolean } = {}): Promise<UpdateOutcome> {
    const r = await this.guard(() => this.c.updateOne(filter, update, { upsert: options.upsert ?? false }));
    return { matched: r.matchedCount, modified: r.modifiedCount, upserted: r.upsertedCount > 0 };
  }

  async replaceOne(filter: Filter, doc: T, options: { upsert?: boolean } = {}): Promise<UpdateOutcome> {
    const r = await this.guard(() => this.c.replaceOne(filter, doc, { upsert: options.upsert ?? false }));
    return { matched: r.matchedCount, modified: r.modifiedCount, upserted: r.upsertedCount > 0 };
  }

  async deleteMany(filter: Filter): Promise<number> {
    this.removals++;
    return (await this.guard(() => this.c.deleteMany(filter))).deletedCount;
  }

  async bulkWrite(ops: readonly BulkOp<T>[]): Promise<void> {
    if (ops.length === 0) return;
    if (ops.some((op) => 'deleteOne' in op)) this.removals++;
    const required = ops.filter((op) => ('updateOne' in op && op.updateOne.requireMatch) || ('replaceOne' in op && op.replaceOne.requireMatch)).length;
    // The driver does not know requireMatch; strip it.
    const plain = required === 0 ? ops : ops.map((op) => {
      if ('updateOne' in op) { const { requireMatch: _r, ...rest } = op.updateOne; return { updateOne: rest }; }
      if ('replaceOne' in op) { const { requireMatch: _r, ...rest } = op.replaceOne; return { replaceOne: rest }; }
      return op;
    });
    if (this.conditions) {
      const fields = new Set<string>();
      for (const op of ops) {
        const filter = 'updateOne' in op ? op.updateOne.filter : 'replaceOne' in op ? op.replaceOne.filter : null;
        const field = filter ? conditionField(filter) : null;
        if (field !== null) fields.add(field);
      }
      for (const field of fields) await this.conditions.ensure(this.name, field);
    }
    const r = await this.guard(() => this.c.bulkWrite(plain as unknown as AnyBulkWriteOperation<Doc>[], { ordered: true }));
    if (r.matchedCount < required) throw new WriteConflictError(this.name, `${required - r.matchedCount} of ${required} conditional writes found their document changed`);
  }

  async aggregate<R>(pipeline: readonly Record<string, unknown>[]): Promise<R[]> {
    return (await this.guard(() => this.c.aggregate([...pipeline]).toArray())) as unknown as R[];
  }

  async createIndex(spec: IndexSpec): Promise<void> {
    await this.guard(() => this.c.createIndex(spec.keys, { unique: spec.unique ?? false, ...(spec.name ? { name: spec.name } : {}) }));
  }

  async drop(): Promise<void> {
    this.removals++;
    this.conditions?.forget(this.name);
    await this.c.drop().catch((err: unknown) => {
      // Dropping a collection that does not exist is not an error for us.
      if (!(err instanceof MongoServerError && (err.code === 26 || /ns not found/i.test(err.message)))) throw err;
    });
  }
}

/**
 * The driver's defaults leave a call waiting for ever on a connection whose server never answers
 * (socketTimeoutMS 0) and let one server check hang for 30 s (connectTimeoutMS), so a stalled
 * server could freeze a consumer round with no error or hold the client at a stale error after
 * the server was back. Each is bounded here unless MONGO_URL sets it. The read bound is far above
 * any one call convops makes (its reads are paged and its writes batched).
 */
const TIMEOUT_DEFAULTS = { serverSelectionTimeoutMS: 5_000, connectTimeoutMS: 10_000, socketTimeoutMS: 120_000 } as const;

export function timeoutDefaults(url: string): Partial<typeof TIMEOUT_DEFAULTS> {
  const query = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
  const given = new Set(query.split('&').map((kv) => (kv.split('=')[0] ?? '').toLowerCase()));
  return Object.fromEntries(Object.entries(TIMEOUT_DEFAULTS).filter(([k]) => !given.has(k.toLowerCase())));
}

/** What kind of failure an error is, without its varying details (connect timeouts name their milliseconds). */
function failureKind(err: Error | null | undefined): string {
  const cause = (err as { cause?: { code?: unknown } } | null | undefined)?.cause;
  return `${err?.name ?? ''}:${typeof cause?.code === 'string' ? cause.code : ''}`;
}

/** Says when the server becomes unreachable (and why) and when it is back, once per change of kind. */
function logReachability(client: MongoClient, logger: Logger): void {
  client.on('serverDescriptionChanged', (e) => {
    const was = e.previousDescription, now = e.newDescription;
    if (now.type === 'Unknown' && (was.type !== 'Unknown' || failureKind(was.error) !== failureKind(now.error))) {
      logger.warn({ server: e.address, reason: now.error?.message ?? 'unknown' }, 'store server unreachable');
    } else if (now.type !== 'Unknown' && was.type === 'Unknown' && was.error) {
      logger.info({ server: e.address, type: now.type }, 'store server reachable again');
    }
  });
}

export class MongoStore implements DocumentStore {
  readonly kind = 'mongo' as const;
  private readonly conditions: ConditionIndexes | null;

  private constructor(private readonly client: MongoClient, private readonly db: Db, exactIndexPlanner: boolean) {
    this.conditions = exactIndexPlanner ? new ConditionIndexes(db) : null;
  }

  /**
   * Connects, or fails with StoreUnavailableError when the server cannot be reached now (start-up
   * waits and tries again) or ConfigError when MONGO_URL cannot work however long one waits (a
   * malformed URL or option, refused credentials). Each try waits for a server as long as
   * MONGO_URL's serverSelectionTimeoutMS says, 5 s when it says nothing (TIMEOUT_DEFAULTS).
   */
  static async connect(url: string, dbName: string, logger?: Logger): Promise<MongoStore> {
    let client: MongoClient;
    try {
      client = new MongoClient(url, { ...timeoutDefaults(url), ignoreUndefined: true });
    } catch (err) {
      throw connectError(err);
    }
    if (logger) logReachability(client, logger);
    try {
      await client.connect();
    } catch (err) {
      await client.close().catch(() => undefined);
      throw connectError(err);
    }
    // MongoDB answers buildInfo with its gitVersion; mongo-java-server with a version only.
    const info = await client.db('admin').command({ buildInfo: 1 }).catch(() => ({} as Record<string, unknown>));
    return new MongoStore(client, client.db(dbName), !('gitVersion' in info));
  }

  /** Whether conditional writes get indexes of their own (see ConditionIndexes). */
  get indexesConditions(): boolean {
    return this.conditions !== null;
  }

  collection<T extends Doc>(name: string): Collection<T> {
    return new MongoCollection<T>(this.db, name, this.conditions);
  }

  async bulkWriteMany(writes: readonly CollectionWrite[]): Promise<void> {
    for (const w of writes) await this.collection(w.collection).bulkWrite(w.ops);
  }

  async listCollections(): Promise<string[]> {
    return (await guarded('*', () => this.db.listCollections({}, { nameOnly: true }).toArray())).map((c) => c.name);
  }

  async ping(): Promise<boolean> {
    try {
      await this.db.command({ ping: 1 });
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
