// The embedded log: partitions, offsets and consumer groups on LMDB, for the single-machine
// deployment. An append resolves only after LMDB has flushed the commit to disk, so an
// acknowledged record survives SIGKILL. A consumer group has one member (this process).
import { EventEmitter } from 'node:events';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Database, RootDatabase } from 'lmdb';
import type {
  AppendRecord, AppendResult, ConsumeOptions, ConsumeRoundsOptions, Consumer, GroupPosition, Log, LogRecord, RangeRead, RecordBatch, TopicSpec,
} from './log.js';
import { perBatch, TopicNotFoundError } from './log.js';
import { partitionForKey } from './partitioner.js';
import { openSharedRoot, type SharedRoot } from '../lmdb-roots.js';
import { SHARED_STRUCTURES } from '../lmdb-structures.js';
import { StoredFormatError } from '../../support/stored-format.js';

interface StoredRecord {
  readonly k: string;
  readonly v: Buffer;
  readonly h: Record<string, string>;
  readonly t: number;
}

type PartitionKey = [string, number];
type RecordKey = [string, number, number];
type GroupKey = [string, string, number];

/** Where one topic's records and partition heads live. */
interface TopicFiles {
  readonly root: RootDatabase;
  readonly records: Database<StoredRecord, RecordKey>;
  readonly heads: Database<number, PartitionKey>;
}

/** What the log folder's main environment holds, set up once per process (see lmdb-roots). */
interface MainFiles {
  readonly topics: Database<number, string>;
  readonly groups: Database<number, GroupKey>;
}

const BATCH_SIZE = 5000;
const IDLE_POLL_MS = 20;
const RETRY_PAUSE_MS = 500;
/** A round that carried this many records or more is not followed by a linger (a backlog, a replay). */
const LINGER_BELOW = 200;

/** A consumer's pause between rounds, which its stop cuts short (an append must not: that is what it waits for). */
class Linger {
  private timer: NodeJS.Timeout | null = null;
  private done: (() => void) | null = null;

  wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.done = resolve;
      this.timer = setTimeout(() => this.cut(), ms);
    });
  }

  cut(): void {
    if (this.timer) clearTimeout(this.timer);
    const done = this.done;
    this.timer = null;
    this.done = null;
    done?.();
  }
}

// LMDB writes inside a transaction callback resolve with the transaction, which is awaited;
// `void` marks the single puts whose promises are deliberately not.
export class EmbeddedLog implements Log {
  readonly kind = 'embedded' as const;
  // The folder's environments, each opened once in this process and shared with every other
  // log open on the folder: opened a second time, lmdb-js gave each its own write thread on
  // the one writer lock, and a log opening a topic's databases (a synchronous write) while
  // another's write thread waited for its append's callback hung the process (see lmdb-roots).
  private readonly main: SharedRoot<MainFiles>;
  private readonly root: RootDatabase;
  private readonly topics: Database<number, string>;
  private readonly groups: Database<number, GroupKey>;
  private readonly topicRoots = new Map<string, SharedRoot<TopicFiles>>();
  private closed = false;
  private readonly appended = new EventEmitter();
  private readonly activeGroups = new Set<string>();
  private readonly running = new Set<{ stop(): Promise<void> }>();

  /**
   * `roundLingerMs`: a consumer that has just run a round with records, straight after another
   * (arrivals outpace its rounds), and took under LINGER_BELOW records waits this long before the
   * next, so a busy pipeline runs fewer, larger rounds. Each round pays for its commits and
   * rewrites the report buckets it touches whatever it carries: at 1,000 webhooks/s rounds of two
   * events cost a worker most of a core (docs/benchmarks.md). A consumer that waited for records
   * never lingers: a quiet pipeline answers at once; nor does one whose read of a partition came
   * back full (a backlog, even under a small per-partition cap such as a preview's).
   */
  constructor(private readonly dataDir: string, private readonly options: { readonly roundLingerMs?: number } = {}) {
    const path = join(dataDir, 'log');
    mkdirSync(path, { recursive: true });
    this.main = openLogRoot(path);
    this.root = this.main.root;
    this.topics = this.main.opened.topics;
    this.groups = this.main.opened.groups;
    this.appended.setMaxListeners(0);
  }

