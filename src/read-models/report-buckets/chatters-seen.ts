// Which chatters have worked for which accounts, by the report buckets' month rows (all time):
// a chatter with an answered session, a credited payment or a direct send there.
import type { ReadModelCollections } from '../read-model-set.js';
import { chatterIdOf, idRange } from './keys.js';

/** chatter id → the accounts they have worked for (of `accountIds`, when given). */
export async function chattersSeen(rm: ReadModelCollections, accountIds?: ReadonlySet<string>): Promise<Map<string, Set<string>>> {
  const months = await rm.report_buckets.find({ _id: idRange('m', Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER) }, { projection: { accountId: 1, chatters: 1, conv: 1 } });
  const out = new Map<string, Set<string>>();
  for (const m of months) {
    if (accountIds !== undefined && !accountIds.has(m.accountId)) continue;
    for (const key of [...Object.keys(m.chatters ?? {}), ...Object.keys(m.conv ?? {})]) {
      const id = chatterIdOf(key);
      if (id === null) continue;
      const accounts = out.get(id) ?? new Set<string>();
      accounts.add(m.accountId);
      out.set(id, accounts);
    }
  }
  return out;
}
