// "explain for a session whose records the log no longer holds says so instead of guessing"
// (issue 55), on Kafka, where retention (or an operator's deleteRecords) removes a partition's
// oldest records: the chat's records are deleted from `inbound` after the pipeline took them,
// and GET /api/sessions/:id/explain answers 410 GONE naming how many are missing, not a figure
// re-decided from what is left.
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageWebhook } from '../../src/demo/platform-bodies.js';
import { CHAT_STATE_COLLECTION, type ChatStateDoc } from '../../src/processor/chat-state.js';
import { topology } from '../../src/topology.js';
import { kafkaMongoEnv, startHarness, type Harness } from '../support/app-harness.js';
import { kafkaBrokers } from '../support/test-servers.js';

const A = 'acct_e4b1a1be0c0000000000000000000000410';
const ADMIN = 'admin-token-for-explain-retention-0';

describe('explaining a session whose records are past the log\'s retention (kafka+mongo)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ ...await kafkaMongoEnv(), ADMIN_TOKEN: ADMIN });
    const at = Date.now() - 10 * 60_000;
    await h.deliver([
      { key: 'evt_gone_1', body: messageWebhook({ accountId: A, fanId: '4101', messageId: '9410001', createdAt: new Date(at).toISOString(), text: 'hi', direction: 'received' }) },
      { key: 'evt_gone_2', body: messageWebhook({ accountId: A, fanId: '4101', messageId: '9410002', createdAt: new Date(at + 30_000).toISOString(), text: 'hello', direction: 'sent' }) },
    ]);
    await h.settled(60_000);
  }, 120_000);
  afterAll(async () => { await h?.stop(); });

  it('answers 200 while the log holds them, and 410 GONE naming the missing records once they are deleted', async () => {
    const url = `/api/sessions/${encodeURIComponent(`${A}:4101:1`)}/explain`;
    const held = await h.call<{ agrees: boolean }>('GET', url, { token: ADMIN });
    expect(held.status, held.text).toBe(200);
    expect(held.body.agrees).toBe(true);

    const state = await h.store.collection<ChatStateDoc>(CHAT_STATE_COLLECTION).findOne({ _id: `${A}:4101` });
    expect(state).not.toBeNull();
    const admin = new Kafka({ brokers: (await kafkaBrokers()).split(','), logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    const inbound = topology(h.config.topicPrefix, h.config.inboundTopic ?? undefined).inbound;
    try {
      // kafkajs finds the partition's leader from metadata it has loaded.
      await admin.fetchTopicMetadata({ topics: [inbound] });
      await admin.deleteTopicRecords({ topic: inbound, partitions: [{ partition: state?.partition ?? 0, offset: String((state?.offset ?? 0) + 1) }] });
    } finally {
      await admin.disconnect();
    }
    const gone = await h.call<{ code: string; message: string }>('GET', url, { token: ADMIN });
    expect(gone.status, gone.text).toBe(410);
    expect(gone.body.code).toBe('GONE');
    expect(gone.body.message).toMatch(/^id: \d+ of the chat's inbound records .* past the log's retention/);
  }, 60_000);
});
