// The pipeline's set-aside alert is a function of the set-aside collection when reconciled:
// open (with the count) while any record is kept, resolved once none is, opened again (a new
// episode, not acknowledged) when records are set aside after that. Real embedded store.
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { EmbeddedStore } from '../../src/adapters/store/embedded-store.js';
import { ALERTS_COLLECTION, type AlertDoc } from '../../src/intelligence/intelligence.js';
import { reconcileSetAsideAlert, SET_ASIDE_ALERT_ID } from '../../src/pipeline/set-aside-alert.js';
import { bodyPrefix, SET_ASIDE_COLLECTION, setAsideWrite, type SetAsideDoc } from '../../src/pipeline/set-aside.js';
import { tempDir } from '../support/temp-dirs.js';

const dir = tempDir('convops-set-aside-alert-');
const store = new EmbeddedStore(dir);
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const doc = (offset: number): SetAsideDoc => ({
  _id: `inbound:0:${offset}`, stage: 'step', topic: 'inbound', partition: 0, offset, chatKey: 'acct_x:1', event: 'messages.received',
  error: 'Error: boom', receivedAt: null, setAsideAt: 1_000, body: bodyPrefix('{}'),
});

describe('the set-aside alert', () => {
  const alert = () => store.collection<AlertDoc>(ALERTS_COLLECTION).findOne({ _id: SET_ASIDE_ALERT_ID });
  const asides = store.collection(SET_ASIDE_COLLECTION);

  it('is not raised while nothing is set aside', async () => {
    expect(await reconcileSetAsideAlert(store, 1_000)).toBe('none');
    expect(await alert()).toBeNull();
  });

  it('opens with the count, follows it, resolves when none is kept, and a new episode opens unacknowledged', async () => {
    await store.bulkWriteMany([setAsideWrite([doc(1)])]);
    expect(await reconcileSetAsideAlert(store, 2_000)).toBe('open');
    expect(await alert()).toMatchObject({
      status: 'open', severity: 'warning', ruleId: SET_ASIDE_ALERT_ID, accountId: null, sessionId: null, chatId: null, chatterId: null,
      openedAt: 2_000, updatedAt: 2_000, resolvedAt: null, reason: expect.stringContaining('1 record is set aside'),
    });
    await store.bulkWriteMany([setAsideWrite([doc(2)])]);
    await reconcileSetAsideAlert(store, 3_000);
    expect(await alert()).toMatchObject({ status: 'open', openedAt: 2_000, updatedAt: 3_000, reason: expect.stringContaining('2 records are set aside') });

    // Acknowledged, then every record dealt with: resolved once.
    await store.collection<AlertDoc>(ALERTS_COLLECTION).updateOne({ _id: SET_ASIDE_ALERT_ID }, { $set: { status: 'acked', ackedAt: 3_500, ackedBy: 'ADMIN_TOKEN' } });
    await asides.deleteMany({});
    expect(await reconcileSetAsideAlert(store, 4_000)).toBe('resolved');
    expect(await alert()).toMatchObject({ status: 'resolved', resolvedAt: 4_000 });
    expect(await reconcileSetAsideAlert(store, 4_500)).toBe('none');
    expect(await alert()).toMatchObject({ status: 'resolved', resolvedAt: 4_000 });

    // Set aside again: open again, a new episode.
    await store.bulkWriteMany([setAsideWrite([doc(3)])]);
    expect(await reconcileSetAsideAlert(store, 5_000)).toBe('open');
    expect(await alert()).toMatchObject({ status: 'open', openedAt: 5_000, resolvedAt: null, ackedAt: null, ackedBy: null });
    expect(await store.collection(ALERTS_COLLECTION).countDocuments()).toBe(1);
  });
});
