// Dedupe has no window: a chat of more than a thousand records, then the platform redelivers
// its very first webhook (same idempotency key, days later in its life), and the same first
// message comes again under another key (as a backfill or the connector sends it). Nothing
// changes: message counts, session counts and totals equal the reference model's before and
// after. Measured by counters, not by documents (which are keyed by id and cannot duplicate).
import { afterAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../src/app.js';
import { messageWebhook } from '../../src/demo/platform-bodies.js';
import { expectSameAsReference, referenceOf } from '../support/reference-check.js';
import { DEPLOYMENTS, deploymentEnv, removeDataDirs, startWithEnv } from '../support/deployments.js';
import type { Delivery } from '../support/fault-input.js';
import { getJson } from '../support/platform.js';
import { deliverAll } from '../support/sender.js';

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

interface Overview { messages: { total: number }; sessions: { total: number } }

describe.each(DEPLOYMENTS)('dedupe with no window on %s', (kind) => {
  const apps: RunningApp[] = [];
  afterAll(async () => {
    await Promise.all(apps.map((a) => a.stop()));
    removeDataDirs();
  });

  it('a redelivery of a chat\'s first record after 1,100 newer ones, by key or by message id, changes nothing', async () => {
    const env = deploymentEnv(kind);
    const app = await startWithEnv(env);
    apps.push(app);
    const url = app.url ?? '';
    const deliveries = longChat(1_101);
    await deliverAll(() => url, deliveries);
    const ref = referenceOf(deliveries);
    await expectSameAsReference(ref, url, app.store, env, 240_000, app.log);
    const before = (await getJson<Overview>(url, '/api/overview')).body;
    expect(before.messages.total).toBe(1_101);

    const first = deliveries[0] as Delivery;
    await deliverAll(() => url, [first, { key: 'evt_long_again_by_backfill', body: first.body }]);
    await expectSameAsReference(ref, url, app.store, env, 240_000, app.log);
    const after = (await getJson<Overview>(url, '/api/overview')).body;
    expect(after.messages.total).toBe(1_101);
    expect(after.sessions.total).toBe(before.sessions.total);
  }, 600_000);
});
