// Accounts' business hours, one document per account in a collection of their own (not on the
// account document): the registry writes an account by reading it and replacing it whole, so
// a schedule stored on it could be lost to a sync or disconnect landing in between, and the
// readers that need schedules (reports with clock=business, the alert sweep) read these few
// documents and nothing else. The arithmetic is ../domain/business-hours.ts.
import type { Collection, Doc, DocumentStore, Filter } from '../adapters/store/store.js';
import { BusinessClock, type BusinessHours } from '../domain/business-hours.js';
import { LruMap } from '../support/lru.js';

export const BUSINESS_HOURS_COLLECTION = 'business_hours';

export interface BusinessHoursDoc extends Doc, BusinessHours {
  readonly updatedAt: number;
}

/**
 * Compiled clocks, shared by every reader in the process and kept while the schedule is
 * unchanged, so each account's cached days survive from one report to the next.
 */
const clocks = new LruMap<string, BusinessClock>(10_000);

export function clockOf(doc: BusinessHoursDoc): BusinessClock {
  const schedule: BusinessHours = { timezone: doc.timezone, weekly: doc.weekly, holidays: doc.holidays };
  const key = `${doc._id}\u0000${JSON.stringify(schedule)}`;
  let clock = clocks.get(key);
  if (!clock) {
    clock = new BusinessClock(schedule);
    clocks.set(key, clock);
  }
  return clock;
}

/** The clock of each account with a schedule; an account without one is absent (it measures wall time). */
export type BusinessClocks = ReadonlyMap<string, BusinessClock>;

/**
 * Bumped by every change of a schedule this process makes, so a reader that caches the
 * schedules (the wait rules, on every analysis) sees this process's changes at once; a change
 * another process makes reaches it when its cache expires.
 */
let generation = 0;
export const scheduleGeneration = (): number => generation;

export class BusinessHoursStore {
  readonly schedules: Collection<BusinessHoursDoc>;

  constructor(store: DocumentStore) {
    this.schedules = store.collection<BusinessHoursDoc>(BUSINESS_HOURS_COLLECTION);
  }

  get(accountId: string): Promise<BusinessHoursDoc | null> {
    return this.schedules.findOne({ _id: accountId });
  }

  async set(accountId: string, schedule: BusinessHours, now = Date.now()): Promise<BusinessHoursDoc> {
    const doc: BusinessHoursDoc = { _id: accountId, timezone: schedule.timezone, weekly: schedule.weekly, holidays: schedule.holidays, updatedAt: now };
    await this.schedules.replaceOne({ _id: accountId }, doc, { upsert: true });
    generation++;
    return doc;
  }

  /** Back to no schedule; whether there was one. */
  async remove(accountId: string): Promise<boolean> {
    const removed = (await this.schedules.deleteMany({ _id: accountId })) > 0;
    generation++;
    return removed;
  }

  async removeMany(accountIds: readonly string[]): Promise<number> {
    if (accountIds.length === 0) return 0;
    const removed = await this.schedules.deleteMany({ _id: { $in: [...accountIds] } });
    generation++;
    return removed;
  }

  /** The clocks of the accounts `inScope` selects (a store filter on `accountId`, as the reads build them). */
  async clocks(inScope: Filter = {}): Promise<BusinessClocks> {
    const a = inScope.accountId;
    const docs = await this.schedules.find(a === undefined ? {} : { _id: a });
    return new Map(docs.map((d) => [d._id, clockOf(d)]));
  }
}
