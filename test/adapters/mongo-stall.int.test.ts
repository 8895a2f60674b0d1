// A Mongo-wire server that stops answering without closing its connections (a hung or paused
// process): a store call fails with StoreUnavailableError within the read bound instead of
// waiting for ever, the log says the server is unreachable and, once it answers again, that it
// is back, and the same store works again without reconnecting by hand.
//
// The write case needs the driver mend of scripts/patch-mongodb.mjs: without it a write that
// filled the socket waits for 'drain' on a socket its own timeout destroyed, for ever.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, describe, expect, it } from 'vitest';
import { MongoStore, timeoutDefaults } from '../../src/adapters/store/mongo-store.js';
import { StoreUnavailableError } from '../../src/adapters/store/store.js';
import { startMongo, type RestartableServer } from '../infra/servers.js';
import { capturedLogger } from '../support/captured-log.js';
import { eventually } from '../support/wait.js';

/**
 * Larger than what the kernel buffers of a loopback connection whose reader has stopped: the
 * sender's buffer grows to tcp_wmem's maximum, the reader's stays at tcp_rmem's default (it grows
 * only as the reader reads). Within a document's 16 MB.
 */
function blobBytes(): number {
  const field = (f: string, i: number): number => { try { return Number(readFileSync(f, 'utf8').trim().split(/\s+/)[i]) || 0; } catch { return 0; } };
  const buffered = field('/proc/sys/net/ipv4/tcp_wmem', 2) + field('/proc/sys/net/ipv4/tcp_rmem', 1);
  expect(buffered, 'socket buffers small enough for one document to fill them').toBeLessThan(14_000_000);
  return Math.max(12_000_000, buffered + 1_000_000);
}

/** `promise`, or a rejection that says it was still waiting after `ms`. */
function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`still waiting after ${ms} ms`)), ms); });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

describe('the timeouts a MONGO_URL does not set', () => {
  it('are bounded by default, and MONGO_URL wins for each it names (any letter case)', () => {
    expect(timeoutDefaults('mongodb://h:1/db')).toEqual({ serverSelectionTimeoutMS: 5_000, connectTimeoutMS: 10_000, socketTimeoutMS: 120_000 });
    expect(timeoutDefaults('mongodb://h:1/db?sockettimeoutms=0&replicaSet=rs')).toEqual({ serverSelectionTimeoutMS: 5_000, connectTimeoutMS: 10_000 });
    expect(timeoutDefaults('mongodb://h:1/?connectTimeoutMS=1&serverSelectionTimeoutMS=2&socketTimeoutMS=3')).toEqual({});
  });
});

describe('the MongoDB driver as installed', () => {
  it('carries the mend for writes on a closing connection (npm ci applies it)', () => {
    const connection = createRequire(import.meta.url).resolve('mongodb/lib/cmap/connection.js');
    expect(readFileSync(connection, 'utf8')).toContain('convops: scripts/patch-mongodb.mjs');
  });
});

describe('a Mongo-wire server that stops answering', () => {
  let server: RestartableServer | undefined;
  let store: MongoStore | undefined;
  afterAll(async () => {
    if (server?.pid) process.kill(server.pid, 'SIGCONT');
    await store?.close();
    await server?.stop();
  });

  it('fails calls within the bound, says so in the log, and serves again once it answers', async () => {
    server = await startMongo(256);
    const { logger, lines } = capturedLogger();
    // Short bounds so the test is quick; the defaults are the same mechanism with larger numbers.
    store = await MongoStore.connect(`${server.url}/?connectTimeoutMS=1500&socketTimeoutMS=2000&serverSelectionTimeoutMS=3000`, 'convops_stall', logger);
    const docs = store.collection<{ _id: string; n: number }>('docs');
    await docs.insertOne({ _id: 'a', n: 1 });

    const pid = server.pid ?? 0;
    process.kill(pid, 'SIGSTOP');
    // First, while the client still takes the server for up, a write larger than the socket
    // buffers, which waits for the server to read. Then a read. Each fails within its bound plus
    // at most one server selection, never the driver's unbounded wait.
    const blobs = store.collection<{ _id: string; text: string }>('blobs');
    await expect(within(10_000, blobs.insertOne({ _id: 'big', text: 'x'.repeat(blobBytes()) }))).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(within(10_000, docs.findOne({ _id: 'a' }))).rejects.toBeInstanceOf(StoreUnavailableError);
    await eventually(() => lines.find((l) => l.msg === 'store server unreachable'), 15_000, 'the unreachable warning');

    process.kill(pid, 'SIGCONT');
    await eventually(async () => (await docs.findOne({ _id: 'a' }).catch(() => null))?.n, 20_000, 'the store to answer again');
    await eventually(() => lines.find((l) => l.msg === 'store server reachable again'), 15_000, 'the reachable-again line');
    // Said once per change, not once per heartbeat.
    expect(lines.filter((l) => l.msg === 'store server reachable again')).toHaveLength(1);
  }, 90_000);
});
