// Which accounts a request's scope lets through, as a test on an account id: for reads that
// fetch by `_id` range (every account's documents of a time range) and pick accounts after.
import type { Filter } from '../adapters/store/store.js';

/** Which accounts a store filter (from the request's scope) lets through. */
export function accountTest(inScope: Filter): (accountId: string) => boolean {
  const a = inScope.accountId;
  if (a === undefined) return () => true;
  if (typeof a === 'string') return (id) => id === a;
  const list = (a as { $in?: unknown[] }).$in;
  if (Array.isArray(list)) {
    const set = new Set(list);
    return (id) => set.has(id);
  }
  return () => false;
}
