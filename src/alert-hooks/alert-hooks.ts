// The registry of alert hooks and their deliveries: what the admin routes read and write.
import { randomBytes } from 'node:crypto';
import type { Collection, DocumentStore } from '../adapters/store/store.js';
import type { AlertTransition } from '../pipeline/alert-doc.js';
import { resolveHookAlert } from './hook-alert.js';
import { DELIVERIES_COLLECTION, HOOKS_COLLECTION, type DeliveryDoc, type HookDoc, type HookFormat } from './hook-docs.js';
import { newSecret } from './signing.js';

/** More would make every transition a burst of requests; an agency needs a handful. */
export const MAX_HOOKS = 50;
export const MAX_HOOK_ACCOUNTS = 200;

export class TooManyHooks extends Error {
  override name = 'TooManyHooks';
}

export interface NewHook {
  readonly url: string;
  readonly events: readonly AlertTransition[];
  readonly accountIds: readonly string[] | null;
  readonly format: HookFormat;
  readonly createdBy: string;
}

export class AlertHooks {
  readonly hooks: Collection<HookDoc>;
  readonly deliveries: Collection<DeliveryDoc>;

  constructor(private readonly store: DocumentStore, private readonly clock: () => number = Date.now) {
    this.hooks = store.collection<HookDoc>(HOOKS_COLLECTION);
    this.deliveries = store.collection<DeliveryDoc>(DELIVERIES_COLLECTION);
  }

  /** The hook's standing "disabled" alert is over: the hook was enabled again, or removed. */
  async settleDisabledAlert(hookId: string): Promise<void> {
    await resolveHookAlert(this.store, hookId, this.clock());
  }

  async ensureIndexes(): Promise<void> {
    await this.deliveries.createIndex({ keys: { status: 1, nextAttemptAt: 1 } });
    await this.deliveries.createIndex({ keys: { hookId: 1, createdAt: -1 } });
    await this.deliveries.createIndex({ keys: { doneAt: 1 } });
  }

  async create(hook: NewHook): Promise<HookDoc> {
    // Counted before the insert: two creates at once may pass the check together, which costs one hook over the limit, not a failure.
    if (await this.hooks.countDocuments() >= MAX_HOOKS) throw new TooManyHooks(`at most ${MAX_HOOKS} alert hooks; delete one first`);
    const doc: HookDoc = {
      _id: `hook_${randomBytes(8).toString('hex')}`, url: hook.url, events: [...hook.events], accountIds: hook.accountIds ? [...hook.accountIds] : null, format: hook.format,
      secret: newSecret(), status: 'active', disabledAt: null, disabledBecause: null, createdAt: this.clock(), createdBy: hook.createdBy,
    };
    await this.hooks.insertOne(doc);
    return doc;
  }

  list(): Promise<HookDoc[]> {
    return this.hooks.find({}, { sort: { createdAt: 1, _id: 1 } });
  }

  get(id: string): Promise<HookDoc | null> {
    return this.hooks.findOne({ _id: id });
  }

  /** Removes the hook and what it had still to send; false when there was none. */
  async remove(id: string): Promise<boolean> {
    const removed = await this.hooks.deleteMany({ _id: id });
    await this.deliveries.deleteMany({ hookId: id });
    return removed > 0;
  }

  /** Active again after it was disabled; its dropped deliveries stay dropped. */
  async enable(id: string): Promise<HookDoc | null> {
    await this.hooks.updateOne({ _id: id }, { $set: { status: 'active', disabledAt: null, disabledBecause: null } });
    return this.get(id);
  }

  recentDeliveries(hookId: string, limit: number): Promise<DeliveryDoc[]> {
    return this.deliveries.find({ hookId }, { sort: { createdAt: -1, _id: -1 }, limit });
  }

  /** The latest delivery of each hook, for the hook list. */
  async lastDeliveries(hookIds: readonly string[]): Promise<Map<string, DeliveryDoc>> {
    const out = new Map<string, DeliveryDoc>();
    for (const id of hookIds) {
      const [last] = await this.recentDeliveries(id, 1);
      if (last) out.set(id, last);
    }
    return out;
  }
}
