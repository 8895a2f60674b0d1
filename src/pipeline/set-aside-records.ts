// What an operator does with set-aside records (GET/DELETE /api/admin/set-aside, its retry, and
// health's count): read them, claim one for a retry so two retries never append two copies, and
// remove one, after which the pipeline's set-aside alert follows what is kept.
import type { DocumentStore } from '../adapters/store/store.js';
import { reconcileSetAsideAlert } from './set-aside-alert.js';
import { SET_ASIDE_COLLECTION, type SetAsideDoc } from './set-aside.js';

/** A retry that claimed a record this long ago and did not finish (its process died) no longer holds it. */
const RETRY_CLAIM_STALE_MS = 60_000;

export type RetryClaim = 'claimed' | 'gone' | 'busy';

export class SetAsideRecords {
  constructor(private readonly store: DocumentStore) {}

  private get docs() {
    return this.store.collection<SetAsideDoc>(SET_ASIDE_COLLECTION);
  }

  /** The newest first, and how many are kept in all. */
  async newest(limit: number): Promise<{ items: SetAsideDoc[]; total: number }> {
    const [items, total] = await Promise.all([this.docs.find({}, { sort: { setAsideAt: -1, _id: -1 }, limit }), this.docs.countDocuments()]);
    return { items, total };
  }

  count(): Promise<number> {
    return this.docs.countDocuments();
  }

  get(id: string): Promise<SetAsideDoc | null> {
    return this.docs.findOne({ _id: id });
  }

  /** One retry at a time per record, claimed at `now`. */
  async claimRetry(id: string, now: number): Promise<RetryClaim> {
    const claimed = await this.docs.updateOne(
      { _id: id, $or: [{ retryClaimedAt: { $exists: false } }, { retryClaimedAt: null }, { retryClaimedAt: { $lt: now - RETRY_CLAIM_STALE_MS } }] },
      { $set: { retryClaimedAt: now } },
    );
    if (claimed.matched > 0) return 'claimed';
    return (await this.get(id)) ? 'busy' : 'gone';
  }

  /** The retry claimed at `now` did not append: the record is free to retry again. */
  async releaseRetry(id: string, now: number): Promise<void> {
    await this.docs.updateOne({ _id: id, retryClaimedAt: now }, { $set: { retryClaimedAt: null } });
  }

  /**
   * Removes the record (only while the retry claimed at `claimedAt` still holds it, if given);
   * false if there was none. The alert is settled after, and never fails the removal: the alert
   * sweep settles it too, so a failure is handed to `onAlertError`.
   */
  async remove(id: string, onAlertError: (err: unknown) => void, claimedAt?: number): Promise<boolean> {
    const removed = await this.docs.deleteMany(claimedAt === undefined ? { _id: id } : { _id: id, retryClaimedAt: claimedAt });
    if (removed === 0) return false;
    await reconcileSetAsideAlert(this.store).catch(onAlertError);
    return true;
  }
}
