// The "Mongo features" contract: every MongoDB feature convops relies on, pinned so the same
// suite runs against the embedded store, the Mongo-wire test server, and a real MongoDB.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CollectionWrite, Doc, DocumentStore } from '../../src/adapters/store/store.js';
import { DuplicateKeyError, WriteConflictError } from '../../src/adapters/store/store.js';
import { uniqueName } from '../support/wait.js';

interface Row extends Doc {
  chatId?: string;
  n?: number;
  tags?: string[];
  nested?: { a?: number; b?: string };
  at?: Date;
  seq?: number;
}

export interface StoreCapabilities {
  /**
   * A bulk write (`bulkWrite`, `bulkWriteMany`) that fails (a conditional op that matches
   * nothing, a duplicate key) leaves nothing of itself stored, in any collection or index.
   * The embedded store declares it (each write is one LMDB transaction, aborted whole).
   * The Mongo adapter does not: it runs one ordered bulk write per collection with no
   * multi-document transaction (mongo-java-server, the test server, has none), so what came
   * before the failure stays. Callers that must work on both stores do not rely on it: the
   * processor writes ledger entries and set-aside records before the conditional state write,
   * each safe to repeat, and ledger entries past the stored state are ignored (chat-ledger.ts);
   * the projector's writes carry their own fences. On the embedded store it is a guarantee.
   */
  readonly atomicBulkWrites: boolean;
}

