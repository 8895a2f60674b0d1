// On the Mongo-wire test server (mongo-java-server), a conditional write ({_id, _rev}) scans the
// whole collection unless an index names exactly those fields; the store makes that index on
// the first conditional write, again after the collection is dropped, and never changes what
// a conditional write means.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MongoClient } from 'mongodb';
import { MongoStore } from '../../src/adapters/store/mongo-store.js';
import { WriteConflictError, type Doc } from '../../src/adapters/store/store.js';
import { uniqueName } from '../support/wait.js';
import { mongoUrl } from '../support/test-servers.js';

describe('condition indexes on the Mongo-wire test server', () => {
  const dbName = uniqueName('convops_cond');
  let store: MongoStore;
  let client: MongoClient;

  beforeAll(async () => {
    store = await MongoStore.connect(await mongoUrl(), dbName);
    client = new MongoClient(await mongoUrl());
    await client.connect();
  });
  afterAll(async () => {
    await store.close();
    await client.close();
  });

  /** The collection's indexes by their keys. */
  const indexNames = async (collection: string): Promise<string[]> =>
    (await client.db(dbName).collection(collection).listIndexes().toArray()).map((i) => Object.keys(i.key as object).join('+')).sort();

  it('is recognised as a server that plans by exact indexes only', () => {
    expect(store.indexesConditions).toBe(true);
  });

  it('indexes {_id, _rev} at the first conditional write, and again after a drop', async () => {
    const c = store.collection<Doc & { _rev: number; n: number }>('models');
    await c.bulkWrite([{ insertOne: { document: { _id: 'a', _rev: 1, n: 1 } } }, { insertOne: { document: { _id: 'b', _rev: 1, n: 1 } } }]);
    expect(await indexNames('models')).toEqual(['_id']);
    await c.bulkWrite([{ replaceOne: { filter: { _id: 'a', _rev: 1 }, replacement: { _id: 'a', _rev: 2, n: 2 }, requireMatch: true } }]);
    expect(await indexNames('models')).toEqual(['_id', '_id+_rev']);
    // Filters of another shape make no index.
    await c.bulkWrite([{ updateOne: { filter: { _id: 'b', n: { $gte: 0 } }, update: { $inc: { n: 1 } } } }]);
    expect(await indexNames('models')).toEqual(['_id', '_id+_rev']);
    await c.drop();
    await c.bulkWrite([{ insertOne: { document: { _id: 'a', _rev: 1, n: 1 } } }]);
    await c.bulkWrite([{ replaceOne: { filter: { _id: 'a', _rev: 1 }, replacement: { _id: 'a', _rev: 2, n: 2 }, requireMatch: true } }]);
    expect(await indexNames('models')).toEqual(['_id', '_id+_rev']);
  });

  it('still refuses a write whose condition no longer holds, and applies one that holds', async () => {
    const c = store.collection<Doc & { _rev: number; n: number }>('refusals');
    await c.bulkWrite([{ insertOne: { document: { _id: 'a', _rev: 3, n: 1 } } }]);
    await expect(c.bulkWrite([{ replaceOne: { filter: { _id: 'a', _rev: 2 }, replacement: { _id: 'a', _rev: 3, n: 9 }, requireMatch: true } }]))
      .rejects.toBeInstanceOf(WriteConflictError);
    expect((await c.findOne({ _id: 'a' }))?.n).toBe(1);
    await c.bulkWrite([{ replaceOne: { filter: { _id: 'a', _rev: 3 }, replacement: { _id: 'a', _rev: 4, n: 7 }, requireMatch: true } }]);
    expect(await c.findOne({ _id: 'a' })).toEqual({ _id: 'a', _rev: 4, n: 7 });
  });
});
