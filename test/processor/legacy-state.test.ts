// Chat states stored by the version before event time and the chat ledger: the processor takes
// them up (a crash loop on the old shape would stall a whole partition), keeps the open
// session going, and recognises redeliveries of what the old state remembered in its lists.
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { createLog, createStore } from '../../src/adapters/index.js';
import { loadConfig } from '../../src/config.js';
import { messageWebhook } from '../../src/demo/platform-bodies.js';
import { inboundRecord } from '../../src/domain/inbound-record.js';
import { CHAT_STATE_COLLECTION, SessionProcessor } from '../../src/processor/session-processor.js';
import { createLogger } from '../../src/support/logger.js';
import { topology } from '../../src/topology.js';
import { eventually } from '../support/wait.js';
import { tempDir } from '../support/temp-dirs.js';

const ACCOUNT = 'acct_00000000000000000000000000000a1d';
const FAN = '7770001';
const KEY = `${ACCOUNT}:${FAN}`;
const T0 = Date.parse('2026-06-10T10:00:00Z');
const dirs: string[] = [];
afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });

function legacySession() {
  return {
    sessionId: `${KEY}:1`, status: 'open', openedAt: T0, closedAt: null, closeReason: null, lastMessageAt: T0 + 60_000, lastActivityAt: T0 + 60_000,
    messageCount: 2, fanMessageCount: 1, replyCount: 1, awaiting: false, waitingSince: null, firstFanMessageAt: T0, firstResponseAt: T0 + 60_000,
    firstResponseSec: 60, firstResponderId: 'ann', lastHumanChatterId: 'ann', revenueCents: 0, paymentCount: 0,
  };
}

describe('chat states stored before issue 12', () => {
  it('are taken up: the open session goes on, and a redelivery the old lists remembered counts once', async () => {
    const dir = tempDir('convops-legacy-');
    dirs.push(dir);
    const config = loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' });
    const logger = createLogger('silent');
    const log = createLog(config, logger);
    const store = await createStore(config);
    const topo = topology('');
    await log.createTopics([{ name: topo.inbound, partitions: 1 }, { name: topo.sessionEvents, partitions: 1 }]);
    const body = (id: number, atMs: number, direction: 'received' | 'sent') => Buffer.from(messageWebhook({ accountId: ACCOUNT, fanId: FAN, messageId: String(id), createdAt: new Date(atMs).toISOString(), text: 'x', direction }));
    const record = (key: string, id: number, atMs: number, direction: 'received' | 'sent') => inboundRecord({ source: 'webhook', event: direction === 'received' ? 'messages.received' : 'messages.sent', accountId: ACCOUNT, chatId: FAN, dedupeKey: key, receivedAt: atMs }, body(id, atMs, direction));
    // The two records the old state already holds sit at offsets 0 and 1.
    await log.append(topo.inbound, [record('evt_1', 1, T0, 'received'), record('evt_2', 2, T0 + 60_000, 'sent')]);
    await store.collection(CHAT_STATE_COLLECTION).insertOne({
      _id: KEY, partition: 0, offset: 1, deadline: T0 + 60_000 + 1_800_000,
      state: {
        value: 'inSession',
        context: {
          accountId: ACCOUNT, chatId: FAN, idleMs: 1_800_000, chatKey: KEY, seq: 3, sessionCount: 1, session: legacySession(),
          recentKeys: ['evt_1', 'evt_2'], recentMessageIds: ['1', '2'], recentPaymentIds: [], fanSpendCents: null, presence: null, presenceAt: null,
          lastArrivalAt: T0 + 60_000, skippedCount: 0, ignoredCloseCount: 0, unattributed: [], firstResponseMessageId: '2', lastHumanMessageId: '2',
        },
      },
    });
    // Then: the first message redelivered under another key (as a backfill sends it), and a new fan message.
    await log.append(topo.inbound, [record('evt_1_again', 1, T0, 'received'), record('evt_3', 3, T0 + 120_000, 'received')]);
    await log.setGroupPosition(topo.processorGroup, topo.inbound, { kind: 'offsets', offsets: { 0: 2 } });
    const processor = new SessionProcessor({ log, store, topology: topo, idleMs: 1_800_000, lateMs: 120_000, logger });
    await processor.start();
    try {
      await eventually(async () => (processor.counters.recordsApplied + processor.counters.recordsDuplicate >= 2 ? true : undefined), 20_000, 'the processor to take both records');
      expect(processor.counters).toMatchObject({ recordsApplied: 1, recordsDuplicate: 1, batchesFenced: 0 });
      const stored = await store.collection<{ _id: string; state: { context: { lateMs: number; seq: number; session: { summary: Record<string, unknown> } } } }>(CHAT_STATE_COLLECTION).findOne({ _id: KEY });
      expect(stored?.state.context.lateMs).toBe(120_000);
      // The same session goes on, with the new fan waiting since their message.
      expect(stored?.state.context.session.summary).toMatchObject({ sessionId: `${KEY}:1`, messageCount: 3, fanMessageCount: 2, awaiting: true, waitingSince: T0 + 120_000, firstResponseSec: 60, firstResponderId: 'ann' });
      expect(stored?.state.context.seq).toBe(4);
    } finally {
      await processor.stop();
      await log.close();
      await store.close();
    }
  });
});
