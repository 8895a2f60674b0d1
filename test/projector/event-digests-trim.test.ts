// Event digests are bookkeeping, bounded by a horizon (EVENT_DIGESTS_KEEP_DAYS): the projector
// trims those stored before it, oldest first and a bounded number at a time, and a digest from
// before trimming existed (no time) is stamped rather than trimmed at once.
import { afterAll, describe, expect, it } from 'vitest';
import { EmbeddedStore } from '../../src/adapters/store/embedded-store.js';
import { loadConfig } from '../../src/config.js';
import { checkEventContent, EVENT_DIGESTS_COLLECTION, EVENT_DIGESTS_INDEX, TRIM_BATCH, trimEventDigests, type EventDigestDoc } from '../../src/projector/event-digests.js';
import { tempDir } from '../support/temp-dirs.js';

const store = new EmbeddedStore(tempDir('event-digests-trim-'));
afterAll(() => store.close());
const DAY = 86_400_000;

describe('event digest trimming', () => {
  it('removes digests stored before the horizon, oldest first, at most a batch at a time; stamps the unstamped', async () => {
    const digests = store.collection<EventDigestDoc>(EVENT_DIGESTS_COLLECTION);
    await digests.createIndex(EVENT_DIGESTS_INDEX);
    const now = Date.UTC(2026, 10, 30);
    const old = Array.from({ length: TRIM_BATCH + 7 }, (_, i): EventDigestDoc => ({ _id: `old:${i}`, d: 'x', p: 0, o: i, at: now - 40 * DAY + i }));
    await digests.bulkWrite([
      ...old.map((document) => ({ insertOne: { document } })),
      { insertOne: { document: { _id: 'recent:1', d: 'y', p: 0, o: 99_999, at: now - DAY } } },
      { insertOne: { document: { _id: 'legacy:1', d: 'z', p: 1, o: 1 } } },
    ]);
    const horizon = now - 30 * DAY;
    expect(await trimEventDigests(store, horizon, now)).toEqual({ removed: TRIM_BATCH, more: true });
    // The oldest went first: what is left of the old ones is the newest seven.
    expect((await digests.find({ _id: { $gte: 'old:', $lt: 'old;' } })).map((d) => d.o).sort((a, b) => a - b)).toEqual(old.slice(TRIM_BATCH).map((d) => d.o));
    expect((await digests.findOne({ _id: 'legacy:1' }))?.at).toBe(now);
    expect(await trimEventDigests(store, horizon, now)).toEqual({ removed: 7, more: false });
    expect(await trimEventDigests(store, horizon, now)).toEqual({ removed: 0, more: false });
    expect((await digests.find({})).map((d) => d._id).sort()).toEqual(['legacy:1', 'recent:1']);
    // The store's own count, without a scan (and without msgpack's structures entry).
    expect(await digests.estimatedCount()).toBe(2);
    expect(await store.collection('never-written').estimatedCount()).toBe(0);
    // The stamped one goes a horizon after it was stamped.
    expect(await trimEventDigests(store, now + 1, now + 30 * DAY)).toEqual({ removed: 2, more: false });
  });

  it('stamps digests from before trimming a batch at a time and says when there are more', async () => {
    const other = new EmbeddedStore(tempDir('event-digests-legacy-'));
    try {
      const legacy = other.collection<EventDigestDoc>(EVENT_DIGESTS_COLLECTION);
      await legacy.createIndex(EVENT_DIGESTS_INDEX);
      await legacy.bulkWrite(Array.from({ length: TRIM_BATCH + 1 }, (_, i) => ({ insertOne: { document: { _id: `legacy:${i}`, d: 'x', p: 0, o: i } } })));
      const now = Date.UTC(2026, 10, 30);
      expect(await trimEventDigests(other, now - 30 * DAY, now)).toEqual({ removed: 0, more: true });
      expect(await trimEventDigests(other, now - 30 * DAY, now)).toEqual({ removed: 0, more: false });
      expect(await legacy.countDocuments({ at: now })).toBe(TRIM_BATCH + 1);
    } finally {
      await other.close();
    }
  });

  it('stamps each digest with when it was stored', async () => {
    const before = Date.now();
    const { writes } = await checkEventContent(store, 'events', [{ event: { id: 'chat:1', type: 'SessionOpened' } as never, partition: 0, offset: 1, raw: Buffer.from('{}') }]);
    const doc = (writes[0]?.ops[0] as { insertOne: { document: EventDigestDoc } }).insertOne.document;
    expect(doc.at).toBeGreaterThanOrEqual(before);
    expect(doc.at).toBeLessThanOrEqual(Date.now());
  });

  it('keeps them EVENT_DIGESTS_KEEP_DAYS, 30 by default, and refuses a horizon out of range naming it', () => {
    expect(loadConfig({}).eventDigestsKeepDays).toBe(30);
    expect(loadConfig({ EVENT_DIGESTS_KEEP_DAYS: '90' }).eventDigestsKeepDays).toBe(90);
    expect(() => loadConfig({ EVENT_DIGESTS_KEEP_DAYS: '0' })).toThrow(/EVENT_DIGESTS_KEEP_DAYS/);
  });
});
