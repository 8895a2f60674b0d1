// The log seam: what the pipeline needs from Kafka, and what the embedded log imitates.
// Offsets are plain numbers (a partition would need 2^53 records to overflow).

export interface TopicSpec {
  readonly name: string;
  readonly partitions: number;
}

export interface AppendRecord {
  readonly key: string;
  readonly value: Buffer | string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Record time in ms; defaults to the append time. */
  readonly timestamp?: number;
  /** Explicit partition (clock ticks go to every partition); otherwise chosen from the key. */
  readonly partition?: number;
}

export interface LogRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly key: string;
  readonly value: Buffer;
  readonly headers: Readonly<Record<string, string>>;
  readonly timestamp: number;
}

export interface AppendResult {
  readonly partition: number;
  readonly offset: number;
}

export interface RecordBatch {
  readonly topic: string;
  readonly partition: number;
  readonly records: readonly LogRecord[];
  /** False once this consumer no longer owns the partition (a rebalance moved it, or it is stopping): the handler must not write. */
  readonly owned?: () => boolean;
}

interface ConsumeCommon {
  readonly groupId: string;
  readonly topics: readonly string[];
  /** Where a group with no committed offset starts. */
  readonly fromBeginning?: boolean;
  /** Called when a handler throws; the consumer retries the batches after a pause. */
  readonly onError?: (err: unknown, batches: readonly RecordBatch[]) => void;
  /** Told how the consumer stands in its group (Kafka): what health and metrics read. */
  readonly monitor?: ConsumerMonitor;
  /**
   * Records per partition a round takes at most (the embedded log; Kafka rounds have their own
   * limits): small rounds for background work that shares the event loop with the API.
   */
  readonly maxRecordsPerPartition?: number | (() => number);
}

/** Why a consumer joined its group again: a rebalance it took part in, or one it missed. */
export type RejoinReason = 'rebalance' | 'dropped' | 'crashed';

/**
 * How a consumer stands in its group, as the log adapter sees it. A consumer whose rounds run
 * and whose commits are refused (the group dropped it) looks busy from the handler's side; only
 * the adapter sees the commits and the group.
 */
export interface ConsumerMonitor {
  /** A round's offsets were committed; `waiting`: records known to wait after them (from the fetches' high watermarks). */
  committed(waiting: number, now?: number): void;
  /** Records known to wait for this consumer, from a fetch. */
  waiting(records: number, now?: number): void;
  /** The consumer joined its group again: `dropped` when the group had gone on without it, `crashed` when the client gave up and was started again. */
  rejoined(reason: RejoinReason, detail: string, now?: number): void;
}

export interface ConsumeOptions extends ConsumeCommon {
  /**
   * Called with records of one partition in offset order. The batch's offsets are committed
   * only after the returned promise resolves, so a crash re-delivers it (at least once).
   */
  readonly onBatch: (batch: RecordBatch) => Promise<void>;
}

export interface ConsumeRoundsOptions extends ConsumeCommon {
  /**
   * Called with one fetch round: at most one batch per partition, each in offset order, one
   * call at a time. A handler that folds them together pays one set of reads, writes and
   * appends for the round instead of one per partition. All the round's offsets are committed
   * in one request, only after the returned promise resolves; if it throws, none are.
   */
  readonly onRound: (batches: readonly RecordBatch[]) => Promise<void>;
}

export interface Consumer {
  stop(): Promise<void>;
}

/** Where to move a consumer group: the first record, explicit offsets, or the first record at/after a time. */
export type GroupPosition =
  | { readonly kind: 'earliest' }
  | { readonly kind: 'offsets'; readonly offsets: Readonly<Record<number, number>> }
  | { readonly kind: 'timestamp'; readonly timestamp: number };

export interface Log {
  readonly kind: 'kafka' | 'embedded';
  createTopics(topics: readonly TopicSpec[]): Promise<void>;
  partitionCount(topic: string): Promise<number>;
  /** Resolves only once every record is durably stored (Kafka acks=all; embedded fsync). */
  append(topic: string, records: readonly AppendRecord[]): Promise<AppendResult[]>;
  consume(options: ConsumeOptions): Promise<Consumer>;
  consumeRounds(options: ConsumeRoundsOptions): Promise<Consumer>;
  /** Moves an inactive group's committed offsets (replay). */
  setGroupPosition(groupId: string, topic: string, position: GroupPosition): Promise<void>;
  /** Next offset the group will read, per partition (absent partitions: nothing committed). */
  committedOffsets(groupId: string, topic: string): Promise<Record<number, number>>;
  /** Next offset to be written, per partition. */
  endOffsets(topic: string): Promise<Record<number, number>>;
  /**
   * The one record at a position (an admin's retry of a set-aside record reads it whole), or
   * null when the log does not hold it: aged out by retention, or an offset past the end.
   * Throws TopicNotFoundError for an unknown topic; bounded in time (LogReadTimeoutError).
   */
  readRecord(topic: string, partition: number, offset: number): Promise<LogRecord | null>;
  /**
   * The records one partition holds in `[from, to)` that `keep` accepts (all by default), in
   * offset order, and how many the partition held there (the processor re-deriving chats the
   * store lost: a range can be long, only the kept records stay in memory). Offsets the log no
   * longer holds are absent. Throws TopicNotFoundError for an unknown topic; bounded in time
   * while it makes no progress.
   */
  readRange(topic: string, partition: number, from: number, to: number, keep?: (r: LogRecord) => boolean): Promise<RangeRead>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export class TopicNotFoundError extends Error {
  constructor(readonly topic: string) {
    super(`topic ${topic} does not exist`);
    this.name = 'TopicNotFoundError';
  }
}

/** The log did not hand over a record in time (Kafka: no fetch answered); nothing was read. */
export interface RangeRead {
  readonly records: LogRecord[];
  /** Records the partition held in the range, kept or not. */
  readonly held: number;
}

export class LogReadTimeoutError extends Error {
  constructor(readonly topic: string, readonly partition: number, readonly offset: number, ms: number) {
    super(`reading ${topic}:${partition}:${offset} took longer than ${ms} ms`);
    this.name = 'LogReadTimeoutError';
  }
}

/**
 * A per-partition handler as a round handler: the round's batches run side by side and commit
 * together, so one that fails has the others delivered again with it (at least once).
 */
export function perBatch(options: ConsumeOptions): ConsumeRoundsOptions {
  const { onBatch, ...common } = options;
  return { ...common, onRound: async (batches) => { await Promise.all(batches.map(onBatch)); } };
}
