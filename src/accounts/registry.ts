// The account registry: which platform accounts the agency connected, how (manual, synced
// from the platform, demo), and their status. Disconnecting keeps the account's history.
import type { Collection, Doc, DocumentStore } from '../adapters/store/store.js';
import { BusinessHoursStore } from './business-hours-store.js';

export const ACCOUNTS_COLLECTION = 'accounts';
export type AccountStatus = 'connected' | 'pending-auth' | 'disconnected';
export type AccountSource = 'manual' | 'synced' | 'demo';

export interface AccountDoc extends Doc {
  displayName: string;
  status: AccountStatus;
  source: AccountSource;
  username: string | null;
  authAttemptId: string | null;
  readonly createdAt: number;
  updatedAt: number;
}

export class AccountRegistry {
  readonly accounts: Collection<AccountDoc>;
  private readonly businessHours: BusinessHoursStore;

  constructor(store: DocumentStore) {
    this.accounts = store.collection<AccountDoc>(ACCOUNTS_COLLECTION);
    this.businessHours = new BusinessHoursStore(store);
  }

  /** Inserts or updates; returns whether it was new. */
  async upsert(id: string, fields: Partial<Omit<AccountDoc, '_id' | 'createdAt'>> & { displayName: string; source: AccountSource }): Promise<{ created: boolean; account: AccountDoc }> {
    const now = Date.now();
    const before = await this.accounts.findOne({ _id: id });
    const account: AccountDoc = {
      _id: id, status: 'connected', username: null, authAttemptId: null, ...before, ...fields,
      createdAt: before?.createdAt ?? now, updatedAt: now,
    };
    await this.accounts.replaceOne({ _id: id }, account, { upsert: true });
    return { created: !before, account };
  }

  /** Forgets accounts altogether (purge-demo), with their business hours, unlike disconnecting; returns how many were registered. */
  async remove(ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    await this.businessHours.removeMany(ids);
    return this.accounts.deleteMany({ _id: { $in: [...ids] } });
  }

  get(id: string): Promise<AccountDoc | null> {
    return this.accounts.findOne({ _id: id });
  }

  all(): Promise<AccountDoc[]> {
    return this.accounts.find({}, { sort: { _id: 1 } });
  }
}
