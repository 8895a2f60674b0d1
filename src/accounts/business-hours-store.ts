// Accounts' business hours, one document per account in a collection of their own (not on the
// account document): the registry writes an account by reading it and replacing it whole, so
// a schedule stored on it could be lost to a sync or disconnect landing in between, and the
// readers that need schedules (reports with clock=business, the alert sweep) read these few
// documents and nothing else. The arithmetic is ../domain/business-hours.ts.
import type { BulkOp, Collection, Doc, DocumentStore, Filter } from '../adapters/store/store.js';
import { BusinessClock, type BusinessHours } from '../domain/business-hours.js';
import { LruMap } from '../support/lru.js';
import { RefreshedCopy } from '../support/refreshed-copy.js';

export const BUSINESS_HOURS_COLLECTION = 'business_hours';
/**
 * Every schedule an account has had and when it came into force (null: none from then), so the
 * processor closes a wait by the schedule in force when its message was received, and
 * processing the same records again closes it the same way whatever the schedule is now.
 */
export const BUSINESS_HOURS_HISTORY_COLLECTION = 'business_hours_history';
/** The versions kept per account: the latest this many (older waits have long been closed). */
const KEPT_VERSIONS = 50;

export interface ScheduleVersionDoc extends Doc {
  readonly accountId: string;
  /** In force for records received at or after this time (epoch ms). */
  readonly from: number;
  /** null: no schedule from then on (wall-clock time). */
  readonly schedule: BusinessHours | null;
}

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
  readonly history: Collection<ScheduleVersionDoc>;

  constructor(private readonly store: DocumentStore) {
    this.schedules = store.collection<BusinessHoursDoc>(BUSINESS_HOURS_COLLECTION);
    this.history = store.collection<ScheduleVersionDoc>(BUSINESS_HOURS_HISTORY_COLLECTION);
  }

  get(accountId: string): Promise<BusinessHoursDoc | null> {
    return this.schedules.findOne({ _id: accountId });
  }

  async set(accountId: string, schedule: BusinessHours, now = Date.now()): Promise<BusinessHoursDoc> {
    const doc: BusinessHoursDoc = { _id: accountId, timezone: schedule.timezone, weekly: schedule.weekly, holidays: schedule.holidays, updatedAt: now };
    // The version and the schedule in one write (one transaction on the embedded store), so the
    // processor never uses a schedule the API did not save, nor the reverse.
    const versions = await this.versionOps(accountId, { timezone: schedule.timezone, weekly: schedule.weekly, holidays: schedule.holidays }, now);
    await this.store.bulkWriteMany([
      { collection: BUSINESS_HOURS_HISTORY_COLLECTION, ops: versions },
      { collection: BUSINESS_HOURS_COLLECTION, ops: [{ replaceOne: { filter: { _id: accountId }, replacement: doc, upsert: true } }] },
    ]);
    generation++;
    return doc;
  }

  /** Back to no schedule; whether there was one. */
  async remove(accountId: string, now = Date.now()): Promise<boolean> {
    const had = await this.get(accountId);
    if (had) {
      await this.store.bulkWriteMany([
        { collection: BUSINESS_HOURS_HISTORY_COLLECTION, ops: await this.versionOps(accountId, null, now) },
        { collection: BUSINESS_HOURS_COLLECTION, ops: [{ deleteOne: { filter: { _id: accountId } } }] },
      ]);
    }
    generation++;
    return had !== null;
  }

  /** Gone with their accounts (purge-demo): the schedules and their history. */
  async removeMany(accountIds: readonly string[]): Promise<number> {
    if (accountIds.length === 0) return 0;
    const removed = await this.schedules.deleteMany({ _id: { $in: [...accountIds] } });
    await this.history.deleteMany({ accountId: { $in: [...accountIds] } });
    generation++;
    return removed;
  }

  /** Every account's versions, oldest first per account. */
  async versions(): Promise<ScheduleVersionDoc[]> {
    const docs = await this.history.find({});
    return docs.sort((a, b) => (a.accountId < b.accountId ? -1 : a.accountId > b.accountId ? 1 : a.from - b.from));
  }

  /**
   * The writes that put a version in force from `now` (a clock that went back never puts it
   * before the last) and keep the latest KEPT_VERSIONS. An account whose schedule was saved
   * before versions were kept gets that schedule as its first version, from when it was saved,
   * so the records received under it keep it.
   */
  private async versionOps(accountId: string, schedule: BusinessHours | null, now: number): Promise<BulkOp<Doc>[]> {
    const had = await this.history.find({ accountId });
    const ops: BulkOp<Doc>[] = [];
    const put = (from: number, s: BusinessHours | null) => {
      const _id = `${accountId}|${from}`;
      ops.push({ replaceOne: { filter: { _id }, replacement: { _id, accountId, from, schedule: s }, upsert: true } });
    };
    let last = had.reduce((m, v) => Math.max(m, v.from), Number.NEGATIVE_INFINITY);
    if (had.length === 0) {
      const current = await this.get(accountId);
      if (current) {
        put(current.updatedAt, { timezone: current.timezone, weekly: current.weekly, holidays: current.holidays });
        last = current.updatedAt;
      }
    }
    put(Number.isFinite(last) ? Math.max(now, last + 1) : now, schedule);
    const old = had.sort((a, b) => b.from - a.from).slice(KEPT_VERSIONS - 1);
    for (const v of old) ops.push({ deleteOne: { filter: { _id: v._id } } });
    return ops;
  }

  /** The clocks of the accounts `inScope` selects (a store filter on `accountId`, as the reads build them). */
  async clocks(inScope: Filter = {}): Promise<BusinessClocks> {
    const a = inScope.accountId;
    const docs = await this.schedules.find(a === undefined ? {} : { _id: a });
    return new Map(docs.map((d) => [d._id, clockOf(d)]));
  }
}