  /** The files of `topic`, opened on first use. */
  private files(topic: string): TopicFiles {
    let f = this.topicRoots.get(topic);
    if (!f) {
      if (this.closed) throw new Error('the log is closed');
      const path = join(this.dataDir, 'log', 'topics', topicFolder(topic));
      mkdirSync(path, { recursive: true });
      // noSubdir: a topic's dots would otherwise make lmdb-js take the folder for a file name.
      f = openTopicRoot(path);
      this.topicRoots.set(topic, f);
    }
    return f.opened;
  }

  async createTopics(topics: readonly TopicSpec[]): Promise<void> {
    await this.root.transaction(() => {
      for (const t of topics) {
        if (this.topics.get(t.name) === undefined) void this.topics.put(t.name, t.partitions);
      }
    });
    await this.root.flushed;
  }

  async partitionCount(topic: string): Promise<number> {
    const count = this.topics.get(topic);
    if (count === undefined) throw new TopicNotFoundError(topic);
    return count;
  }

  async append(topic: string, records: readonly AppendRecord[]): Promise<AppendResult[]> {
    if (records.length === 0) return [];
    const count = await this.partitionCount(topic);
    const now = Date.now();
    const results: AppendResult[] = [];
    const { root, records: stored, heads } = this.files(topic);
    await root.transaction(() => {
      const next = new Map<number, number>();
      for (const r of records) {
        const partition = r.partition ?? partitionForKey(r.key, count);
        if (partition < 0 || partition >= count) throw new Error(`partition ${partition} out of range for ${topic}`);
        const offset = next.get(partition) ?? heads.get([topic, partition]) ?? 0;
        void stored.put([topic, partition, offset], {
          k: r.key,
          v: Buffer.isBuffer(r.value) ? r.value : Buffer.from(r.value),
          h: { ...(r.headers ?? {}) },
          t: r.timestamp ?? now,
        });
        next.set(partition, offset + 1);
        results.push({ partition, offset });
      }
      for (const [partition, head] of next) void heads.put([topic, partition], head);
    });
    await root.flushed;
    this.appended.emit('append', topic);
    return results;
  }

  private head(topic: string, partition: number): number {
    return this.files(topic).heads.get([topic, partition]) ?? 0;
  }

  private read(topic: string, partition: number, from: number, limit: number): LogRecord[] {
    const out: LogRecord[] = [];
    for (const { key, value } of this.files(topic).records.getRange({
      start: [topic, partition, from],
      end: [topic, partition, Number.MAX_SAFE_INTEGER],
      limit,
    })) {
      out.push({ topic, partition, offset: key[2], key: value.k, value: Buffer.from(value.v), headers: value.h, timestamp: value.t });
    }
    return out;
  }

