// The Mongo-wire test server (mongo-java-server) on its own, with the write shapes the pipeline
// uses, so the reader of a Kafka + Mongo-wire figure can tell the server's share from ours.
// Per shape: bulk writes of --ops operations against a collection of --docs documents, as the
// projector and processor send them, timed from the driver. The conditional shape
// ({_id, _rev}) is measured with and without the unique {_id, _rev} index: mongo-java-server
// plans a query by an index only when the query names exactly that index's fields, so without
// it each conditional write scans the whole collection.
//   node --import tsx bench/mongo-bare.ts [--docs 20000] [--ops 500] [--rounds 20]
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { cpus, totalmem } from 'node:os';
import { MongoClient, type AnyBulkWriteOperation, type UpdateFilter } from 'mongodb';
import { startMongo } from '../test/infra/servers.js';

export interface BareOptions {
  readonly docs: number;
  readonly ops: number;
  readonly rounds: number;
}

interface Document { _id: string; [field: string]: unknown }
const doc = (i: number, rev: number): Document => ({ _id: `doc-${i}`, _rev: rev, w: { [`p${i % 12}`]: { o: rev } }, accountId: `acct_${i % 3}`, chatKey: `acct_${i % 3}:${i}`, sentAt: 1_780_000_000_000 + i, text: 'hello there, how are you today', priceCents: i % 7 === 0 ? 500 : 0, sender: i % 2 ? 'fan' : 'human' });

/** Prints one line per write shape, each prefixed with `label`, against the server at `url` (a database of its own, dropped after). */
export async function bareBulkWrites(url: string, label: string, { docs: DOCS, ops: OPS, rounds: ROUNDS }: BareOptions): Promise<void> {
  const client = new MongoClient(url, { directConnection: true });
  await client.connect();
  const db = client.db(`bare${Date.now()}`);
  try {
    const shapes: { name: string; index: boolean; op: (i: number, rev: number) => AnyBulkWriteOperation<Document> }[] = [
      { name: 'replaceOne {_id}', index: false, op: (i, rev) => ({ replaceOne: { filter: { _id: `doc-${i}` }, replacement: doc(i, rev + 1) } }) },
      { name: 'replaceOne {_id, _rev}, no {_id,_rev} index', index: false, op: (i, rev) => ({ replaceOne: { filter: { _id: `doc-${i}`, _rev: rev }, replacement: doc(i, rev + 1) } }) },
      { name: 'replaceOne {_id, _rev}, unique {_id,_rev} index', index: true, op: (i, rev) => ({ replaceOne: { filter: { _id: `doc-${i}`, _rev: rev }, replacement: doc(i, rev + 1) } }) },
      // Report buckets' shape: $inc guarded by the partition's watermark, which no index can
      // serve here (its fields vary with the partition), so the server scans the collection.
      {
        name: 'updateOne {_id, w.pN.o}, $inc (report buckets)', index: false,
        op: (i, rev) => ({ updateOne: { filter: { _id: `doc-${i}`, [`w.p${i % 12}.o`]: rev }, update: { $inc: { n: 1, [`w.p${i % 12}.o`]: 1 } } as unknown as UpdateFilter<Document> } }),
      },
    ];
    const c0 = db.collection<Document>('insert_only');
    const t0 = performance.now();
    for (let start = 0; start < DOCS; start += OPS) {
      await c0.bulkWrite(Array.from({ length: Math.min(OPS, DOCS - start) }, (_, k) => ({ insertOne: { document: doc(start + k, 1) } })), { ordered: true });
    }
    const insertMs = performance.now() - t0;
    console.log(`${label}insertOne into an empty collection up to ${DOCS}: ${Math.round(DOCS / (insertMs / 1000))} ops/s`);
    for (const [n, shape] of shapes.entries()) {
      const c = db.collection<Document>(`shape_${n}`);
      if (shape.index) await c.createIndex({ _id: 1, _rev: 1 }, { unique: true });
      for (let start = 0; start < DOCS; start += 5000) {
        await c.insertMany(Array.from({ length: Math.min(5000, DOCS - start) }, (_, k) => doc(start + k, 1)), { ordered: false });
      }
      const revs = new Map<number, number>();
      const lat: number[] = [];
      const started = performance.now();
      for (let r = 0; r < ROUNDS; r++) {
        // Spread over the collection, as chats are: every op a different document.
        const ops = Array.from({ length: OPS }, (_, k) => {
          const i = (r * OPS + k * 37) % DOCS;
          const rev = revs.get(i) ?? 1;
          revs.set(i, rev + 1);
          return shape.op(i, rev);
        });
        const t = performance.now();
        const res = await c.bulkWrite(ops, { ordered: true });
        lat.push(performance.now() - t);
        if (res.matchedCount !== OPS) throw new Error(`${shape.name}: ${res.matchedCount} of ${OPS} matched`);
      }
      const total = performance.now() - started;
      lat.sort((a, b) => a - b);
      console.log(`${label}${shape.name.padEnd(48)} ${String(Math.round((ROUNDS * OPS) / (total / 1000))).padStart(7)} ops/s; one bulk write of ${OPS}: p50 ${lat[Math.floor(lat.length / 2)]?.toFixed(1)} ms, max ${lat[lat.length - 1]?.toFixed(1)} ms`);
    }
  } finally {
    await db.dropDatabase().catch(() => undefined);
    await client.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values: args } = parseArgs({ options: { docs: { type: 'string', default: '20000' }, ops: { type: 'string', default: '500' }, rounds: { type: 'string', default: '20' }, url: { type: 'string' } } });
  const options = { docs: Number(args.docs), ops: Number(args.ops), rounds: Number(args.rounds) };
  const server = args.url ? null : await startMongo();
  console.log(`mongo bare bulk writes: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}; ${options.docs} documents, ${options.rounds} bulk writes of ${options.ops} operations per shape`);
  try {
    await bareBulkWrites(args.url ?? server?.url ?? '', '', options);
  } finally {
    await server?.stop();
  }
}
