// Several embedded stores open on one folder in one process (deployments sharing a DATA_DIR, a
// test's checking store) must not hang. lmdb-js opened the path once per store: one LMDB
// environment, so one writer lock, but a write thread per store, each unaware of the others.
// One store's write thread took the lock and waited for the main thread to run its transaction
// callback, while the main thread, opening a collection or registering one in another store,
// waited for the lock in a synchronous write transaction: neither moved again (seen in
// topology/shared-store, the main thread in mdb_txn_begin from EmbeddedStore.register).
//
// A hang there stops the event loop, vitest's timers with it, so each scenario runs in a child
// process that is killed when it takes too long.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { result, scenario } from '../support/hang-scenario.js';
import { tempDir } from '../support/temp-dirs.js';

const storeModule = join(import.meta.dirname, '../../src/adapters/store/embedded-store.ts');
const folder = () => tempDir('embedded-deadlock-');

/** `EmbeddedStore`, a fresh `dir` in scope of every scenario. */
const prelude = (): string => `
    import { EmbeddedStore } from ${JSON.stringify(storeModule)};
    const dir = ${JSON.stringify(folder())};
`;

describe('embedded stores sharing a folder in one process', () => {
  it('open and register collections in one while another has writes under way, without hanging', async () => {
    // Without the fix this hangs in the first round: the writes' transaction is queued, lmdb-js
    // starts its write thread from an immediate, and the new collection is opened right after.
    const o = await scenario(prelude(), `
      const a = new EmbeddedStore(dir);
      const b = new EmbeddedStore(dir);
      const c = new EmbeddedStore(dir);
      const rows = a.collection('rows');
      const more = c.collection('more');
      await rows.insertOne({ _id: 'seed', n: 0 });
      const ROUNDS = 24;
      for (let round = 0; round < ROUNDS; round++) {
        const writes = [
          rows.insertOne({ _id: 'r' + round, n: round }),
          rows.updateOne({ _id: 'seed' }, { $inc: { n: 1 } }),
          more.bulkWrite([{ insertOne: { document: { _id: 'm' + round } } }]),
        ];
        // From no wait at all to a few turns of the loop: the write thread is starting, holds
        // the lock waiting for its callbacks, or has committed.
        for (let i = 0; i < round % 4; i++) await new Promise((resolve) => setImmediate(resolve));
        if (round % 2 === 1) {
          // Busy for a moment: the write thread takes the lock and waits for this thread.
          const until = Date.now() + 5;
          while (Date.now() < until);
        }
        const fresh = b.collection('fresh' + round);
        writes.push(fresh.createIndex({ keys: { k: 1 } }), fresh.insertOne({ _id: 'f', k: 'x' }));
        await Promise.all(writes);
      }
      const listed = await b.listCollections();
      const seed = await b.collection('rows').findOne({ _id: 'seed' });
      const rowCount = await c.collection('rows').countDocuments();
      const moreCount = await a.collection('more').countDocuments();
      const found = await a.collection('fresh' + (ROUNDS - 1)).find({ k: 'x' });
      await Promise.all([a.close(), b.close(), c.close()]);
      // Closed and opened again: what was written is there.
      const again = new EmbeddedStore(dir);
      const freshAfter = (await again.listCollections()).filter((n) => n.startsWith('fresh')).length;
      await again.close();
      console.log(JSON.stringify({ fresh: listed.filter((n) => n.startsWith('fresh')).length, seed: seed.n, rowCount, moreCount, found: found.length, freshAfter }));
    `, 45_000);
    expect(result(o)).toEqual({ fresh: 24, seed: 24, rowCount: 25, moreCount: 24, found: 1, freshAfter: 24 });
  }, 90_000);

  it('a write started during another that takes turns, from the same store or another, lands after it even when it fails', async () => {
    // lmdb-js keeps a write that takes turns (turnEveryMs) open across them and runs a write
    // started meanwhile inside it: an abort of the long one took the other with it, whose
    // promise had resolved.
    const o = await scenario(prelude(), `
      const a = new EmbeddedStore(dir);
      const b = new EmbeddedStore(dir);
      const rowsA = a.collection('rows');
      const rowsB = b.collection('rows');
      await rowsA.insertOne({ _id: 'c', n: 0 });
      let started = false;
      const first = Object.defineProperty({ _id: 'a-first' }, 'k', { enumerable: true, get: () => { started = true; return 'x'; } });
      const many = Array.from({ length: 10000 }, (_, i) => ({ insertOne: { document: { _id: 'r' + i, k: 'k' + (i % 7) } } }));
      // Fails at its end, after many turns: a duplicate _id.
      const long = a.bulkWriteMany([{ collection: 'rows', ops: [{ insertOne: { document: first } }, ...many, { insertOne: { document: { _id: 'c' } } }] }], { turnEveryMs: 1 });
      const others = [];
      await new Promise((resolve) => {
        const poll = () => {
          if (!started) return void setImmediate(poll);
          // In one of its turns: the long write has begun and has not ended.
          others.push(rowsA.updateOne({ _id: 'c' }, { $inc: { n: 1 } }), rowsB.updateOne({ _id: 'c' }, { $inc: { n: 10 } }));
          resolve();
        };
        setImmediate(poll);
      });
      const failed = await long.then(() => false, (e) => e.name);
      await Promise.all(others);
      const c = await rowsA.findOne({ _id: 'c' });
      const count = await rowsB.countDocuments();
      await Promise.all([a.close(), b.close()]);
      console.log(JSON.stringify({ failed, n: c.n, count }));
    `, 45_000);
    expect(result(o)).toEqual({ failed: 'DuplicateKeyError', n: 11, count: 1 });
  }, 90_000);
});
