/** A bounded map that forgets the least recently used entry, so memory stays flat as chats accumulate. */
export class LruMap<K, V> {
  private readonly map = new Map<K, V>();
  constructor(private readonly capacity: number) {}

  get(key: K): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }

  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.capacity) {
      const oldest = this.map.keys().next();
      if (!oldest.done) this.map.delete(oldest.value);
    }
  }

  delete(key: K): void {
    this.map.delete(key);
  }

  deleteWhere(pred: (value: V) => boolean): void {
    for (const [k, v] of this.map) if (pred(v)) this.map.delete(k);
  }

  get size(): number {
    return this.map.size;
  }
}
