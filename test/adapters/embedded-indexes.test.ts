// The embedded store keeps each collection's index list decoded between writes and leaves an
// index entry alone when a write does not change its key. Both are only safe if a list another
// process recorded is seen at the next write, and if an entry whose key did change still moves:
// a missed index entry is a document that indexed reads never return.
import { afterAll, describe, expect, it } from 'vitest';
import { EmbeddedStore } from '../../src/adapters/store/embedded-store.js';
import type { Doc } from '../../src/adapters/store/store.js';
import { tempDir } from '../support/temp-dirs.js';

interface Row extends Doc {
  n: number;
  tag?: string;
}

const dir = tempDir('embedded-indexes-');
const api = new EmbeddedStore(dir);
const worker = new EmbeddedStore(dir);
afterAll(async () => {
  await api.close();
  await worker.close();
});

const ids = (rows: readonly Row[]): string[] => rows.map((r) => r._id);

describe('embedded secondary indexes', () => {
  it('are maintained by a process that wrote before another process created them', async () => {
    const mine = api.collection<Row>('rows');
    const theirs = worker.collection<Row>('rows');
    await mine.insertOne({ _id: 'a', n: 1 });
    await theirs.createIndex({ keys: { n: 1 } });
    await mine.insertOne({ _id: 'b', n: 2 });
    await mine.updateOne({ _id: 'a' }, { $set: { n: 3 } });
    await mine.bulkWrite([{ replaceOne: { filter: { _id: 'b' }, replacement: { _id: 'b', n: 4 } } }]);
    // Ranged and equality reads on n go through the index (every candidate is re-tested, so a
    // stale entry can only hide a document, never add one).
    expect(ids(await theirs.find({ n: { $gte: 0 } }, { sort: { n: 1 } }))).toEqual(['a', 'b']);
    expect(ids(await theirs.find({ n: 3 }))).toEqual(['a']);
    expect(ids(await theirs.find({ n: 4 }))).toEqual(['b']);
    expect(ids(await mine.find({ n: 1 }))).toEqual([]);
  });

  it('move an entry when its key changes and keep it when another field changes', async () => {
    const c = api.collection<Row>('rows2');
    await c.createIndex({ keys: { n: 1, tag: 1 } });
    await c.insertOne({ _id: 'x', n: 5, tag: 'p' });
    await c.updateOne({ _id: 'x' }, { $set: { other: true } });
    expect(ids(await c.find({ n: 5, tag: 'p' }))).toEqual(['x']);
    await c.updateOne({ _id: 'x' }, { $set: { tag: 'q' } });
    expect(ids(await c.find({ n: 5, tag: 'p' }))).toEqual([]);
    expect(ids(await c.find({ n: 5, tag: 'q' }))).toEqual(['x']);
    expect(ids(await c.find({ n: { $gt: 4 } }, { sort: { n: 1 } }))).toEqual(['x']);
    await c.deleteMany({ _id: 'x' });
    expect(ids(await c.find({ n: { $gt: 4 } }, { sort: { n: 1 } }))).toEqual([]);
  });

  it('move an entry when an update outside the plain case ($unset, $rename) or a second update in one write changes its key', async () => {
    // An update changes the decoded document in place: its old entries come from the keys taken
    // before the change, whichever updater (plain or mingo) made it.
    const c = api.collection<Row>('rows3');
    await c.createIndex({ keys: { tag: 1 } });
    await c.insertOne({ _id: 'y', n: 1, tag: 'p' });
    await c.updateOne({ _id: 'y' }, { $unset: { tag: '' } });
    expect(ids(await c.find({ tag: 'p' }))).toEqual([]);
    expect(ids(await c.find({ tag: null }))).toEqual(['y']);
    await c.updateOne({ _id: 'y' }, { $rename: { n: 'tag' } });
    expect(ids(await c.find({ tag: 1 }))).toEqual(['y']);
    expect(ids(await c.find({ tag: null }))).toEqual([]);
    await c.bulkWrite([
      { updateOne: { filter: { _id: 'y' }, update: { $set: { tag: 'r' } } } },
      { updateOne: { filter: { _id: 'y' }, update: { $set: { tag: 's' } } } },
    ]);
    expect(ids(await c.find({ tag: 'r' }))).toEqual([]);
    expect(ids(await c.find({ tag: 1 }))).toEqual([]);
    expect(ids(await c.find({ tag: 's' }))).toEqual(['y']);
  });

  it('count the documents a read examines: the index range for an indexed read, every document for a scan', async () => {
    const c = api.collection<Row>('rows4');
    await c.createIndex({ keys: { n: 1 } });
    await c.bulkWrite(Array.from({ length: 50 }, (_, i) => ({ insertOne: { document: { _id: `r${i}`, n: i, tag: i % 2 === 0 ? 'even' : 'odd' } } })));
    const examined = (): number => api.documentsExamined().get('rows4') ?? 0;
    const cost = async (read: () => Promise<unknown>): Promise<number> => {
      const before = examined();
      await read();
      return examined() - before;
    };
    expect(await cost(() => c.find({ n: 7 }))).toBe(1);
    expect(await cost(() => c.find({ n: { $gte: 40 } }))).toBe(10);
    expect(await cost(() => c.find({ _id: { $in: ['r1', 'r2', 'nope'] } }))).toBe(3);
    expect(await cost(() => c.find({ tag: 'even' }))).toBe(50);
    expect(await cost(() => c.countDocuments())).toBe(50);
  });
});
