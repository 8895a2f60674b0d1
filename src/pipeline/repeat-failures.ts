// A failure that would repeat is set aside at whatever stage it happens, not retried forever.
// Folding and stepping set their failures aside record by record already; a failure of a
// round's append or store write names no record. When the same round fails the same way twice,
// the stage runs its records one at a time, and the one whose own round still fails is set
// aside (stage 'write'), so the partition moves on. Failures that are not a record's fault
// (the store or the broker unavailable, a fence, a paused projection, stored data in a format
// this version does not read) are never counted here: they are retried with the consumer's
// backoff, and the record is never set aside for them.
import type { RecordBatch } from '../adapters/log/log.js';

/** Errors no record causes: availability, ownership, stored formats. Matched by name, across libraries. */
const OURS_NOT_THE_RECORDS = new Set([
  'StoreUnavailableError', 'StoredFormatError', 'WriteConflictError', 'BatchFencedError', 'AppendTimeoutError', 'LogReadTimeoutError',
  'TopicNotFoundError', 'ProjectionPaused',
]);
/** The driver's outages: MongoNetworkError, MongoNetworkTimeoutError, MongoServerSelectionError… */
const MONGO_OUTAGE = ['MongoNetwork', 'MongoServerSelection', 'MongoTopologyClosed', 'MongoNotConnected', 'MongoPoolCleared'];
const notTheRecords = (name: string): boolean =>
  OURS_NOT_THE_RECORDS.has(name) || name.startsWith('KafkaJS') || (name.endsWith('Error') && MONGO_OUTAGE.some((p) => name.startsWith(p)));

/** Errno codes of the machine or the network, never of a record. */
const SYSTEM_CODE = /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EAI_AGAIN|ENOSPC|EIO|EACCES|EROFS|EMFILE|ENOMEM)$/;
/** A full or failing disk, as LMDB reports it. */
const STORAGE_TROUBLE = /MDB_MAP_FULL|MDB_TXN_FULL|MDB_PANIC|MDB_READERS_FULL|No space left|disk full|Input\/output error/i;
/** MongoDB server codes of a node that cannot take writes now (stepping down, shutting down, no primary, write concern). */
const MONGO_NOT_NOW = new Set([6, 7, 89, 91, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436, 64, 100]);

/**
 * Whether the failure may be the records' own. Anything not known to be an outage counts as
 * the records': a failure that repeats on one round and whose cause is unknown must not stall
 * the partition for good. What is known to be an outage is listed here, by name and by code.
 */
export function isRecordsFault(err: unknown): boolean {
  if (!(err instanceof Error)) return true;
  if (notTheRecords(err.name) || notTheRecords(err.constructor.name)) return false;
  if (STORAGE_TROUBLE.test(err.message)) return false;
  const e = err as { code?: unknown; errorLabels?: unknown; hasErrorLabel?: (label: string) => boolean };
  if (typeof e.code === 'string' && SYSTEM_CODE.test(e.code)) return false;
  if (typeof e.code === 'number' && MONGO_NOT_NOW.has(e.code)) return false;
  if (typeof e.hasErrorLabel === 'function' && (e.hasErrorLabel('RetryableWriteError') || e.hasErrorLabel('TransientTransactionError'))) return false;
  // An outage underneath a wrapper.
  return err.cause === undefined || isRecordsFault(err.cause);
}

/** The records a round covers, as `<topic>:<partition>:<first>-<last>` per batch. */
export function roundSignature(batches: readonly RecordBatch[]): string {
  return batches.map((b) => `${b.topic}:${b.partition}:${b.records[0]?.offset ?? -1}-${b.records[b.records.length - 1]?.offset ?? -1}`).join(',');
}

/**
 * A stage's round, with the repeat rule: `run` handles a round; a round that failed the same way
 * the last time, for a reason that may be its records', is run a record at a time, and a record
 * whose own round fails is marked in `poisoned` (position → error) and run once more, for `run`
 * to set it aside. A failure that is not the records' fault is thrown (the consumer retries).
 */
export class IsolatingRounds {
  private readonly repeats = new RepeatFailures();

  constructor(
    private readonly run: (batches: readonly RecordBatch[]) => Promise<void>,
    private readonly poisoned: Map<string, string>,
    private readonly warn: (err: unknown, partitions: number[]) => void,
  ) {}

  async handle(round: readonly RecordBatch[]): Promise<void> {
    try {
      await this.run(round);
    } catch (err) {
      if (!isRecordsFault(err) || !this.repeats.repeated(round, err)) throw err;
      this.warn(err, round.map((b) => b.partition));
      for (const batch of round) {
        for (const rec of batch.records) {
          const single = [{ ...batch, records: [rec] }];
          try {
            await this.run(single);
          } catch (e) {
            // Store or broker down: the whole round is retried later (what was done is skipped as applied).
            if (!isRecordsFault(e)) throw e;
            this.poisoned.set(positionOf(rec), e instanceof Error ? `${e.name}: ${e.message}`.slice(0, 1000) : String(e).slice(0, 1000));
            await this.run(single);
          }
        }
      }
    }
    this.repeats.clear();
  }
}

/** Remembers the last failed round and how it failed, to tell a repeat from a passing fault. */
export class RepeatFailures {
  private last: { readonly round: string; readonly error: string } | null = null;

  /** Whether this round failed the same way the last time it ran (records the failure either way). */
  repeated(batches: readonly RecordBatch[], err: unknown): boolean {
    const now = { round: roundSignature(batches), error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) };
    const same = this.last !== null && this.last.round === now.round && this.last.error === now.error;
    this.last = now;
    return same;
  }

  clear(): void {
    this.last = null;
  }
}

/** A record's position, the key of the records a stage has decided to set aside. */
export const positionOf = (r: { readonly topic: string; readonly partition: number; readonly offset: number }): string => `${r.topic}:${r.partition}:${r.offset}`;