/** How long a processor trusts its copy of the schedules when this process changed none: a change saved elsewhere applies within it. */
const STALE_MS = 5_000;

/**
 * The processor's copy of every account's schedule versions, as the round reads them to place
 * the unanswered limit in open hours: refreshed before a round when this process saved a change
 * or the copy is older than STALE_MS, then read synchronously. A schedule saved before this
 * history existed has no version: it counts as in force from when it was saved.
 */
type Versions = ReadonlyMap<string, readonly { readonly from: number; readonly clock: BusinessClock | null }[]>;

export class ScheduleBook {
  private readonly copy: RefreshedCopy<Versions>;

  /**
   * `restatedAt`: the schedules are restated as of then (a definitions generation that applies
   * today's schedules to history, src/definitions-previews.ts): a record received before it is
   * judged by the schedule in force at it. Absent: each record by the schedule in force when it was received.
   */
  constructor(store: BusinessHoursStore, restatedAt?: number) {
    this.copy = new RefreshedCopy(async () => {
      const [versions, current] = await Promise.all([store.versions(), store.schedules.find({})]);
      const byAccount = new Map<string, { from: number; clock: BusinessClock | null }[]>();
      for (const v of versions) {
        const list = byAccount.get(v.accountId) ?? [];
        list.push({ from: v.from, clock: v.schedule === null ? null : clockOf({ _id: v.accountId, ...v.schedule, updatedAt: v.from }) });
        byAccount.set(v.accountId, list);
      }
      for (const d of current) if (!byAccount.has(d._id)) byAccount.set(d._id, [{ from: d.updatedAt, clock: clockOf(d) }]);
      return byAccount;
    }, scheduleGeneration, STALE_MS, new Map());
    ({ limitEnd: this.limitEnd, scheduleAt: this.scheduleAt } = this.restated(restatedAt));
  }

  refresh(now = Date.now()): Promise<void> {
    return this.copy.refresh(now);
  }

  /**
   * When a fan's wait that began at `at` (a message received at `receivedAt`) reaches `limitMs`
   * of the account's open hours, by the schedule in force when it was received; undefined when
   * none was (the limit is wall-clock), or when that schedule has not that much open time ahead.
   */
  readonly limitEnd: (accountId: string, receivedAt: number, at: number, limitMs: number) => number | undefined;

  /** The account's schedule in force for a record received at `receivedAt`; null: none (wall-clock time). */
  readonly scheduleAt: (accountId: string, receivedAt: number) => BusinessClock | null;

  /** The same two lookups with the schedules restated as of `restatedAt` (an explanation under a generation's definitions). */
  restated(restatedAt: number | undefined): Pick<ScheduleBook, 'limitEnd' | 'scheduleAt'> {
    const scheduleAt = (accountId: string, receivedAt: number): BusinessClock | null => this.inForce(accountId, receivedAt, restatedAt);
    return { scheduleAt, limitEnd: (accountId, receivedAt, at, limitMs) => scheduleAt(accountId, receivedAt)?.instantAfter(at, limitMs) ?? undefined };
  }

  private inForce(accountId: string, receivedAt: number, restatedAt: number | undefined): BusinessClock | null {
    const list = this.copy.value.get(accountId);
    if (!list) return null;
    const t = restatedAt !== undefined && receivedAt < restatedAt ? restatedAt : receivedAt;
    for (let i = list.length - 1; i >= 0; i--) {
      const v = list[i] as { from: number; clock: BusinessClock | null };
      if (v.from <= t) return v.clock;
    }
    return null;
  }
}
