// The embedded store's writes are all-or-nothing down to what the store contract cannot see
// (index entries, msgpack's shared record structures, database handles), and its collection
// and index lists survive writers that race: other stores on the same folder, other processes.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EmbeddedStore } from '../../src/adapters/store/embedded-store.js';
import { DuplicateKeyError, WriteConflictError, type Doc } from '../../src/adapters/store/store.js';
import { tempDir } from '../support/temp-dirs.js';

const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

const folder = () => tempDir('embedded-txn-');

function openStore(dir: string): EmbeddedStore {
  const store = new EmbeddedStore(dir);
  closers.push(() => store.close());
  return store;
}

/** Every index entry of a collection, per index, as stored. */
function indexEntries(store: EmbeddedStore, collection: string): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const spec of store.indexes(collection)) out[Object.keys(spec.keys).join(',')] = Array.from(store.indexDb(collection, spec).getKeys());
  return out;
}

interface Row extends Doc {
  k?: string;
  n?: number;
  _rev?: number;
}

describe('embedded store transactions', () => {
  it('a failed bulkWriteMany leaves every index entry as it was', async () => {
    const store = openStore(folder());
    const rows = store.collection<Row>('rows');
    await rows.createIndex({ keys: { k: 1 } });
    await rows.createIndex({ keys: { n: 1, k: 1 } });
    await rows.bulkWrite([{ insertOne: { document: { _id: 'a', k: 'x', n: 1 } } }, { insertOne: { document: { _id: 'b', k: 'y', n: 2 } } }]);
    await store.collection<Row>('states').insertOne({ _id: 's', _rev: 2 });
    const before = indexEntries(store, 'rows');
    expect(before.k).toHaveLength(2);
    await expect(store.bulkWriteMany([
      { collection: 'rows', ops: [
        { updateOne: { filter: { _id: 'a' }, update: { $set: { k: 'moved', n: 5 } } } },
        { deleteOne: { filter: { _id: 'b' } } },
        { insertOne: { document: { _id: 'c', k: 'z', n: 3 } } },
      ] },
      { collection: 'states', ops: [{ replaceOne: { filter: { _id: 's', _rev: 1 }, replacement: { _id: 's', _rev: 2 }, requireMatch: true } }] },
    ])).rejects.toBeInstanceOf(WriteConflictError);
    expect(indexEntries(store, 'rows')).toEqual(before);
    expect(await rows.countDocuments()).toBe(2);
  });

  it('a key LMDB refuses, mid-write, takes the writes before it back too', async () => {
    const store = openStore(folder());
    const rows = store.collection<Row>('rows');
    await expect(rows.bulkWrite([
      { insertOne: { document: { _id: 'fine', n: 1 } } },
      { insertOne: { document: { _id: 'x'.repeat(3_000), n: 2 } } },
    ])).rejects.toThrow(/key size/i);
    expect(await rows.countDocuments()).toBe(0);
  });

  it('record structures a failed write introduced are not used by later writes (read back right, here and after a restart)', async () => {
    const dir = folder();
    const store = new EmbeddedStore(dir);
    const rows = store.collection<Doc>('rows');
    await rows.insertOne({ _id: 'first', alpha: 1, beta: 2 });
    // New shapes, saved as shared structures inside the write that then fails.
    await expect(rows.bulkWrite([
      { insertOne: { document: { _id: 'gone', gamma: 1, delta: 2 } } },
      { insertOne: { document: { _id: 'first', alpha: 3 } } },
    ])).rejects.toBeInstanceOf(DuplicateKeyError);
    // Writes after it: that shape again, and another new one.
    await rows.insertOne({ _id: 'same-shape', gamma: 3, delta: 4 });
    await store.bulkWriteMany([{ collection: 'rows', ops: [{ insertOne: { document: { _id: 'other-shape', epsilon: 5, zeta: 6 } } }] }]);
    const expected = [
      { _id: 'first', alpha: 1, beta: 2 },
      { _id: 'other-shape', epsilon: 5, zeta: 6 },
      { _id: 'same-shape', gamma: 3, delta: 4 },
    ];
    expect(await rows.find({}, { sort: { _id: 1 } })).toEqual(expected);
    await store.close();
    const reopened = openStore(dir);
    expect(await reopened.collection<Doc>('rows').find({}, { sort: { _id: 1 } })).toEqual(expected);
  });

  it('an index first opened inside a write that fails is opened again for the next one', async () => {
    const dir = folder();
    const first = new EmbeddedStore(dir);
    await first.collection<Row>('rows').createIndex({ keys: { k: 1 } });
    await first.collection<Row>('rows').insertOne({ _id: 'a', k: 'x' });
    await first.close();
    // A fresh store has no index handle yet: the failing write opens it.
    const store = openStore(dir);
    const rows = store.collection<Row>('rows');
    await expect(rows.bulkWrite([
      { updateOne: { filter: { _id: 'a' }, update: { $set: { k: 'y' } } } },
      { insertOne: { document: { _id: 'a', k: 'z' } } },
    ])).rejects.toBeInstanceOf(DuplicateKeyError);
    await rows.insertOne({ _id: 'b', k: 'x' });
    expect((await rows.find({ k: 'x' }, { sort: { _id: 1 } })).map((d) => d._id)).toEqual(['a', 'b']);
    expect(indexEntries(store, 'rows').k).toHaveLength(2);
  });

  it('other writes batched with a failing one still land', async () => {
    const store = openStore(folder());
    const rows = store.collection<Row>('rows');
    await rows.insertOne({ _id: 'taken' });
    const results = await Promise.allSettled([
      rows.insertOne({ _id: 'before' }),
      rows.bulkWrite([{ insertOne: { document: { _id: 'failed' } } }, { insertOne: { document: { _id: 'taken' } } }]),
      rows.insertOne({ _id: 'after' }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((await rows.find({}, { sort: { _id: 1 } })).map((d) => d._id)).toEqual(['after', 'before', 'taken']);
  });
});

describe('embedded store writes that take turns (turnEveryMs)', () => {
  const many = (n: number, from = 0) => Array.from({ length: n }, (_, i) => ({ insertOne: { document: { _id: `r${String(from + i).padStart(6, '0')}`, k: `k${i % 7}`, n: i } } }));

  it('a long write lets the event loop turn between its operations, and lands whole', async () => {
    const store = openStore(folder());
    const rows = store.collection<Row>('rows');
    await rows.createIndex({ keys: { k: 1 } });
    // A chain of immediates counts turns; a document's field read as it is written notes the
    // count, first and last operation: in one piece both see the same turn.
    let turns = 0;
    let ticking = true;
    const tick = (): void => { turns++; if (ticking) setImmediate(tick); };
    setImmediate(tick);
    const seen: number[] = [];
    const noting = (id: string): Row => Object.defineProperty({ _id: id } as Row, 'k', { enumerable: true, get: () => { seen.push(turns); return 'noted'; } });
    try {
      await store.bulkWriteMany([{ collection: 'rows', ops: [{ insertOne: { document: noting('a-first') } }, ...many(30_000), { insertOne: { document: noting('z-last') } }] }], { turnEveryMs: 2 });
    } finally {
      ticking = false;
    }
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen.at(-1)).toBeGreaterThan(seen[0] as number);
    expect(await rows.countDocuments()).toBe(30_002);
    expect(indexEntries(store, 'rows').k).toHaveLength(30_002);
  });

  it('an operation that fails after turns were taken leaves nothing written, and later writes work', async () => {
    const store = openStore(folder());
    const rows = store.collection<Row>('rows');
    await rows.createIndex({ keys: { k: 1 } });
    await rows.insertOne({ _id: 'taken', k: 'k0' });
    const before = indexEntries(store, 'rows');
    await expect(store.bulkWriteMany([
      { collection: 'rows', ops: many(20_000) },
      { collection: 'rows', ops: [{ insertOne: { document: { _id: 'taken' } } }] },
    ], { turnEveryMs: 1 })).rejects.toBeInstanceOf(DuplicateKeyError);
    expect(await rows.countDocuments()).toBe(1);
    expect(indexEntries(store, 'rows')).toEqual(before);
    await store.bulkWriteMany([{ collection: 'rows', ops: many(100, 50_000) }], { turnEveryMs: 1 });
    expect(await rows.countDocuments()).toBe(101);
  });

  it('writes queued while it takes turns land after it, in order, none lost', async () => {
    const store = openStore(folder());
    const rows = store.collection<Row>('rows');
    await rows.insertOne({ _id: 'c', n: 0 });
    const long = store.bulkWriteMany([{ collection: 'rows', ops: [...many(20_000), { updateOne: { filter: { _id: 'c' }, update: { $set: { n: 1 } } } }] }], { turnEveryMs: 1 });
    // Queued from within the long write's turns: each must see it applied before itself.
    await new Promise<void>((resolve) => setImmediate(resolve));
    const after = rows.updateOne({ _id: 'c' }, { $inc: { n: 10 } });
    await Promise.all([long, after]);
    expect((await rows.findOne({ _id: 'c' }))?.n).toBe(11);
    expect(await rows.countDocuments()).toBe(20_001);
  });
});

describe('embedded store index lists', () => {
  const indexFields = (store: EmbeddedStore, collection: string) => store.indexes(collection).map((s) => Object.keys(s.keys).join(',')).sort();

  it('two stores on one folder registering different indexes of one collection at once keep both', async () => {
    const dir = folder();
    const a = openStore(dir);
    const b = openStore(dir);
    const lister = openStore(dir);
    const names = Array.from({ length: 40 }, (_, i) => `c${i}`);
    await Promise.all(names.flatMap((name) => [
      a.collection<Row>(name).createIndex({ keys: { k: 1 } }),
      b.collection<Row>(name).createIndex({ keys: { n: 1 } }),
      // A store that only lists the collection must not write an empty list over the others'.
      lister.collection<Row>(name).countDocuments(),
    ]));
    const check = openStore(dir);
    for (const name of names) expect(indexFields(check, name), name).toEqual(['k', 'n']);
  });

  it('two processes registering different indexes of the same collections keep both, with their entries', async () => {
    const dir = folder();
    const seed = new EmbeddedStore(dir);
    const names = Array.from({ length: 30 }, (_, i) => `c${i}`);
    for (const name of names) await seed.collection<Row>(name).insertOne({ _id: 'd', k: 'x', n: 1 });
    await seed.close();
    const storeModule = join(import.meta.dirname, '../../src/adapters/store/embedded-store.ts');
    // Each process opens the store, says so, and on the word lists every collection and records
    // its index in it, all at once: both write the same lists at the same moment.
    const start = (field: string) => {
      const script = `
        import { EmbeddedStore } from ${JSON.stringify(storeModule)};
        const store = new EmbeddedStore(${JSON.stringify(dir)});
        const names = ${JSON.stringify(names)};
        console.log('ready');
        await new Promise((resolve) => process.stdin.once('data', resolve));
        process.stdin.destroy();
        await Promise.all(names.map((name) => store.collection(name).createIndex({ keys: { ${field}: 1 } })));
        await store.close();
      `;
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
      const exited = new Promise<void>((resolve, reject) => {
        child.on('error', reject);
        child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the ${field} process exited with ${code}`))));
      });
      const ready = new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => { if (d.toString().includes('ready')) resolve(); });
        exited.then(() => reject(new Error(`the ${field} process ended before it was ready`)), reject);
      });
      return { child, ready, exited };
    };
    const both = [start('k'), start('n')];
    await Promise.all(both.map((p) => p.ready));
    for (const p of both) p.child.stdin.write('go\n');
    await Promise.all(both.map((p) => p.exited));
    const check = openStore(dir);
    for (const name of names) {
      expect(indexFields(check, name), name).toEqual(['k', 'n']);
      expect(await check.collection<Row>(name).find({ k: 'x', n: 1 })).toEqual([{ _id: 'd', k: 'x', n: 1 }]);
      expect(Object.values(indexEntries(check, name)).map((keys) => keys.length)).toEqual([1, 1]);
    }
  });
});
