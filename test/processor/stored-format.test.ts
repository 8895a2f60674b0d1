// A chat state written by a build before 0.1.0 (here: before event time and the chat ledger,
// with its bounded dedupe lists) is refused, not upgraded: the processor's round fails with a
// StoredFormatError that says what it found and what to do, however often it comes again. It
// is no record's fault, so nothing is set aside, and nothing is written: the state, the ledger,
// session-events and the applied marks stay as they were, and the records stay in inbound.
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { createLog, createStore } from '../../src/adapters/index.js';
import type { RecordBatch } from '../../src/adapters/log/log.js';
import { loadConfig } from '../../src/config.js';
import { messageWebhook } from '../../src/demo/platform-bodies.js';
import { inboundRecord } from '../../src/domain/inbound-record.js';
import { SET_ASIDE_COLLECTION } from '../../src/pipeline/set-aside.js';
import { BatchLedger, CHAT_LEDGER_COLLECTION, resolveLedger, type LedgerDoc } from '../../src/processor/chat-ledger.js';
import { APPLIED_MARKS_COLLECTION, STATE_ROLLBACKS_COLLECTION } from '../../src/processor/rollback.js';
import { CHAT_STATE_COLLECTION, SessionProcessor } from '../../src/processor/session-processor.js';
import { StoredFormatError } from '../../src/support/stored-format.js';
import { createLogger } from '../../src/support/logger.js';
import { topology } from '../../src/topology.js';
import { tempDir } from '../support/temp-dirs.js';

const ACCOUNT = 'acct_00000000000000000000000000000f0d';
const FAN = '7770002';
const KEY = `${ACCOUNT}:${FAN}`;
const T0 = Date.parse('2026-06-10T10:00:00Z');
const dirs: string[] = [];
afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });

/** As the two-state machine stored it before event time: no lateMs, no unansweredMs, dedupe lists in the context. */
const beforeTheLedger = {
  _id: KEY, partition: 0, offset: 1, deadline: T0 + 60_000 + 1_800_000,
  state: {
    value: 'inSession',
    context: {
      accountId: ACCOUNT, chatId: FAN, idleMs: 1_800_000, chatKey: KEY, seq: 3, sessionCount: 1,
      session: {
        sessionId: `${KEY}:1`, status: 'open', openedAt: T0, closedAt: null, closeReason: null, lastMessageAt: T0 + 60_000, lastActivityAt: T0 + 60_000,
        messageCount: 2, fanMessageCount: 1, replyCount: 1, awaiting: false, waitingSince: null, firstFanMessageAt: T0, firstResponseAt: T0 + 60_000,
        firstResponseSec: 60, firstResponderId: 'ann', lastHumanChatterId: 'ann', revenueCents: 0, paymentCount: 0,
      },
      recentKeys: ['evt_1', 'evt_2'], recentMessageIds: ['1', '2'], recentPaymentIds: [], fanSpendCents: null, presence: null, presenceAt: null,
      lastArrivalAt: T0 + 60_000, skippedCount: 0, ignoredCloseCount: 0, unattributed: [], firstResponseMessageId: '2', lastHumanMessageId: '2',
    },
  },
};

