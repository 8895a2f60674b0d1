// Read models live in versioned collections (`sessions_v3`, ...). One pointer document names
// the version the API serves and the projector writes; a replay builds the next version
// beside it and moves the pointer when it has caught up, so readers never see a half-built set.
import type { BulkOp, Collection, Doc, DocumentStore, WriteOptions } from '../adapters/store/store.js';
import type { AccountStatsDoc } from './account-stats/projection.js';
import type { ChatDoc } from './chats/projection.js';
import { PROJECTIONS } from './index.js';
import type { MessageDoc } from './messages/projection.js';
import { ALL_READ_MODELS, type ReadModelName } from './names.js';
import type { PaymentDoc } from './payments/projection.js';
import type { PpvDoc } from './ppvs/projection.js';
import type { ReassignmentDoc } from './reassignments/projection.js';
import type { ClockIntervalDoc } from './clock-intervals/projection.js';
import type { ReportBucketDoc } from './report-buckets/document.js';
import type { SessionDoc } from './sessions/projection.js';

export const META_COLLECTION = 'meta';
const POINTER_ID = 'read-models';

interface PointerDoc {
  _id: string;
  version: number;
  switchedAt: number | null;
  /** While a replay switches versions, projectors in every process hold their batches until then. */
  pausedUntil?: number | null;
  /** The definitions generation whose pipeline feeds `version` (src/definitions/generations.ts); absent: the first, 0. */
  generation?: number;
  [key: string]: unknown;
}

export interface Pointer {
  readonly version: number;
  readonly switchedAt: number | null;
  readonly pausedUntil: number | null;
  /** The definitions generation live: its pipeline feeds this version; switched with it in one write. */
  readonly generation: number;
}

export interface ReadModelCollections {
  readonly version: number;
  readonly sessions: Collection<SessionDoc>;
  readonly messages: Collection<MessageDoc>;
  readonly payments: Collection<PaymentDoc>;
  readonly ppvs: Collection<PpvDoc>;
  readonly reassignments: Collection<ReassignmentDoc>;
  readonly clock_intervals: Collection<ClockIntervalDoc>;
  readonly chats: Collection<ChatDoc>;
  readonly account_stats: Collection<AccountStatsDoc>;
  readonly report_buckets: Collection<ReportBucketDoc>;
  /** Bulk writes to several read models, in the order given, as one store write (one transaction on the embedded store). */
  writeAll(writes: readonly { readonly model: ReadModelName; readonly ops: readonly BulkOp<Doc>[] }[], options?: WriteOptions): Promise<void>;
}

export const collectionName = (model: ReadModelName, version: number): string => `${model}_v${version}`;

export class ReadModelSet {
  private readonly pointers: Collection<PointerDoc>;

  constructor(private readonly store: DocumentStore) {
    this.pointers = store.collection<PointerDoc>(META_COLLECTION);
  }

  async pointer(): Promise<Pointer> {
    const p = await this.pointers.findOne({ _id: POINTER_ID });
    return { version: p?.version ?? 1, switchedAt: p?.switchedAt ?? null, pausedUntil: p?.pausedUntil ?? null, generation: p?.generation ?? 0 };
  }

  async activeVersion(): Promise<number> {
    return (await this.pointer()).version;
  }

  /** Asks every projector to hold its batches until `until` (or until the switch clears it). */
  async pauseProjection(until: number): Promise<void> {
    const p = await this.pointer();
    await this.pointers.replaceOne({ _id: POINTER_ID }, { _id: POINTER_ID, version: p.version, switchedAt: p.switchedAt, pausedUntil: until, generation: p.generation }, { upsert: true });
  }

  /** Versions that have collections in the store (built, or left half-built by a crash). */
  async storedVersions(): Promise<number[]> {
    const versions = new Set<number>();
    for (const name of await this.allCollections()) versions.add(Number(/_v(\d+)$/.exec(name)?.[1]));
    return [...versions].filter(Number.isFinite).sort((a, b) => a - b);
  }

  async active(): Promise<ReadModelCollections> {
    return this.at(await this.activeVersion());
  }

  at(version: number): ReadModelCollections {
    const name = (m: ReadModelName) => collectionName(m, version);
    return {
      version,
      sessions: this.store.collection<SessionDoc>(name('sessions')),
      messages: this.store.collection<MessageDoc>(name('messages')),
      payments: this.store.collection<PaymentDoc>(name('payments')),
      ppvs: this.store.collection<PpvDoc>(name('ppvs')),
      reassignments: this.store.collection<ReassignmentDoc>(name('reassignments')),
      clock_intervals: this.store.collection<ClockIntervalDoc>(name('clock_intervals')),
      chats: this.store.collection<ChatDoc>(name('chats')),
      account_stats: this.store.collection<AccountStatsDoc>(name('account_stats')),
      report_buckets: this.store.collection<ReportBucketDoc>(name('report_buckets')),
      writeAll: (writes, options) => this.store.bulkWriteMany(writes.map((w) => ({ collection: name(w.model), ops: w.ops })), options),
    };
  }

  /** Indexes every named query relies on (each read model's projection lists its own, with the query each serves). Idempotent. */
  async ensureIndexes(version: number): Promise<void> {
    const rm = this.at(version);
    await Promise.all(PROJECTIONS.flatMap((p) => p.indexes.map((spec) => rm[p.name].createIndex(spec))));
  }

  /** Moves the pointer to `version`; with `generation`, the live definitions generation moves with it in the same write. */
  async switchTo(version: number, now: number, generation?: number): Promise<void> {
    const g = generation ?? (await this.pointer()).generation;
    await this.pointers.replaceOne({ _id: POINTER_ID }, { _id: POINTER_ID, version, switchedAt: now, pausedUntil: null, generation: g }, { upsert: true });
  }

  /** Every read-model collection of any version, for a full reset. */
  async allCollections(): Promise<string[]> {
    const names = await this.store.listCollections();
    return names.filter((n) => ALL_READ_MODELS.some((m) => new RegExp(`^${m}_v\\d+$`).test(n)));
  }

  async dropVersion(version: number): Promise<void> {
    for (const m of ALL_READ_MODELS) await this.store.collection(collectionName(m, version)).drop();
  }

  async resetPointer(): Promise<void> {
    await this.pointers.deleteMany({ _id: POINTER_ID });
  }
}
