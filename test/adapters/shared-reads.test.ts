// Shared reads on the embedded store: a reader that promises not to modify what it gets may be
// handed the same decoded objects again, but only while the stored bytes are unchanged,
// whichever process changed them (a second store on the same folder stands for the worker).
import { afterAll, describe, expect, it } from 'vitest';
import { EmbeddedStore } from '../../src/adapters/store/embedded-store.js';
import type { Doc } from '../../src/adapters/store/store.js';
import { tempDir } from '../support/temp-dirs.js';

interface Bucket extends Doc {
  accountId: string;
  opened?: number;
  frt?: Record<string, number>;
}

const dir = tempDir('shared-reads-');
const api = new EmbeddedStore(dir);
const worker = new EmbeddedStore(dir);
afterAll(async () => {
  await api.close();
  await worker.close();
});

const range = { _id: { $gte: 'd|', $lt: 'd}' } };

describe('shared reads of an _id range', () => {
  it('return the same frozen objects until a document changes, in this process or another', async () => {
    const mine = api.collection<Bucket>('buckets');
    const theirs = worker.collection<Bucket>('buckets');
    await mine.insertOne({ _id: 'd|1|a', accountId: 'a', opened: 1, frt: { s3: 1 } });
    await mine.insertOne({ _id: 'd|2|a', accountId: 'a', opened: 2 });
    const first = await mine.find(range, { shared: true });
    const again = await mine.find(range, { shared: true });
    expect(again[0]).toBe(first[0]);
    expect(again[1]).toBe(first[1]);
    expect(Object.isFrozen(first[0])).toBe(true);
    expect(Object.isFrozen(first[0]?.frt)).toBe(true);

    await theirs.updateOne({ _id: 'd|1|a' }, { $inc: { opened: 1, 'frt.s3': 1 } });
    const after = await mine.find(range, { shared: true });
    expect(after[0]).not.toBe(first[0]);
    expect(after[0]).toMatchObject({ opened: 2, frt: { s3: 2 } });
    expect(after[1]).toBe(first[1]);

    await mine.updateOne({ _id: 'd|2|a' }, { $inc: { opened: 5 } });
    expect((await mine.find(range, { shared: true }))[1]).toMatchObject({ opened: 7 });
  });

  it('tell a document from one that grew or shrank, small or large (the store compares its own read in place)', async () => {
    const c = api.collection<Bucket>('buckets4');
    const wide = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`s${i}`, i + 1]));
    await c.insertOne({ _id: 'd|1|a', accountId: 'a', opened: 1, frt: wide });
    await c.insertOne({ _id: 'd|2|a', accountId: 'a', opened: 1 });
    const first = await c.find(range, { shared: true });
    expect(Object.keys(first[0]?.frt ?? {})).toHaveLength(20_000);
    expect((await c.find(range, { shared: true }))[0]).toBe(first[0]);
    // Shorter, then longer again: each read is the document as stored, never the kept one.
    await c.replaceOne({ _id: 'd|1|a' }, { _id: 'd|1|a', accountId: 'a', opened: 1 });
    const shrunk = await c.find(range, { shared: true });
    expect(shrunk[0]).toEqual({ _id: 'd|1|a', accountId: 'a', opened: 1 });
    expect(shrunk[1]).toBe(first[1]);
    await c.replaceOne({ _id: 'd|1|a' }, { _id: 'd|1|a', accountId: 'a', opened: 1, frt: { ...wide, extra: 1 } });
    const grown = await c.find(range, { shared: true });
    expect(Object.keys(grown[0]?.frt ?? {})).toHaveLength(20_001);
    expect((await c.find(range, { shared: true }))[0]).toBe(grown[0]);
  });

  it('leave out the fields a projection excludes, kept apart from the full documents', async () => {
    const c = api.collection<Bucket>('buckets2');
    await c.insertOne({ _id: 'd|1|a', accountId: 'a', opened: 1, frt: { s3: 1 } });
    const full = await c.find(range, { shared: true });
    const counts = await c.find(range, { shared: true, projection: { frt: 0 } });
    expect(counts).toEqual([{ _id: 'd|1|a', accountId: 'a', opened: 1 }]);
    expect(full[0]?.frt).toEqual({ s3: 1 });
    expect((await c.find(range, { shared: true, projection: { frt: 0 } }))[0]).toBe(counts[0]);
  });

  it('answer like an ordinary read: exclusive bounds, limits, deleted documents', async () => {
    const c = api.collection<Bucket>('buckets3');
    for (const i of [1, 2, 3, 4]) await c.insertOne({ _id: `d|${i}|a`, accountId: 'a', opened: i });
    const plain = async (filter: Record<string, unknown>, limit?: number) => c.find(filter, limit ? { limit, sort: { _id: 1 } } : {});
    const shared = async (filter: Record<string, unknown>, limit?: number) => c.find(filter, limit ? { limit, sort: { _id: 1 }, shared: true } : { shared: true });
    for (const [filter, limit] of [[{ _id: { $gt: 'd|1|a', $lte: 'd|3|a' } }, undefined], [{ _id: { $gt: 'd|1|a' } }, 2], [range, 1]] as const) {
      expect(await shared(filter, limit)).toEqual(await plain(filter, limit));
    }
    await c.deleteMany({ _id: 'd|2|a' });
    expect((await shared(range)).map((d) => d._id)).toEqual(['d|1|a', 'd|3|a', 'd|4|a']);
  });
});