describe('a chat state stored before 0.1.0', () => {
  it('fails the processor\'s round with a message to act on, every time; nothing is set aside, written or lost', async () => {
    const dir = tempDir('convops-stored-format-');
    dirs.push(dir);
    const config = loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' });
    const log = createLog(config, createLogger('silent'));
    const store = await createStore(config);
    const topo = topology('');
    try {
      await log.createTopics([{ name: topo.inbound, partitions: 1 }, { name: topo.sessionEvents, partitions: 1 }]);
      const record = (fan: string, id: number, atMs: number) => inboundRecord(
        { source: 'webhook', event: 'messages.received', accountId: ACCOUNT, chatId: fan, dedupeKey: `evt_${id}`, receivedAt: atMs },
        Buffer.from(messageWebhook({ accountId: ACCOUNT, fanId: fan, messageId: String(id), createdAt: new Date(atMs).toISOString(), text: 'x', direction: 'received' })),
      );
      // The two records the old state holds, then one for it and one for a chat with no state.
      await log.append(topo.inbound, [record(FAN, 1, T0), record(FAN, 2, T0 + 60_000), record('7770003', 3, T0 + 90_000), record(FAN, 4, T0 + 120_000)]);
      await store.collection(CHAT_STATE_COLLECTION).insertOne(beforeTheLedger);
      const records = (await log.readRange(topo.inbound, 0, 2, 4)).records;
      const round: RecordBatch[] = [{ topic: topo.inbound, partition: 0, records }];
      const processor = new SessionProcessor({ log, store, topology: topo, idleMs: 1_800_000, lateMs: 120_000, logger: createLogger('silent') });
      await processor.prepare();

      // More often than a record's own failure takes to be set aside (twice the same way).
      for (let i = 0; i < 3; i++) {
        const refused = processor.handleBatch(round);
        await expect(refused).rejects.toBeInstanceOf(StoredFormatError);
        await expect(refused).rejects.toThrow(`chat state "${KEY}" (inbound partition 0, offset 1) was written by a build of convops before 0.1.0: its context has no lateMs. `
          + 'This version does not read chat states written before event time and the chat ledger and does not upgrade them.');
      }
      expect(await store.collection(CHAT_STATE_COLLECTION).find({})).toEqual([beforeTheLedger]);
      for (const c of [SET_ASIDE_COLLECTION, CHAT_LEDGER_COLLECTION, APPLIED_MARKS_COLLECTION, STATE_ROLLBACKS_COLLECTION]) expect(await store.collection(c).countDocuments(), c).toBe(0);
      expect(await log.endOffsets(topo.sessionEvents)).toEqual({ 0: 0 });
      expect(await log.endOffsets(topo.inbound)).toEqual({ 0: 4 });
      expect(processor.counters).toMatchObject({ recordsApplied: 0, recordsSetAside: 0, eventsEmitted: 0 });
    } finally {
      await log.close();
      await store.close();
    }
  });
});

// Chat ledger entries did not always say whether a send was first taken in without its send
// facts (`bare`, with `factsOffset` for the copy that brought them). Entries written before
// that are read, not refused: as not bare, so a later copy with the facts stays a duplicate,
// as it was when they were written. And an entry that is not bare is still written as before.
describe('a chat ledger entry written before entries said whether a send was bare', () => {
  const beforeBare: LedgerDoc[] = [
    { _id: `${KEY}|m:1`, chatKey: KEY, partition: 0, offset: 1, unattributed: false },
    { _id: `${KEY}|m:2`, chatKey: KEY, partition: 0, offset: 2, unattributed: true },
    { _id: `${KEY}|m:3`, chatKey: KEY, partition: 0, offset: 3, unattributed: true, attributedOffset: 4 },
    { _id: `${KEY}|k:evt_5`, chatKey: KEY, partition: 0, offset: 5, unattributed: false },
  ];

  it('reads as not bare, whatever else it says', () => {
    const ledger = resolveLedger(beforeBare, new Map([[KEY, { partition: 0, offset: 9 }]]));
    expect(['m:1', 'm:2', 'm:3', 'k:evt_5'].map((id) => ledger.known(KEY, id))).toEqual([
      { unattributed: false, bare: false }, { unattributed: true, bare: false }, { unattributed: false, bare: false }, { unattributed: false, bare: false },
    ]);
  });

  it('is the shape an entry that is not bare is written in now', () => {
    const ledger = new BatchLedger(new Map());
    ledger.remember(KEY, 0, 1, [{ id: 'm:1', unattributed: false, bare: false }]);
    ledger.remember(KEY, 0, 2, [{ id: 'm:2', unattributed: true, bare: false }]);
    ledger.remember(KEY, 0, 3, [{ id: 'm:3', unattributed: true, bare: false }]);
    ledger.remember(KEY, 0, 4, [{ id: 'm:3', unattributed: false, bare: false }]);
    ledger.remember(KEY, 0, 5, [{ id: 'k:evt_5', unattributed: false, bare: false }]);
    expect(ledger.ops()).toEqual(beforeBare.map((document) => ({ insertOne: { document } })));
  });
});
