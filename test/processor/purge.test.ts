// Forgetting accounts reaches exactly their chats: a chat key is `account:chat`, and an account
// id may be another's prefix (acct_1, acct_10) or hold a character a pattern gives meaning to
// (acct.1). Over the real embedded store, which evaluates the condition as Mongo would.
import { afterAll, describe, expect, it } from 'vitest';
import { createStore } from '../../src/adapters/index.js';
import { loadConfig } from '../../src/config.js';
import { CHAT_LEDGER_COLLECTION } from '../../src/processor/chat-ledger.js';
import { CHAT_STATE_COLLECTION } from '../../src/processor/chat-state.js';
import { forgetChatStates } from '../../src/processor/purge.js';
import { deploymentEnv, removeDataDirs } from '../support/deployments.js';

afterAll(() => removeDataDirs());

describe('forgetting accounts on the processor side', () => {
  it('removes the chats of the accounts named and no chat of an account whose id only starts the same or matches as a pattern', async () => {
    const store = await createStore(loadConfig(await deploymentEnv('embedded')));
    try {
      const keys = ['acct_1:42', 'acct_1:7', 'acct_10:42', 'acct_1x:1', 'acct.1:5', 'acctx1:5', 'other:acct_1'];
      for (const k of keys) {
        await store.collection(CHAT_STATE_COLLECTION).insertOne({ _id: k });
        await store.collection(CHAT_LEDGER_COLLECTION).insertOne({ _id: `${k}#m1`, chatKey: k });
      }
      const counts = await forgetChatStates(store, ['acct_1', 'acct.1']);
      expect(counts[CHAT_STATE_COLLECTION]).toBe(3);
      expect(counts[CHAT_LEDGER_COLLECTION]).toBe(3);
      const left = (await store.collection(CHAT_STATE_COLLECTION).find({})).map((d) => d._id).sort();
      expect(left).toEqual(['acct_10:42', 'acct_1x:1', 'acctx1:5', 'other:acct_1']);
      const ledger = (await store.collection(CHAT_LEDGER_COLLECTION).find({})).map((d) => d.chatKey).sort();
      expect(ledger).toEqual(['acct_10:42', 'acct_1x:1', 'acctx1:5', 'other:acct_1']);
    } finally {
      await store.close();
    }
  });
});
