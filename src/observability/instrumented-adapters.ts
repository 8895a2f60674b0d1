// The log and the store as the rest of the app sees them, timed: every append and every bulk
// write is observed in the app's metrics. Decorators at the seam, so no caller has to remember
// to measure, and reads pass straight through.
import type { AppendRecord, AppendResult, Consumer, ConsumeOptions, ConsumeRoundsOptions, GroupPosition, Log, LogRecord, RangeRead, TopicSpec } from '../adapters/log/log.js';
import type { Collection, CollectionWrite, Doc, DocumentStore, WriteOptions } from '../adapters/store/store.js';
import { secondsSince, type Metrics } from './metrics.js';

async function timed<T>(observe: (outcome: 'ok' | 'error', seconds: number) => void, work: () => Promise<T>): Promise<T> {
  const start = performance.now();
  try {
    const result = await work();
    observe('ok', secondsSince(start));
    return result;
  } catch (err) {
    observe('error', secondsSince(start));
    throw err;
  }
}

class InstrumentedLog implements Log {
  constructor(private readonly inner: Log, private readonly metrics: Metrics) {}

  get kind(): Log['kind'] {
    return this.inner.kind;
  }

  append(topic: string, records: readonly AppendRecord[]): Promise<AppendResult[]> {
    return timed((outcome, s) => this.metrics.logAppend.observe({ topic, outcome }, s), () => this.inner.append(topic, records));
  }

  createTopics(topics: readonly TopicSpec[]): Promise<void> { return this.inner.createTopics(topics); }
  partitionCount(topic: string): Promise<number> { return this.inner.partitionCount(topic); }
  consume(options: ConsumeOptions): Promise<Consumer> { return this.inner.consume(options); }
  consumeRounds(options: ConsumeRoundsOptions): Promise<Consumer> { return this.inner.consumeRounds(options); }
  setGroupPosition(groupId: string, topic: string, position: GroupPosition): Promise<void> { return this.inner.setGroupPosition(groupId, topic, position); }
  committedOffsets(groupId: string, topic: string): Promise<Record<number, number>> { return this.inner.committedOffsets(groupId, topic); }
  endOffsets(topic: string): Promise<Record<number, number>> { return this.inner.endOffsets(topic); }
  readRecord(topic: string, partition: number, offset: number): Promise<LogRecord | null> { return this.inner.readRecord(topic, partition, offset); }
  readRange(topic: string, partition: number, from: number, to: number, keep?: (r: LogRecord) => boolean): Promise<RangeRead> { return this.inner.readRange(topic, partition, from, to, keep); }
  ping(): Promise<boolean> { return this.inner.ping(); }
  close(): Promise<void> { return this.inner.close(); }
}

class InstrumentedStore implements DocumentStore {
  constructor(private readonly inner: DocumentStore, private readonly metrics: Metrics) {}

  get kind(): DocumentStore['kind'] {
    return this.inner.kind;
  }

  /** Rounds write through bulkWriteMany; single-document writes (jobs, keys, acks) are not the hot path. */
  collection<T extends Doc>(name: string): Collection<T> {
    return this.inner.collection<T>(name);
  }

  bulkWriteMany(writes: readonly CollectionWrite[], options?: WriteOptions): Promise<void> {
    return timed((outcome, s) => this.metrics.storeWrite.observe({ outcome }, s), () => this.inner.bulkWriteMany(writes, options));
  }

  listCollections(): Promise<string[]> { return this.inner.listCollections(); }
  get documentsExamined(): (() => ReadonlyMap<string, number>) | undefined { return this.inner.documentsExamined?.bind(this.inner); }
  ping(): Promise<boolean> { return this.inner.ping(); }
  close(): Promise<void> { return this.inner.close(); }
}

export const instrumentLog = (log: Log, metrics: Metrics): Log => new InstrumentedLog(log, metrics);
export const instrumentStore = (store: DocumentStore, metrics: Metrics): DocumentStore => new InstrumentedStore(store, metrics);
