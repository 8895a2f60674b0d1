// Decoded documents kept between reads, for callers that promise not to modify what they get
// (`FindOptions.shared`). A report reads the same month buckets on every request, and decoding
// a month of first-response histograms (thousands of fields) is most of its cost; the stored
// bytes of a document that has not changed are identical, so comparing bytes (a memcmp) tells
// whether the decoded copy is still the document. This holds whichever process wrote: the
// bytes are read from the store on every call, only the decoding is saved.

interface Entry {
  readonly bytes: Buffer;
  readonly doc: object;
}

/** Bytes of stored documents kept (their decoded forms take a few times more heap). */
const DEFAULT_BUDGET_BYTES = 32 * 1024 * 1024;

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const k in value) deepFreeze((value as Record<string, unknown>)[k]);
  }
  return value;
}

export class SharedReads {
  // Map order is recency order: a hit moves its entry to the end, eviction takes the front.
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(private readonly budgetBytes = DEFAULT_BUDGET_BYTES) {}

  /**
   * The decoded document whose stored bytes are `stored`: the kept copy when they are the same
   * bytes, else `decode()` (frozen, and kept). `stored` may be the store's transient view (valid
   * until its next read): it is compared in place and copied only when the document changed, so
   * an unchanged document costs a compare and no allocation.
   */
  get<T extends object>(key: string, stored: Buffer, decode: () => T | undefined): T | undefined {
    const hit = this.entries.get(key);
    if (hit && hit.bytes.equals(stored)) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.doc as T;
    }
    // Before decode(): its own read reuses the memory `stored` views.
    const copy = Buffer.from(stored);
    const doc = decode();
    if (hit) this.drop(key, hit);
    if (doc === undefined) return undefined;
    if (copy.length <= this.budgetBytes / 4) {
      this.entries.set(key, { bytes: copy, doc: deepFreeze(doc) });
      this.bytes += copy.length;
      this.evict();
    }
    return doc;
  }

  get size(): number {
    return this.entries.size;
  }

  private drop(key: string, e: Entry): void {
    this.entries.delete(key);
    this.bytes -= e.bytes.length;
  }

  private evict(): void {
    for (const [key, e] of this.entries) {
      if (this.bytes <= this.budgetBytes) return;
      this.drop(key, e);
    }
  }
}
