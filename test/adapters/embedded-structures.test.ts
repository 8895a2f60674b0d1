// The embedded store and log keep msgpack's record structures (documents' key lists) once per
// collection instead of in every value. That is only safe if a value written before still
// reads, and if a process reads values whose structures another process recorded after it
// loaded its own copy: the API process reads what the worker writes, and the reverse.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { open } from 'lmdb';
import { afterAll, describe, expect, it } from 'vitest';
import { EmbeddedLog } from '../../src/adapters/log/embedded-log.js';
import { EmbeddedStore } from '../../src/adapters/store/embedded-store.js';
import type { Doc } from '../../src/adapters/store/store.js';
import { tempDir } from '../support/temp-dirs.js';

/** A document of one of many shapes: more than msgpackr's 32 shared structures. */
function shaped(i: number): Doc & Record<string, unknown> {
  const doc: Doc & Record<string, unknown> = { _id: `d${String(i).padStart(3, '0')}`, n: i };
  doc[`field${i}`] = { nested: i, [`deep${i % 7}`]: [i, { k: `v${i}` }] };
  return doc;
}

const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

describe('embedded msgpack structures', () => {
  it('read values written before the collection kept shared structures', async () => {
    const dir = tempDir('embedded-structures-');
    const path = join(dir, 'store');
    mkdirSync(path, { recursive: true });
    // What earlier versions wrote: the same database name, each value with inline structures.
    const old = open({ path, maxDbs: 256, mapSize: 2 ** 30 });
    const legacy = old.openDB<Doc, string>({ name: 'c:rows', encoding: 'msgpack' });
    const before = Array.from({ length: 40 }, (_, i) => shaped(i));
    await old.transaction(() => {
      for (const d of before) void legacy.put(d._id, d);
    });
    await old.close();

    const store = new EmbeddedStore(dir);
    closers.push(() => store.close());
    const rows = store.collection<Doc>('rows');
    const after = Array.from({ length: 40 }, (_, i) => shaped(i + 40));
    for (const d of after) await rows.insertOne(d);
    expect(await rows.find({}, { sort: { _id: 1 } })).toEqual([...before, ...after]);
  });

  it('are seen by another process that opened the store before they were recorded', async () => {
    const dir = tempDir('embedded-structures-');
    const api = new EmbeddedStore(dir);
    const worker = new EmbeddedStore(dir);
    closers.push(() => api.close(), () => worker.close());
    // Both have read the collection (and so loaded its structures) before any write.
    expect(await api.collection<Doc>('rows').find({})).toEqual([]);
    expect(await worker.collection<Doc>('rows').find({})).toEqual([]);
    const written = Array.from({ length: 80 }, (_, i) => shaped(i));
    for (const d of written.slice(0, 60)) await worker.collection<Doc>('rows').insertOne(d);
    for (const d of written.slice(60)) await api.collection<Doc>('rows').insertOne(d);
    for (const store of [api, worker]) {
      expect(await store.collection<Doc>('rows').find({}, { sort: { _id: 1 } })).toEqual(written);
      expect(await store.collection<Doc>('rows').findOne({ _id: 'd071' })).toEqual(written[71]);
    }
  });

  it('in the log, are seen by a process that consumes what another appended', async () => {
    const dir = tempDir('embedded-structures-');
    const appender = new EmbeddedLog(dir);
    const reader = new EmbeddedLog(dir);
    closers.push(() => appender.close(), () => reader.close());
    await appender.createTopics([{ name: 't', partitions: 1 }]);
    const values = Array.from({ length: 50 }, (_, i) => JSON.stringify(shaped(i)));
    const seen: { value: string; header: string | undefined }[] = [];
    const done = new Promise<void>((resolve, reject) => {
      reader.consume({
        groupId: 'g',
        topics: ['t'],
        onBatch: async (batch) => {
          for (const r of batch.records) seen.push({ value: r.value.toString('utf8'), header: r.headers[`h${r.offset}`] });
          if (seen.length >= values.length) resolve();
        },
        onError: reject,
      }).catch(reject);
    });
    for (let i = 0; i < values.length; i++) {
      // Headers of many shapes, so the records' structures grow while the reader runs.
      await appender.append('t', [{ key: `k${i}`, value: values[i] as string, headers: { [`h${i}`]: String(i) } }]);
    }
    await done;
    expect(seen).toEqual(values.map((value, i) => ({ value, header: String(i) })));
  });
});
