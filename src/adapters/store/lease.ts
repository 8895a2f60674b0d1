// A lease on one document: at most one owner at a time, by conditional writes through the
// DocumentStore seam, so it holds across every process sharing the store. The owner renews it
// (a heartbeat); one that stops renewing for `staleMs` is presumed dead and the next acquire
// takes the lease over. Every write is one conditional update, so of owners racing for the same
// document exactly one wins, whichever process they run in. The replay lock, backfill job
// claims and the report-bucket build marker are leases. A backfill's identity lock is not: it
// is free when the job it names has ended, not when it is old (see BackfillJobs.takeIdentity).
//
// Expiry is judged from the last renewal (`beatField`) and the reader's `staleMs`, not stored:
// the documents written before this helper existed (`jobId`/`heartbeatAt`, `owner`/`heartbeatAt`,
// `at`) keep working unchanged.
import { DuplicateKeyError, type Collection, type Doc, type DocumentStore, type Filter } from './store.js';

export interface LeaseOptions {
  /** The collection and _id of the leased document. */
  readonly collection: string;
  readonly id: string;
  /** An owner that has not renewed for this long is presumed dead. */
  readonly staleMs: number;
  /** Field that names the owner (null when released). Default `owner`. */
  readonly ownerField?: string;
  /** Field with the time of the last acquire or renewal. Default `heartbeatAt`. */
  readonly beatField?: string;
  /**
   * The lease exists only while the document also matches this (say, a job still `running`):
   * acquire, renew and release all require it.
   */
  readonly where?: Filter;
  /**
   * Acquire creates the document when it is missing, with these fields besides owner and beat.
   * Without it, acquire only takes an existing document (one created with its first owner).
   */
  readonly create?: Record<string, unknown>;
  readonly clock?: () => number;
}

export class Lease {
  private readonly docs: Collection<Doc>;
  private readonly ownerField: string;
  private readonly beatField: string;
  private readonly clock: () => number;

  constructor(store: DocumentStore, private readonly options: LeaseOptions) {
    this.docs = store.collection<Doc>(options.collection);
    this.ownerField = options.ownerField ?? 'owner';
    this.beatField = options.beatField ?? 'heartbeatAt';
    this.clock = options.clock ?? Date.now;
  }

  get staleMs(): number {
    return this.options.staleMs;
  }

  /**
   * Makes `owner` the holder if the lease is free or its holder stopped renewing, in one
   * conditional write; false when someone else holds it. Released leases are free at once
   * (release dates their beat back to 0).
   */
  async acquire(owner: string, also: Record<string, unknown> = {}): Promise<boolean> {
    const now = this.clock();
    const set = { ...(this.options.create ?? {}), ...also, [this.ownerField]: owner, [this.beatField]: now };
    try {
      const r = await this.docs.updateOne(
        { _id: this.options.id, ...this.options.where, [this.beatField]: { $lt: now - this.options.staleMs } },
        { $set: set },
        { upsert: this.options.create !== undefined },
      );
      return r.matched === 1 || r.upserted;
    } catch (err) {
      // The document exists and is held: the upsert tried to insert its _id again.
      if (err instanceof DuplicateKeyError) return false;
      throw err;
    }
  }

  /** Beats the lease (with `also` written in the same write); false when `owner` no longer holds it. */
  async renew(owner: string, also: Record<string, unknown> = {}): Promise<boolean> {
    const r = await this.docs.updateOne(this.held(owner), { $set: { ...also, [this.beatField]: this.clock() } });
    return r.matched === 1;
  }

  /**
   * Frees the lease if `owner` still holds it (one that lost it must not free its successor's),
   * with `also` written in the same write; false when it did not hold it.
   */
  async release(owner: string, also: Record<string, unknown> = {}): Promise<boolean> {
    const r = await this.docs.updateOne(this.held(owner), { $set: { ...also, [this.ownerField]: null, [this.beatField]: 0 } });
    return r.matched === 1;
  }

  /** Who holds the lease now (null: free or no document); an expired holder is still named. */
  async holder(): Promise<string | null> {
    const doc = await this.docs.findOne({ _id: this.options.id, ...this.options.where });
    const owner = doc?.[this.ownerField];
    return typeof owner === 'string' ? owner : null;
  }

  /** The filter of a write that must land only while `owner` holds the lease. */
  held(owner: string): Filter {
    return { _id: this.options.id, ...this.options.where, [this.ownerField]: owner };
  }
}