export function storeContract(name: string, makeStore: () => Promise<DocumentStore>, capabilities: StoreCapabilities): void {
  describe(`store contract: ${name}`, () => {
    let store: DocumentStore;
    beforeAll(async () => {
      store = await makeStore();
    });
    afterAll(async () => {
      await store.close();
    });

    const fresh = async () => {
      const c = store.collection<Row>(uniqueName('c'));
      await c.bulkWrite([
        { insertOne: { document: { _id: 'a', chatId: 'x', n: 3, tags: ['t1'], nested: { a: 1, b: 'p' }, at: new Date('2026-01-01T00:00:00Z') } } },
        { insertOne: { document: { _id: 'b', chatId: 'x', n: 1, tags: [], nested: { a: 2 } } } },
        { insertOne: { document: { _id: 'c', chatId: 'y', n: 2, tags: ['t1', 't2'] } } },
      ]);
      return c;
    };

    it('finds by equality, comparison, $in, $exists, $or, dotted paths and arrays', async () => {
      const c = await fresh();
      const ids = async (f: Record<string, unknown>) => (await c.find(f, { sort: { _id: 1 } })).map((d) => d._id);
      expect(await ids({ chatId: 'x' })).toEqual(['a', 'b']);
      expect(await ids({ n: { $gte: 2 } })).toEqual(['a', 'c']);
      expect(await ids({ _id: { $in: ['a', 'c', 'zz'] } })).toEqual(['a', 'c']);
      expect(await ids({ 'nested.a': 2 })).toEqual(['b']);
      expect(await ids({ nested: { $exists: false } })).toEqual(['c']);
      expect(await ids({ $or: [{ n: 1 }, { chatId: 'y' }] })).toEqual(['b', 'c']);
      expect(await ids({ tags: 't2' })).toEqual(['c']);
      expect(await ids({ at: { $lt: new Date('2026-06-01T00:00:00Z') } })).toEqual(['a']);
      expect((await c.findOne({ _id: 'a' }))?.nested).toEqual({ a: 1, b: 'p' });
      expect(await c.findOne({ _id: 'nope' })).toBeNull();
    });

    it('sorts, skips, limits and projects', async () => {
      const c = await fresh();
      expect((await c.find({}, { sort: { n: -1 } })).map((d) => d._id)).toEqual(['a', 'c', 'b']);
      expect((await c.find({}, { sort: { chatId: 1, n: 1 }, skip: 1, limit: 1 })).map((d) => d._id)).toEqual(['a']);
      const projected = await c.find({ _id: 'a' }, { projection: { n: 1 } });
      expect(projected).toEqual([{ _id: 'a', n: 3 }]);
      expect(await c.countDocuments({ chatId: 'x' })).toBe(2);
      expect(await c.countDocuments()).toBe(3);
    });

    it('applies $set, $inc, $unset, $push with $each/$slice, $addToSet, $max, $min and $setOnInsert on upsert', async () => {
      const c = await fresh();
      const r1 = await c.updateOne({ _id: 'a' }, { $set: { 'nested.b': 'q' }, $inc: { n: 2 }, $unset: { at: '' } });
      expect(r1).toEqual({ matched: 1, modified: 1, upserted: false });
      await c.updateOne({ _id: 'a' }, { $push: { tags: { $each: ['t2', 't3', 't4'], $slice: -3 } }, $addToSet: { more: 'm' }, $max: { hi: 5 }, $min: { lo: 5 } } as never);
      await c.updateOne({ _id: 'a' }, { $addToSet: { more: 'm' }, $max: { hi: 4 }, $min: { lo: 2 } } as never);
      const a = await c.findOne({ _id: 'a' });
      expect(a).toMatchObject({ n: 5, nested: { a: 1, b: 'q' }, tags: ['t2', 't3', 't4'], more: ['m'], hi: 5, lo: 2 });
      expect(a && 'at' in a).toBe(false);

      const up = await c.updateOne({ _id: 'new', chatId: 'z' }, { $inc: { n: 1 }, $setOnInsert: { created: 'yes' } }, { upsert: true });
      expect(up.upserted).toBe(true);
      await c.updateOne({ _id: 'new', chatId: 'z' }, { $inc: { n: 1 }, $setOnInsert: { created: 'again' } }, { upsert: true });
      expect(await c.findOne({ _id: 'new' })).toEqual({ _id: 'new', chatId: 'z', n: 2, created: 'yes' });

      const miss = await c.updateOne({ _id: 'ghost' }, { $set: { n: 1 } });
      expect(miss).toEqual({ matched: 0, modified: 0, upserted: false });
    });

    it('iterates in batches as the caller takes them: by _id, or along an index that serves a sort, filtered; stopping early releases it', async () => {
      const c = store.collection<Row>(uniqueName('c'));
      await c.createIndex({ keys: { n: 1 } });
      // Ids out of insertion order; n repeats (ties) and runs 0..99.
      const docs: Row[] = Array.from({ length: 1_000 }, (_, i) => ({ _id: `d${String((i * 7919) % 1_000).padStart(4, '0')}`, chatId: i % 3 === 0 ? 'y' : 'x', n: i % 100 }));
      await c.bulkWrite(docs.map((document) => ({ insertOne: { document } })));
      const all = async (filter: Record<string, unknown>, options?: Parameters<typeof c.iterate>[1]) => {
        const out: Row[] = [];
        for await (const d of c.iterate(filter, options)) out.push(d);
        return out;
      };
      const byId = (rows: readonly Row[]) => rows.map((d) => d._id).sort();
      // No sort: every matching document once, in _id order, whatever the batch size.
      expect((await all({}, { batchSize: 7 })).map((d) => d._id)).toEqual(docs.map((d) => d._id).sort());
      expect((await all({ chatId: 'y' }, { batchSize: 1 })).map((d) => d._id)).toEqual(byId(docs.filter((d) => d.chatId === 'y')));
      expect((await all({ _id: { $gte: 'd0100', $lt: 'd0200' }, chatId: 'x' }, { batchSize: 13 })).map((d) => d._id))
        .toEqual(byId(docs.filter((d) => d._id >= 'd0100' && d._id < 'd0200' && d.chatId === 'x')));
      // Sorted along the index: in n order (ties in any order), exactly the documents find gives.
      const window = { n: { $gte: 10, $lt: 40 }, chatId: { $in: ['y'] } };
      const sorted = await all(window, { sort: { n: 1 }, batchSize: 6 });
      expect(sorted.map((d) => d.n)).toEqual([...sorted.map((d) => d.n as number)].sort((a, b) => a - b));
      expect(byId(sorted)).toEqual(byId(await c.find(window)));
      expect(sorted.length).toBe(docs.filter((d) => d.chatId === 'y' && (d.n as number) >= 10 && (d.n as number) < 40).length);
      expect(await all({ chatId: 'nobody' }, { sort: { n: 1 } })).toEqual([]);
      // A sort no index serves still comes in order (read at once).
      const unindexed = await all({ n: { $lt: 3 } }, { sort: { chatId: 1 }, batchSize: 4 });
      expect(unindexed.map((d) => d.chatId)).toEqual([...unindexed.map((d) => d.chatId as string)].sort());
      expect(byId(unindexed)).toEqual(byId(docs.filter((d) => (d.n as number) < 3)));
      // Stopping early: the rest is not read, and the collection takes writes as before.
      let taken = 0;
      for await (const _ of c.iterate({}, { batchSize: 10 })) if (++taken === 25) break;
      expect(taken).toBe(25);
      await c.insertOne({ _id: 'after', n: 1 });
      expect(await c.countDocuments()).toBe(1_001);
      expect(await all({ _id: 'none' })).toEqual([]);
    });

    it('guards a write with a sequence condition (the exactly-once pattern)', async () => {
      const c = store.collection<Row>(uniqueName('c'));
      await c.replaceOne({ _id: 's1' }, { _id: 's1', seq: 1, n: 10 }, { upsert: true });
      const stale = await c.updateOne({ _id: 's1', seq: { $lt: 1 } }, { $set: { seq: 1, n: 99 } });
      expect(stale.matched).toBe(0);
      const fresh2 = await c.updateOne({ _id: 's1', seq: { $lt: 2 } }, { $set: { seq: 2, n: 11 } });
      expect(fresh2.modified).toBe(1);
      expect((await c.findOne({ _id: 's1' }))?.n).toBe(11);
    });

    it('fences writes: a conditional replace on a changed revision fails the bulk write with WriteConflictError; a null condition matches a missing field', async () => {
      const name = uniqueName('c');
      const c = store.collection<Row>(name);
      await c.insertOne({ _id: 'legacy', n: 1 });
      // Documents written before revisions existed have none: `_rev: null` must match them.
      await c.bulkWrite([{ replaceOne: { filter: { _id: 'legacy', _rev: null }, replacement: { _id: 'legacy', n: 2, _rev: 1 }, requireMatch: true } }]);
      expect(await c.findOne({ _id: 'legacy' })).toEqual({ _id: 'legacy', n: 2, _rev: 1 });
      // A writer that read revision 1 after another moved it to 2 is refused, and changes nothing it conditioned.
      await c.bulkWrite([{ replaceOne: { filter: { _id: 'legacy', _rev: 1 }, replacement: { _id: 'legacy', n: 3, _rev: 2 }, requireMatch: true } }]);
      await expect(c.bulkWrite([{ replaceOne: { filter: { _id: 'legacy', _rev: 1 }, replacement: { _id: 'legacy', n: 99, _rev: 2 }, requireMatch: true } }])).rejects.toBeInstanceOf(WriteConflictError);
      expect((await c.findOne({ _id: 'legacy' }))?.n).toBe(3);
      // An insert of a document someone else created first is refused the same way callers recognise.
      await expect(c.bulkWrite([{ insertOne: { document: { _id: 'legacy', n: 4 } } }])).rejects.toBeInstanceOf(DuplicateKeyError);
      // Across collections in one bulkWriteMany: the conflict surfaces (the cases below pin what lands).
      const other = uniqueName('c');
      await expect(store.bulkWriteMany([
        { collection: other, ops: [{ insertOne: { document: { _id: 'x', n: 1 } } }] },
        { collection: name, ops: [{ updateOne: { filter: { _id: 'legacy', _rev: 0 }, update: { $set: { n: 5 } }, requireMatch: true } }] },
      ])).rejects.toBeInstanceOf(WriteConflictError);
      expect((await c.findOne({ _id: 'legacy' }))?.n).toBe(3);
    });

    describe('a failed bulk write is all-or-nothing', () => {
      /**
       * Three collections as a processor round writes them: one insert-only (a ledger), one
       * with a secondary index whose entries the write would move, add and remove, and one
       * holding the conditioned document. Returns what the write's failure must leave alone.
       */
      const scene = async () => {
        const ledger = store.collection<Row>(uniqueName('ledger'));
        const indexed = store.collection<Row & { k?: string }>(uniqueName('indexed'));
        const states = store.collection<Row>(uniqueName('states'));
        await indexed.createIndex({ keys: { k: 1 } });
        await indexed.createIndex({ keys: { chatId: 1, seq: 1 }, unique: true });
        await indexed.bulkWrite([
          { insertOne: { document: { _id: 'moves', k: 'old', chatId: 'x', seq: 1 } } },
          { insertOne: { document: { _id: 'goes', k: 'old', chatId: 'x', seq: 2 } } },
        ]);
        await ledger.insertOne({ _id: 'kept', n: 1 });
        await states.insertOne({ _id: 's', n: 1, _rev: 2 });
        const ops = (last: CollectionWrite): CollectionWrite[] => [
          { collection: ledger.name, ops: [{ insertOne: { document: { _id: 'new-entry', n: 2 } } }, { updateOne: { filter: { _id: 'kept' }, update: { $inc: { n: 1 } } } }] },
          {
            collection: indexed.name,
            ops: [
              { updateOne: { filter: { _id: 'moves' }, update: { $set: { k: 'new' } } } },
              { deleteOne: { filter: { _id: 'goes' } } },
              { insertOne: { document: { _id: 'born', k: 'new', chatId: 'y', seq: 1 } } },
              { updateOne: { filter: { _id: 'upserted' }, update: { $set: { k: 'new', chatId: 'y', seq: 2 } }, upsert: true } },
            ],
          },
          last,
        ];
        const unchanged = async () => {
          expect(await ledger.find({}, { sort: { _id: 1 } })).toEqual([{ _id: 'kept', n: 1 }]);
          expect(await states.find({})).toEqual([{ _id: 's', n: 1, _rev: 2 }]);
          expect(await indexed.find({}, { sort: { _id: 1 } })).toEqual([
            { _id: 'goes', k: 'old', chatId: 'x', seq: 2 },
            { _id: 'moves', k: 'old', chatId: 'x', seq: 1 },
          ]);
          // Read through the indexes: an entry the failed write removed or moved would hide a document here.
          expect((await indexed.find({ k: 'old' }, { sort: { _id: 1 } })).map((d) => d._id)).toEqual(['goes', 'moves']);
          expect(await indexed.find({ k: 'new' })).toEqual([]);
          expect((await indexed.find({ chatId: 'x' }, { sort: { seq: 1 } })).map((d) => d._id)).toEqual(['moves', 'goes']);
          expect(await indexed.find({ chatId: 'y' })).toEqual([]);
          // And the write, repeated without its failing op, lands whole: nothing of the failed one is in its way.
          await store.bulkWriteMany(ops({ collection: states.name, ops: [] }));
          expect(await ledger.countDocuments()).toBe(2);
          expect((await indexed.find({ k: 'new' }, { sort: { _id: 1 } })).map((d) => d._id)).toEqual(['born', 'moves', 'upserted']);
          expect(await indexed.find({ k: 'old' })).toEqual([]);
        };
        return { ledger, indexed, states, ops, unchanged };
      };

      it('a stale condition (`_rev`) last in a bulkWriteMany fails it with WriteConflictError', async () => {
        const s = await scene();
        await expect(store.bulkWriteMany(s.ops({
          collection: s.states.name,
          ops: [{ replaceOne: { filter: { _id: 's', _rev: 1 }, replacement: { _id: 's', n: 9, _rev: 2 }, requireMatch: true } }],
        }))).rejects.toBeInstanceOf(WriteConflictError);
        expect(await s.states.findOne({ _id: 's' })).toEqual({ _id: 's', n: 1, _rev: 2 });
        if (capabilities.atomicBulkWrites) await s.unchanged();
      });

      it('a duplicate _id last in a bulkWriteMany fails it with DuplicateKeyError', async () => {
        const s = await scene();
        await expect(store.bulkWriteMany(s.ops({ collection: s.states.name, ops: [{ insertOne: { document: { _id: 's', n: 5 } } }] })))
          .rejects.toBeInstanceOf(DuplicateKeyError);
        expect(await s.states.findOne({ _id: 's' })).toEqual({ _id: 's', n: 1, _rev: 2 });
        if (capabilities.atomicBulkWrites) await s.unchanged();
      });

      // Only where writes are atomic: MongoDB keeps what landed before the failing op (see above).
      if (capabilities.atomicBulkWrites) it('a duplicate on a unique secondary index mid-write, and a conflict within one bulkWrite, leave nothing either', async () => {
        const s = await scene();
        await expect(store.bulkWriteMany(s.ops({
          collection: s.indexed.name,
          ops: [{ insertOne: { document: { _id: 'clash', k: 'new', chatId: 'y', seq: 1 } } }],
        }))).rejects.toBeInstanceOf(DuplicateKeyError);
        // One collection's bulkWrite: the insert before the stale condition goes too.
        await expect(s.ledger.bulkWrite([
          { insertOne: { document: { _id: 'early', n: 1 } } },
          { updateOne: { filter: { _id: 'kept', n: 0 }, update: { $set: { n: 7 } }, requireMatch: true } },
        ])).rejects.toBeInstanceOf(WriteConflictError);
        await s.unchanged();
      });
    });

    it('upserts with $setOnInsert and $set together: the first write inserts both, a repeat keeps what was inserted (the chat ledger)', async () => {
      const c = store.collection<Row>(uniqueName('c'));
      await c.bulkWrite([{ updateOne: { filter: { _id: 'k' }, update: { $setOnInsert: { offset: 5, unattributed: true } }, upsert: true } }]);
      await c.bulkWrite([{ updateOne: { filter: { _id: 'k' }, update: { $setOnInsert: { offset: 9, unattributed: false }, $set: { attributedOffset: 7 } }, upsert: true } }]);
      expect(await c.findOne({ _id: 'k' })).toEqual({ _id: 'k', offset: 5, unattributed: true, attributedOffset: 7 });
      await c.bulkWrite([{ updateOne: { filter: { _id: 'n' }, update: { $setOnInsert: { offset: 1 }, $set: { attributedOffset: 2 } }, upsert: true } }]);
      expect(await c.findOne({ _id: 'n' })).toEqual({ _id: 'n', offset: 1, attributedOffset: 2 });
    });

    it('replaces with upsert, deletes, and reports duplicate _id as DuplicateKeyError', async () => {
      const c = await fresh();
      await c.replaceOne({ _id: 'b' }, { _id: 'b', chatId: 'q' });
      expect(await c.findOne({ _id: 'b' })).toEqual({ _id: 'b', chatId: 'q' });
      const up = await c.replaceOne({ _id: 'd' }, { _id: 'd', n: 7 }, { upsert: true });
      expect(up.upserted).toBe(true);
      await expect(c.insertOne({ _id: 'd' })).rejects.toBeInstanceOf(DuplicateKeyError);
      expect(await c.deleteMany({ n: { $gte: 3 } })).toBe(2);
      expect((await c.find({}, { sort: { _id: 1 } })).map((d) => d._id)).toEqual(['b', 'c']);
    });

    it('a replacement that changes only a nested value is stored and counted as modified; an identical one is not', async () => {
      const c = await fresh();
      await c.insertOne({ _id: 'nest', n: 1, state: { context: { seq: 1, tags: ['a'] } } });
      const nested = await c.replaceOne({ _id: 'nest' }, { _id: 'nest', n: 1, state: { context: { seq: 2, tags: ['a'] } } });
      expect(nested).toMatchObject({ matched: 1, modified: 1 });
      expect(await c.findOne({ _id: 'nest' })).toEqual({ _id: 'nest', n: 1, state: { context: { seq: 2, tags: ['a'] } } });
      const inArray = await c.replaceOne({ _id: 'nest' }, { _id: 'nest', n: 1, state: { context: { seq: 2, tags: ['b'] } } });
      expect(inArray).toMatchObject({ matched: 1, modified: 1 });
      const same = await c.replaceOne({ _id: 'nest' }, { _id: 'nest', n: 1, state: { context: { seq: 2, tags: ['b'] } } });
      expect(same).toMatchObject({ matched: 1, modified: 0 });
      expect(await c.findOne({ _id: 'nest' })).toEqual({ _id: 'nest', n: 1, state: { context: { seq: 2, tags: ['b'] } } });
    });

    it('runs ordered bulk writes mixing updates, replaces, inserts and deletes', async () => {
      const c = await fresh();
      await c.bulkWrite([
        { updateOne: { filter: { _id: 'a' }, update: { $inc: { n: 1 } } } },
        { updateOne: { filter: { _id: 'e' }, update: { $set: { n: 9 } }, upsert: true } },
        { replaceOne: { filter: { _id: 'b' }, replacement: { _id: 'b', n: 0 }, upsert: true } },
        { deleteOne: { filter: { _id: 'c' } } },
      ]);
      expect((await c.find({}, { sort: { _id: 1 } })).map((d) => [d._id, d.n])).toEqual([['a', 4], ['b', 0], ['e', 9]]);
    });

    it('enforces unique secondary indexes', async () => {
      const c = store.collection<Row>(uniqueName('c'));
      await c.createIndex({ keys: { chatId: 1, seq: 1 }, unique: true });
      await c.createIndex({ keys: { chatId: 1, seq: 1 }, unique: true });
      await c.insertOne({ _id: '1', chatId: 'x', seq: 1 });
      await c.insertOne({ _id: '2', chatId: 'x', seq: 2 });
      await expect(c.insertOne({ _id: '3', chatId: 'x', seq: 1 })).rejects.toBeInstanceOf(DuplicateKeyError);
      expect(await c.countDocuments()).toBe(2);
    });

    it('aggregates with $match, $group ($sum, $avg, $min, $max, $push, $first), $sort, $project, $unwind, $count, $facet', async () => {
      const c = await fresh();
      const grouped = await c.aggregate<{ _id: string; total: number; count: number; avg: number; lo: number; hi: number; ids: string[] }>([
        { $match: { n: { $gte: 1 } } },
        { $sort: { _id: 1 } },
        { $group: { _id: '$chatId', total: { $sum: '$n' }, count: { $sum: 1 }, avg: { $avg: '$n' }, lo: { $min: '$n' }, hi: { $max: '$n' }, ids: { $push: '$_id' }, first: { $first: '$_id' } } },
        { $sort: { _id: 1 } },
      ]);
      expect(grouped).toEqual([
        { _id: 'x', total: 4, count: 2, avg: 2, lo: 1, hi: 3, ids: ['a', 'b'], first: 'a' },
        { _id: 'y', total: 2, count: 1, avg: 2, lo: 2, hi: 2, ids: ['c'], first: 'c' },
      ]);
      const tags = await c.aggregate<{ _id: string; n: number }>([
        { $unwind: '$tags' }, { $group: { _id: '$tags', n: { $sum: 1 } } }, { $sort: { _id: 1 } },
      ]);
      expect(tags).toEqual([{ _id: 't1', n: 2 }, { _id: 't2', n: 1 }]);
      const counted = await c.aggregate<{ total: number }>([{ $match: { chatId: 'x' } }, { $count: 'total' }]);
      expect(counted).toEqual([{ total: 2 }]);
      const projected = await c.aggregate([{ $match: { _id: 'a' } }, { $project: { _id: 0, doubled: { $multiply: ['$n', 2] } } }]);
      expect(projected).toEqual([{ doubled: 6 }]);
      const facets = await c.aggregate<{ all: { n: number }[]; x: { n: number }[] }>([
        { $facet: { all: [{ $count: 'n' }], x: [{ $match: { chatId: 'x' } }, { $count: 'n' }] } },
      ]);
      expect(facets).toEqual([{ all: [{ n: 3 }], x: [{ n: 2 }] }]);
    });

    it('lists collections, drops one, and keeps long numeric-looking string ids as strings', async () => {
      const name = uniqueName('c');
      const c = store.collection<Row>(name);
      await c.insertOne({ _id: '12345678901234567890', chatId: '98765432109876543210' });
      expect(await store.listCollections()).toContain(name);
      const got = await c.findOne({ chatId: '98765432109876543210' });
      expect(got?._id).toBe('12345678901234567890');
      await c.drop();
      await c.drop();
      expect(await c.countDocuments()).toBe(0);
      expect(await store.ping()).toBe(true);
    });

    it('answers sorted, limited and ranged queries the same with secondary indexes, as documents change', async () => {
      const c = store.collection<Row & { p: number | null; k: string }>(uniqueName('ix'));
      await c.createIndex({ keys: { p: 1 } });
      await c.createIndex({ keys: { k: 1, n: -1 } });
      const docs = Array.from({ length: 60 }, (_, i) => ({
        _id: `d${String(i).padStart(2, '0')}`, p: i % 3 === 0 ? null : (i * 7) % 20, k: i % 2 ? 'odd' : 'even', n: i % 5,
      }));
      await c.bulkWrite(docs.map((d) => ({ insertOne: { document: d } })));
      const check = async () => {
        const all = await c.find({}, { sort: { _id: 1 } });
        const expectOrder = (rows: typeof all, sort: [keyof (typeof all)[number], 1 | -1][]) => [...rows].sort((a, b) => {
          for (const [f, d] of sort) {
            const x = a[f] as number | string;
            const y = b[f] as number | string;
            if (x !== y) return (x < y ? -1 : 1) * d;
          }
          return 0;
        });
        const waiting = all.filter((d) => d.p !== null);
        expect((await c.find({ p: { $ne: null } }, { sort: { p: 1, _id: 1 }, limit: 7 })).map((d) => d._id))
          .toEqual(expectOrder(waiting, [['p', 1], ['_id', 1]]).slice(0, 7).map((d) => d._id));
        expect((await c.find({ p: { $ne: null } }, { sort: { p: -1, _id: 1 }, limit: 9 })).map((d) => d._id))
          .toEqual(expectOrder(waiting, [['p', -1], ['_id', 1]]).slice(0, 9).map((d) => d._id));
        expect((await c.find({ p: { $gte: 5, $lt: 12 } }, { sort: { p: 1, _id: -1 } })).map((d) => d._id))
          .toEqual(expectOrder(all.filter((d) => d.p !== null && d.p >= 5 && d.p < 12), [['p', 1], ['_id', -1]]).map((d) => d._id));
        expect((await c.find({ k: 'odd' }, { sort: { n: -1, _id: 1 }, limit: 5, skip: 2 })).map((d) => d._id))
          .toEqual(expectOrder(all.filter((d) => d.k === 'odd'), [['n', -1], ['_id', 1]]).slice(2, 7).map((d) => d._id));
        expect(await c.countDocuments({ p: null })).toBe(all.filter((d) => d.p === null).length);
      };
      await check();
      // Moving documents between index positions, and deleting some, keeps every answer right.
      await c.bulkWrite(docs.slice(0, 30).map((d, i) => ({ replaceOne: { filter: { _id: d._id }, replacement: { ...d, p: i % 4 === 0 ? null : 19 - (i % 11), n: 4 - d.n } } })));
      await c.updateOne({ _id: 'd40' }, { $set: { p: null, k: 'odd' } });
      await c.deleteMany({ n: 2 });
      await check();
    });
  });
}
