// Each topic of the embedded log has its own LMDB environment. An LMDB write transaction holds
// its environment's lock until the writing process's event loop has run its callback, so with
// one environment a busy worker appending events held up every webhook the API appended. A folder
// written by a build before 0.1.0, with every topic in the one environment, is refused.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { open } from 'lmdb';
import { afterAll, describe, expect, it } from 'vitest';
import { EmbeddedLog } from '../../src/adapters/log/embedded-log.js';
import { StoredFormatError } from '../../src/support/stored-format.js';
import { tempDir } from '../support/temp-dirs.js';

const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

const logModule = join(import.meta.dirname, '../../src/adapters/log/embedded-log.ts');

/** A process that starts an append to `topic` and then keeps its event loop busy for `ms`. */
function busyAppender(dir: string, topic: string, ms: number, marker: string): Promise<{ exited: Promise<number | null> }> {
  const script = `
    import { writeFileSync } from 'node:fs';
    import { EmbeddedLog } from ${JSON.stringify(logModule)};
    const log = new EmbeddedLog(${JSON.stringify(dir)});
    void log.append(${JSON.stringify(topic)}, [{ key: 'k', value: 'held' }]);
    // Once the append has reached LMDB, lmdb-js starts its write thread from an immediate; this
    // one runs right after it, so the thread takes the lock and waits for this busy thread.
    for (let i = 0; i < 5; i++) await null;
    setImmediate(async () => {
      console.log('holding');
      const end = Date.now() + ${ms};
      while (Date.now() < end);
      writeFileSync(${JSON.stringify(marker)}, 'done');
      await log.close();
    });
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => { if (d.toString().includes('holding')) resolve({ exited }); });
    child.on('error', reject);
    void exited.then((code) => reject(new Error(`the busy appender exited (${code}) before holding`)));
  });
}

describe('embedded log topics', () => {
  it('take appends while another process holds a different topic mid-transaction', async () => {
    const dir = tempDir('embedded-log-topics-');
    const log = new EmbeddedLog(dir);
    closers.push(() => log.close());
    await log.createTopics([{ name: 'cv.inbound', partitions: 2 }, { name: 'cv.session-events', partitions: 2 }]);
    const marker = join(dir, 'busy-done');
    const { exited } = await busyAppender(dir, 'cv.session-events', 3_000, marker);
    // Give its write thread the moment it needs to start the transaction.
    await new Promise((r) => setTimeout(r, 200));
    const [result] = await log.append('cv.inbound', [{ key: 'chat-1', value: 'webhook' }]);
    // Taken before the other process let go of its transaction, not after.
    expect(existsSync(marker)).toBe(false);
    expect(result?.offset).toBe(0);
    expect(await exited).toBe(0);
    const ends = await log.endOffsets('cv.session-events');
    expect(Object.values(ends).reduce((a, b) => a + b, 0)).toBe(1);
  }, 20_000);

  it('refuse a folder written before topics had their own, saying what to do, and change nothing in it', async () => {
    const dir = tempDir('embedded-log-topics-');
    const path = join(dir, 'log');
    mkdirSync(path, { recursive: true });
    // What builds before 0.1.0 wrote: topics, records and heads all in log/.
    const written = open({ path, maxDbs: 8, mapSize: 2 ** 30 });
    const topics = written.openDB<number, string>({ name: 'topics', encoding: 'msgpack' });
    await written.transaction(() => {
      void topics.put('t', 1);
      const records = written.openDB<unknown, [string, number, number]>({ name: 'records', encoding: 'msgpack' });
      for (let i = 0; i < 3; i++) void records.put(['t', 0, i], { k: `k${i}`, v: Buffer.from(`old${i}`), h: {}, t: 1000 + i });
      void written.openDB<number, [string, number]>({ name: 'heads', encoding: 'msgpack' }).put(['t', 0], 3);
    });
    await written.close();

    for (let i = 0; i < 2; i++) {
      let refused: unknown = null;
      try {
        const log = new EmbeddedLog(dir);
        closers.push(() => log.close());
      } catch (err) {
        refused = err;
      }
      expect(refused).toBeInstanceOf(StoredFormatError);
      expect((refused as Error).message).toBe(`the embedded log in ${path} was written by a build of convops before 0.1.0: it keeps its records in ${path} itself. `
        + `This version reads only the layout with each topic in its own folder under ${join(path, 'topics')}, and does not move records from the older one. Nothing was changed. `
        + 'Start with an empty DATA_DIR (move this one aside).');
    }
    expect(existsSync(join(dir, 'log', 'topics'))).toBe(false);
    const old = open({ path, maxDbs: 8, mapSize: 2 ** 30 });
    const records = old.openDB<{ v: Buffer }, [string, number, number]>({ name: 'records', encoding: 'msgpack' });
    expect([...records.getRange({})].map((e) => Buffer.from(e.value.v).toString('utf8'))).toEqual(['old0', 'old1', 'old2']);
    expect(old.openDB<number, [string, number]>({ name: 'heads', encoding: 'msgpack' }).get(['t', 0])).toBe(3);
    await old.close();
  });
});
