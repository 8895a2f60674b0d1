// Forgetting accounts on the processor's side: what it keeps per chat, found by the chat key
// every one of its documents starts with, so no caller needs to know how a chat state or a
// ledger entry is shaped. Run it with the processor stopped (PipelineControl.fenced), or a
// round under way writes a forgotten chat back.
import type { DocumentStore, Filter } from '../adapters/store/store.js';
import { CHAT_STATE_COLLECTION } from './chat-state.js';
import { CHAT_LEDGER_COLLECTION } from './chat-ledger.js';
import { STATE_ROLLBACKS_COLLECTION } from './rollback.js';
import { SET_ASIDE_COLLECTION } from '../pipeline/set-aside.js';

const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A condition on a chat key (`account:chat`, domain/webhook-route.ts chatKeyOf): the chats of these accounts. */
export function chatKeysOf(accountIds: readonly string[]): Filter {
  return { $regex: `^(${accountIds.map(escapeRegex).join('|')}):` };
}

/**
 * Removes the chat states, dedupe ledger entries (or their records seeded again would be taken
 * for redeliveries), set-aside records and rollback notes of these accounts' chats. Counts per
 * collection.
 */
export async function forgetChatStates(store: DocumentStore, accountIds: readonly string[]): Promise<Record<string, number>> {
  if (accountIds.length === 0) return {};
  const ofTheirChats = chatKeysOf(accountIds);
  return {
    // A chat state's _id is its chat key.
    [CHAT_STATE_COLLECTION]: await store.collection(CHAT_STATE_COLLECTION).deleteMany({ _id: ofTheirChats }),
    [CHAT_LEDGER_COLLECTION]: await store.collection(CHAT_LEDGER_COLLECTION).deleteMany({ chatKey: ofTheirChats }),
    [SET_ASIDE_COLLECTION]: await store.collection(SET_ASIDE_COLLECTION).deleteMany({ chatKey: ofTheirChats }),
    [STATE_ROLLBACKS_COLLECTION]: await store.collection(STATE_ROLLBACKS_COLLECTION).deleteMany({ chatKey: ofTheirChats }),
  };
}
