// Chatters' rosters (domain/roster.ts), one document per chatter in a collection of its own,
// replaced whole by each PUT: what a manager planned, with who planned it and when.
import type { Collection, Doc, DocumentStore } from '../adapters/store/store.js';
import type { Roster } from '../domain/roster.js';

export const ROSTERS_COLLECTION = 'rosters';

export interface RosterDoc extends Doc, Roster {
  readonly updatedAt: number;
  readonly updatedBy: string;
}

export class RosterStore {
  readonly rosters: Collection<RosterDoc>;

  constructor(store: DocumentStore) {
    this.rosters = store.collection<RosterDoc>(ROSTERS_COLLECTION);
  }

  get(chatterId: string): Promise<RosterDoc | null> {
    return this.rosters.findOne({ _id: chatterId });
  }

  /**
   * Every roster, or those of the chatters named. All of them are a shared read: the embedded
   * store hands out the same frozen documents while they are unchanged, so what a report works
   * out from a roster can be kept by the document (plannedShiftsOf).
   */
  find(chatterIds?: readonly string[]): Promise<RosterDoc[]> {
    if (chatterIds === undefined) return this.rosters.find({ _id: { $gte: '' } }, { sort: { _id: 1 }, shared: true });
    return this.rosters.find({ _id: { $in: [...chatterIds] } }, { sort: { _id: 1 } });
  }

  async set(chatterId: string, roster: Roster, by: string, now = Date.now()): Promise<RosterDoc> {
    const doc: RosterDoc = { _id: chatterId, ...roster, updatedAt: now, updatedBy: by };
    await this.rosters.replaceOne({ _id: chatterId }, doc, { upsert: true });
    return doc;
  }
}