  private waitForAppend(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.appended.off('append', done);
        resolve();
      };
      // The timer also covers appends made by another process sharing DATA_DIR.
      const timer = setTimeout(done, ms);
      this.appended.on('append', done);
    });
  }

  consume(options: ConsumeOptions): Promise<Consumer> {
    return this.consumeRounds(perBatch(options));
  }

  async consumeRounds(options: ConsumeRoundsOptions): Promise<Consumer> {
    const { groupId, topics } = options;
    const cap = options.maxRecordsPerPartition;
    const perPartition = (): number => Math.max(1, Math.min(BATCH_SIZE, Math.floor(typeof cap === 'function' ? cap() : cap ?? BATCH_SIZE)));
    if (this.activeGroups.has(groupId)) {
      throw new Error(`consumer group ${groupId} already has a member in this process`);
    }
    const counts = await Promise.all(topics.map((t) => this.partitionCount(t)));
    // A new group that should not start from the beginning starts at the current end.
    await this.root.transaction(() => {
      topics.forEach((topic, i) => {
        for (let p = 0; p < (counts[i] ?? 0); p++) {
          if (this.groups.get([groupId, topic, p]) === undefined && options.fromBeginning === false) {
            void this.groups.put([groupId, topic, p], this.head(topic, p));
          }
        }
      });
    });
    this.activeGroups.add(groupId);
    let active = true;
    const lingering = new Linger();
    const loop = (async () => {
      // Rounds over all partitions at once (as Kafka consumers run here), one batch each: a
      // record does not wait for every other partition's turn, and the round's offsets go in
      // one transaction.
      let carried = 0;
      // A partition read that hit its cap: a backlog, which lingering would only slow down.
      let capped = false;
      const round = async (topic: string, count: number): Promise<boolean> => {
        const batches: RecordBatch[] = [];
        for (let p = 0; p < count; p++) {
          const from = this.groups.get([groupId, topic, p]) ?? 0;
          // A partition with nothing new costs one get of its head instead of a range read (a
          // cursor): at 1,000 webhooks/s a round holds a few records, so most partitions are
          // empty in any one round, and every round looked at all of them.
          if (this.head(topic, p) <= from) continue;
          const cap = perPartition();
          const records = this.read(topic, p, from, cap);
          if (records.length >= cap) capped = true;
          if (records.length > 0) {
            carried += records.length;
            batches.push({ topic, partition: p, records, owned: () => active });
            // A full read of every partition (up to 60,000 records, copied out of LMDB) in one
            // stretch held the event loop for hundreds of ms during a replay; the API shares it.
            if (p < count - 1) await new Promise<void>((r) => setImmediate(r));
          }
        }
        if (batches.length === 0) return false;
        try {
          await options.onRound(batches);
        } catch (err) {
          options.onError?.(err, batches);
          await new Promise((r) => setTimeout(r, RETRY_PAUSE_MS));
          return false;
        }
        if (!active) return false;
        await this.root.transaction(() => {
          for (const b of batches) void this.groups.put([groupId, topic, b.partition], (b.records[b.records.length - 1]?.offset ?? -1) + 1);
        });
        return true;
      };
      const linger = this.options.roundLingerMs ?? 0;
      // Whether the last pass ran a round: this one found records without waiting for them.
      let busy = false;
      while (active) {
        let progressed = false;
        for (let i = 0; i < topics.length && active; i++) {
          if (await round(topics[i] as string, counts[i] ?? 0)) progressed = true;
        }
        if (!active) break;
        if (!progressed) await this.waitForAppend(IDLE_POLL_MS);
        else if (busy && linger > 0 && carried < LINGER_BELOW && !capped) await lingering.wait(linger);
        busy = progressed;
        carried = 0;
        capped = false;
      }
    })();
    const handle = {
      stop: async (): Promise<void> => {
        if (!active) return;
        active = false;
        this.appended.emit('append', '');
        lingering.cut();
        await loop;
        await this.root.flushed;
        this.activeGroups.delete(groupId);
        this.running.delete(handle);
      },
    };
    this.running.add(handle);
    return handle;
  }

  async setGroupPosition(groupId: string, topic: string, position: GroupPosition): Promise<void> {
    if (this.activeGroups.has(groupId)) throw new Error(`consumer group ${groupId} is active; stop it first`);
    const count = await this.partitionCount(topic);
    await this.root.transaction(() => {
      for (let p = 0; p < count; p++) {
        let offset: number | undefined;
        if (position.kind === 'earliest') offset = 0;
        else if (position.kind === 'offsets') offset = position.offsets[p];
        else offset = this.firstAtOrAfter(topic, p, position.timestamp);
        if (offset !== undefined) void this.groups.put([groupId, topic, p], offset);
      }
    });
    await this.root.flushed;
  }

  private firstAtOrAfter(topic: string, partition: number, timestamp: number): number {
    for (const { key, value } of this.files(topic).records.getRange({
      start: [topic, partition, 0],
      end: [topic, partition, Number.MAX_SAFE_INTEGER],
    })) {
      if (value.t >= timestamp) return key[2];
    }
    return this.head(topic, partition);
  }

  async committedOffsets(groupId: string, topic: string): Promise<Record<number, number>> {
    const count = await this.partitionCount(topic);
    const out: Record<number, number> = {};
    for (let p = 0; p < count; p++) {
      const o = this.groups.get([groupId, topic, p]);
      if (o !== undefined) out[p] = o;
    }
    return out;
  }

  async endOffsets(topic: string): Promise<Record<number, number>> {
    const count = await this.partitionCount(topic);
    const out: Record<number, number> = {};
    for (let p = 0; p < count; p++) out[p] = this.head(topic, p);
    return out;
  }

  async readRecord(topic: string, partition: number, offset: number): Promise<LogRecord | null> {
    const count = await this.partitionCount(topic);
    if (!Number.isInteger(partition) || partition < 0 || partition >= count || !Number.isSafeInteger(offset) || offset < 0) return null;
    const value = this.files(topic).records.get([topic, partition, offset]);
    if (value === undefined) return null;
    return { topic, partition, offset, key: value.k, value: Buffer.from(value.v), headers: { ...value.h }, timestamp: value.t };
  }

  async readRange(topic: string, partition: number, from: number, to: number, keep: (r: LogRecord) => boolean = () => true): Promise<RangeRead> {
    const count = await this.partitionCount(topic);
    const out: LogRecord[] = [];
    let held = 0;
    if (!Number.isInteger(partition) || partition < 0 || partition >= count || !Number.isSafeInteger(from) || !Number.isSafeInteger(to) || from < 0 || to <= from) return { records: out, held };
    // In slices, a turn between them: a long range must not hold the event loop. `keep` sees each
    // record with its value as decoded (no copy); only the records it keeps are copied out.
    for (let at = from; at < to;) {
      let read = 0;
      let last = -1;
      for (const { key, value } of this.files(topic).records.getRange({ start: [topic, partition, at], end: [topic, partition, to], limit: RANGE_SLICE })) {
        read++;
        last = key[2];
        const r: LogRecord = { topic, partition, offset: key[2], key: value.k, value: value.v, headers: value.h, timestamp: value.t };
        if (keep(r)) out.push({ ...r, value: Buffer.from(value.v) });
      }
      held += read;
      if (read < RANGE_SLICE || last + 1 >= to) break;
      at = last + 1;
      await new Promise((r) => setImmediate(r));
    }
    return { records: out, held };
  }

  async ping(): Promise<boolean> {
    return true;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.running].map((c) => c.stop()));
    // Each environment closes once this log's writes to it are flushed and no other log in
    // this process has it open.
    for (const f of this.topicRoots.values()) await f.release();
    await this.main.release();
  }
}

