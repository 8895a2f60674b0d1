// Removes everything convops keeps of some accounts (the demo's), with the consumers drained and
// stopped meanwhile (PipelineControl.fenced): no round is half way through one of their chats,
// so none writes a document, a total or a chat state back after it is deleted.
import { Generations, generationStore } from '../definitions/generations.js';
import { ACCOUNTS_COLLECTION } from '../accounts/registry.js';
import type { DocumentStore } from '../adapters/store/store.js';
import { ALERTS_COLLECTION, ANALYSES_COLLECTION } from '../intelligence/intelligence.js';
import { PipelineBusyError, type PipelineControl } from '../pipeline-control.js';
import { reconcileSetAsideAlert } from '../pipeline/set-aside-alert.js';
import { chatKeysOf, forgetChatStates } from '../processor/purge.js';
import { EVENT_DIGESTS_COLLECTION } from '../projector/event-digests.js';
import { ALL_READ_MODELS } from '../read-models/names.js';
import { collectionName } from '../read-models/read-model-set.js';
import type { ReadSide } from '../read-side/read-side.js';

/**
 * Everything convops keeps of these accounts, in every stored read-model version (an older
 * one can be switched back to): documents, totals and report buckets, chat states, dedupe
 * ledger (or their records seeded again would be taken for redeliveries), set-aside records,
 * alerts and analyses, and their registry entries. Counts per collection.
 */
export async function purgeAccounts(store: DocumentStore, read: Pick<ReadSide, 'models' | 'accounts'>, pipeline: PipelineControl, accountIds: readonly string[]): Promise<Record<string, number>> {
  // A preview behind the log's end would step their records again into its chat states.
  const generations = await new Generations(store).all();
  const previewing = generations.find((g) => g.state === 'shadow');
  if (previewing) throw new PipelineBusyError(`definitions generation ${previewing.generation} is being previewed; apply or cancel it first`);
  return pipeline.fenced(async () => {
    const ofAccounts = { accountId: { $in: [...accountIds] } };
    const { models } = read;
    // Who answered in them, read before their sessions go: a slow-streak alert may rest on them.
    const answered = await (await models.active()).sessions.find({ ...ofAccounts, firstResponderId: { $ne: null } }, { projection: { firstResponderId: 1 } });
    const chatters = answered.map((s) => s.firstResponderId).filter((c): c is string => typeof c === 'string');
    const removed: Record<string, number> = {};
    const versions = new Set([await models.activeVersion(), ...await models.storedVersions()]);
    for (const version of versions) {
      for (const name of ALL_READ_MODELS) removed[name] = (removed[name] ?? 0) + await store.collection(collectionName(name, version)).deleteMany(ofAccounts);
    }
    Object.assign(removed, await forgetChatStates(store, accountIds));
    // Every other definitions generation's chat states too: one switched back to must not bring them back.
    for (const g of generations.filter((d) => d.generation !== 0 && d.state === 'held')) {
      for (const [name, n] of Object.entries(await forgetChatStates(generationStore(store, g.generation), accountIds))) removed[name] = (removed[name] ?? 0) + n;
    }
    // Their chats seeded again number their events from 1: digests left would take them for conflicts.
    removed[EVENT_DIGESTS_COLLECTION] = await store.collection(EVENT_DIGESTS_COLLECTION).deleteMany({ _id: chatKeysOf(accountIds) });
    const forgotten = await pipeline.intelligence.forgetAccounts(accountIds, chatters);
    removed[ALERTS_COLLECTION] = forgotten.alerts;
    removed[ANALYSES_COLLECTION] = forgotten.analyses;
    removed[ACCOUNTS_COLLECTION] = await read.accounts.remove(accountIds);
    // Their set-aside records went: the pipeline alert follows what is left.
    await reconcileSetAsideAlert(store);
    return removed;
  });
}
