// Chatters as a resource: what an admin says about a chatter id (a display name, the accounts
// they work, a commission share of credited revenue, active or not), one document per chatter
// in a collection of its own. A chatter needs no document to exist: one the pipeline has seen
// (on a reply the connector named) is listed with what the report buckets know, and the first
// PUT gives them a record.
import type { Collection, Doc, DocumentStore } from '../adapters/store/store.js';

export const CHATTERS_COLLECTION = 'chatters';

export interface ChatterRecord {
  readonly displayName: string | null;
  /** The accounts they work ([]: none named yet). */
  readonly accountIds: readonly string[];
  /** Their share of the revenue credited to them, in percent (0–100); null: none agreed. */
  readonly commissionPct: number | null;
  readonly active: boolean;
}

export interface ChatterDoc extends Doc, ChatterRecord {
  readonly updatedAt: number;
  readonly updatedBy: string;
}

export class ChatterStore {
  readonly records: Collection<ChatterDoc>;

  constructor(store: DocumentStore) {
    this.records = store.collection<ChatterDoc>(CHATTERS_COLLECTION);
  }

  get(chatterId: string): Promise<ChatterDoc | null> {
    return this.records.findOne({ _id: chatterId });
  }

  /** By id; shared: the documents may be frozen, and are the same objects while unchanged. */
  all(): Promise<readonly ChatterDoc[]> {
    return this.records.find({ _id: { $gte: '' } }, { sort: { _id: 1 }, shared: true });
  }

  async set(chatterId: string, record: ChatterRecord, by: string, now = Date.now()): Promise<ChatterDoc> {
    const doc: ChatterDoc = { _id: chatterId, ...record, accountIds: [...new Set(record.accountIds)].sort(), updatedAt: now, updatedBy: by };
    await this.records.replaceOne({ _id: chatterId }, doc, { upsert: true });
    return doc;
  }
}
