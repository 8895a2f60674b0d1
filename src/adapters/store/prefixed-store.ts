// A deployment's view of a shared store: every collection name carries its TOPIC_PREFIX, so
// deployments that share a database (or a DATA_DIR) keep separate chat states, read models,
// pointers, jobs and alerts, as their topics and consumer groups are already kept apart.
// Applied once here, at the seam, so code above it names collections as if alone.
import type { Collection, CollectionWrite, Doc, DocumentStore, WriteOptions } from './store.js';

export class PrefixedStore implements DocumentStore {
  constructor(private readonly inner: DocumentStore, readonly prefix: string) {}

  get kind(): DocumentStore['kind'] {
    return this.inner.kind;
  }

  /** The collection itself, not a wrapper (no cost on the projector's path); its `name` is the stored name. */
  collection<T extends Doc>(name: string): Collection<T> {
    return this.inner.collection<T>(this.prefix + name);
  }

  bulkWriteMany(writes: readonly CollectionWrite[], options?: WriteOptions): Promise<void> {
    return this.inner.bulkWriteMany(writes.map((w) => ({ collection: this.prefix + w.collection, ops: w.ops })), options);
  }

  /**
   * This deployment's collections, named as it names them. A prefix that extends this one
   * ('a.' and 'a.b.') lists the other's collections too, stripped to names no code of ours
   * asks for ('b.meta'); callers that list pick read models by exact pattern.
   */
  async listCollections(): Promise<string[]> {
    return (await this.inner.listCollections())
      .filter((n) => n.startsWith(this.prefix) && n.length > this.prefix.length)
      .map((n) => n.slice(this.prefix.length));
  }

  /** This deployment's collections' counts, named as it names them (undefined where the store keeps none). */
  get documentsExamined(): (() => ReadonlyMap<string, number>) | undefined {
    const inner = this.inner.documentsExamined?.bind(this.inner);
    if (!inner) return undefined;
    return () => new Map([...inner()].filter(([n]) => n.startsWith(this.prefix) && n.length > this.prefix.length).map(([n, v]) => [n.slice(this.prefix.length), v]));
  }

  ping(): Promise<boolean> {
    return this.inner.ping();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** An empty prefix keeps the store's names exactly as they were before prefixes, so existing data stays readable. */
export function withPrefix(store: DocumentStore, prefix: string): DocumentStore {
  return prefix === '' ? store : new PrefixedStore(store, prefix);
}
