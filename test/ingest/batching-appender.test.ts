// Group commit in the webhook route's appender, on the real embedded log: records that arrive
// within the linger share one log write (one disk flush), each caller still hears its own
// record's place, and without a linger the first record of a quiet moment is written at once.
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { AppendRecord, AppendResult } from '../../src/adapters/log/log.js';
import { EmbeddedLog } from '../../src/adapters/log/embedded-log.js';
import { BatchingAppender } from '../../src/ingest/batching-appender.js';
import { tempDir } from '../support/temp-dirs.js';

const dirs: string[] = [];
const logs: EmbeddedLog[] = [];
afterAll(async () => {
  for (const log of logs) await log.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A real embedded log whose appends are counted (each is one write and one flush). */
async function countedLog(): Promise<{ log: EmbeddedLog; writes: number[] }> {
  const dir = tempDir('batching-appender-');
  dirs.push(dir);
  const log = new EmbeddedLog(dir);
  logs.push(log);
  await log.createTopics([{ name: 'inbound', partitions: 1 }]);
  const writes: number[] = [];
  const append = log.append.bind(log);
  log.append = (topic: string, records: readonly AppendRecord[]): Promise<AppendResult[]> => {
    writes.push(records.length);
    return append(topic, records);
  };
  return { log, writes };
}

const record = (n: number): AppendRecord => ({ key: 'chat', value: Buffer.from(`r${n}`) });
const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('BatchingAppender', () => {
  it('with a linger, records arriving within it share one write, and each learns its own offset', async () => {
    const { log, writes } = await countedLog();
    const appender = new BatchingAppender(log, 'inbound', { lingerMs: 200 });
    const results: Promise<AppendResult>[] = [];
    for (let i = 0; i < 5; i++) {
      results.push(appender.append(record(i)));
      // Turns of the event loop between arrivals, as separate requests have.
      await new Promise((r) => setImmediate(r));
    }
    expect((await Promise.all(results)).map((r) => r.offset)).toEqual([0, 1, 2, 3, 4]);
    expect(writes).toEqual([5]);
  });

  it('a record whose deadline passes during the linger is refused and never written', async () => {
    const { log, writes } = await countedLog();
    const appender = new BatchingAppender(log, 'inbound', { lingerMs: 50, timeoutMs: 10 });
    await expect(appender.append(record(0))).rejects.toThrow(/did not take the record within 10 ms/);
    await pause(80);
    expect(writes).toEqual([]);
    // The log takes later records as before.
    const fast = new BatchingAppender(log, 'inbound', { lingerMs: 1 });
    expect((await fast.append(record(1))).offset).toBe(0);
  });

  it('without one, the first record of a quiet moment is written alone, at once', async () => {
    const { log, writes } = await countedLog();
    const appender = new BatchingAppender(log, 'inbound', { lingerMs: 0 });
    const results: Promise<AppendResult>[] = [];
    for (let i = 0; i < 5; i++) {
      results.push(appender.append(record(i)));
      await pause(2);
    }
    await Promise.all(results);
    expect(writes[0]).toBe(1);
    expect(writes.reduce((a, b) => a + b, 0)).toBe(5);
  });
});
