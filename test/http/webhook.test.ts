// The webhook route through inject(), over the real pipeline: dedupe has no window. A chat of
// more than a thousand records, then the platform redelivers its very first webhook (same
// idempotency key, days later in its life), and the same first message comes again under
// another key (as a backfill or the connector sends it). Nothing changes: message counts,
// session counts and totals equal the reference model's before and after. Measured by
// counters, not by documents (which are keyed by id and cannot duplicate). On both stores: the
// dedupe ledger lives in the store.
import { afterAll, describe, expect, it } from 'vitest';
import { messageWebhook } from '../../src/demo/platform-bodies.js';
import { tickRecords } from '../../src/processor/ticker.js';
import { ReadModelSet } from '../../src/read-models/read-model-set.js';
import { verifyFigures } from '../../src/read-side/verify.js';
import { topology } from '../../src/topology.js';
import { mongoStoreEnv, startHarness, STORE_KINDS, type Harness } from '../support/app-harness.js';
import { compareWithReference } from '../support/compare-reference.js';
import type { Delivery } from '../support/fault-input.js';
import { readModelDocs } from '../support/read-models.js';
import { referenceOf } from '../support/reference-check.js';
import type { Reference } from '../support/reference-model.js';

const ACCOUNT = 'acct_00000000000000000000000000000dd1';
const T0 = Date.parse('2026-06-01T08:00:00Z');

function longChat(records: number): Delivery[] {
  return Array.from({ length: records }, (_, i) => ({
    key: `evt_long_${String(i).padStart(6, '0')}`,
    body: messageWebhook({
      accountId: ACCOUNT, fanId: '8100001', messageId: String(3_000_000_000 + i), createdAt: new Date(T0 + i * 40_000).toISOString(),
      text: i % 2 === 0 ? `fan ${i}` : `reply ${i}`, direction: i % 2 === 0 ? 'received' : 'sent',
    }),
  }));
}

/** A clock tick past the allowed lateness closes every idle chat, then every figure equals the reference's. */
async function expectSameAsReference(h: Harness, ref: Reference): Promise<void> {
  await h.settled(240_000);
  const inbound = topology(h.config.topicPrefix, h.config.inboundTopic ?? undefined).inbound;
  await h.log.append(inbound, tickRecords(await h.log.partitionCount(inbound), Date.now() + (h.config.allowedLatenessSec + 1) * 1000));
  await h.settled(240_000);
  expect(compareWithReference(ref, (await readModelDocs(h.store)) as never)).toEqual([]);
  expect((await verifyFigures(await new ReadModelSet(h.store).active())).differences).toEqual([]);
}

interface Overview { messages: { total: number }; sessions: { total: number } }

describe.each(STORE_KINDS)('webhook dedupe with no window, %s store', (kind) => {
  let h: Harness | undefined;
  afterAll(async () => { await h?.stop(); });

  it('a redelivery of a chat\'s first record after 1,100 newer ones, under its key or another, changes nothing', async () => {
    const app = await startHarness(kind === 'mongo' ? await mongoStoreEnv() : {}, { driven: true });
    h = app;
    const deliveries = longChat(1_101);
    await app.deliver(deliveries);
    const ref = referenceOf(deliveries);
    await expectSameAsReference(app, ref);
    const before = (await app.call<Overview>('GET', '/api/overview')).body;
    expect(before.messages.total).toBe(1_101);

    const first = deliveries[0] as Delivery;
    await app.deliver([first, { key: 'evt_long_again_by_backfill', body: first.body }]);
    await expectSameAsReference(app, ref);
    const after = (await app.call<Overview>('GET', '/api/overview')).body;
    expect(after.messages.total).toBe(1_101);
    expect(after.sessions.total).toBe(before.sessions.total);
  }, 600_000);
});