const RANGE_SLICE = 1000;

/**
 * The log folder's main environment (topics, consumer groups), as every user of it in this
 * process opens it: the log, and a backup that finds it closed.
 */
export function openLogRoot(path: string): SharedRoot<MainFiles> {
  return openSharedRoot(path, { maxDbs: 8, mapSize: 2 ** 34, overlappingSync: false }, (root): MainFiles => {
    const topics = root.openDB<number, string>({ name: 'topics', encoding: 'msgpack' });
    const groups = root.openDB<number, GroupKey>({ name: 'groups', encoding: 'msgpack' });
    // Each topic has its own environment, so its own write lock. An LMDB write transaction
    // holds its environment's lock until this process's event loop has run its callback:
    // with one environment, the API's inbound appends queued behind a busy worker's event
    // appends (at 1,000/s in the split layout: up to 22 ms p99 waiting for the lock, 43 ms
    // p99 in all). Builds before 0.1.0 kept every topic's records in the main environment;
    // this version does not read that layout (../../support/stored-format.ts).
    const older = recordFiles(root).records.getKeysCount({ limit: 1 }) > 0;
    // That read opened a read transaction, which lmdb-js keeps until a timer fires: a topic
    // another process creates meanwhile would look missing. Reads start afresh from here.
    root.resetReadTxn();
    if (older) {
      throw new StoredFormatError(`the embedded log in ${path} was written by a build of convops before 0.1.0: it keeps its records in ${path} itself. `
        + `This version reads only the layout with each topic in its own folder under ${join(path, 'topics')}, and does not move records from the older one. Nothing was changed. `
        + 'Start with an empty DATA_DIR (move this one aside).');
    }
    return { topics, groups };
  });
}

/** A topic's environment, opened as the log opens it. */
export function openTopicRoot(path: string): SharedRoot<TopicFiles> {
  // noSubdir: a topic's dots would otherwise make lmdb-js take the folder for a file name.
  return openSharedRoot(path, { noSubdir: false, maxDbs: 4, mapSize: 2 ** 34, overlappingSync: false }, recordFiles);
}

function recordFiles(root: RootDatabase): TopicFiles {
  return {
    root,
    records: root.openDB<StoredRecord, RecordKey>({ name: 'records', encoding: 'msgpack', sharedStructuresKey: SHARED_STRUCTURES }),
    heads: root.openDB<number, PartitionKey>({ name: 'heads', encoding: 'msgpack' }),
  };
}

/** A folder name for a topic: Kafka's topic characters as they are, anything else hex-escaped. */
function topicFolder(topic: string): string {
  return /^[A-Za-z0-9._-]+$/.test(topic) && topic !== '.' && topic !== '..'
    ? topic
    : `~${Buffer.from(topic, 'utf8').toString('hex')}`;
}
