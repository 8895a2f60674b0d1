// The embedded log's round linger (ROUND_LINGER_MS): a consumer whose rounds follow one another
// because records keep arriving waits before a small round's successor, so what arrives meanwhile
// shares one round; a consumer that had to wait for records runs its round at once.
import { afterEach, describe, expect, it } from 'vitest';
import { EmbeddedLog } from '../../src/adapters/log/embedded-log.js';
import type { Consumer, RecordBatch } from '../../src/adapters/log/log.js';
import { tempDir } from '../support/temp-dirs.js';

const TOPIC = 'linger';
const open: { log: EmbeddedLog; consumer?: Consumer }[] = [];
afterEach(async () => {
  for (const o of open.splice(0)) {
    await o.consumer?.stop();
    await o.log.close();
  }
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A log with one single-partition topic and a consumer that records each round's values (and when it ran). */
async function consuming(roundLingerMs: number, onRound: (values: string[]) => Promise<void> = async () => undefined, maxRecordsPerPartition?: number) {
  const log = new EmbeddedLog(tempDir('convops-linger-'), { roundLingerMs });
  const entry: { log: EmbeddedLog; consumer?: Consumer } = { log };
  open.push(entry);
  await log.createTopics([{ name: TOPIC, partitions: 1 }]);
  const rounds: { values: string[]; at: number }[] = [];
  entry.consumer = await log.consumeRounds({
    groupId: 'g', topics: [TOPIC], fromBeginning: true, ...(maxRecordsPerPartition ? { maxRecordsPerPartition } : {}),
    onRound: async (batches: readonly RecordBatch[]) => {
      const values = batches.flatMap((b) => b.records.map((r) => r.value.toString()));
      rounds.push({ values, at: Date.now() });
      await onRound(values);
    },
  });
  const append = (...values: string[]) => log.append(TOPIC, values.map((value) => ({ key: 'k', value })));
  return { rounds, append, consumer: entry.consumer };
}

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await sleep(5);
  }
}

describe('round linger on the embedded log', () => {
  /**
   * Round 1 ([A]) leaves B behind it, so round 2 follows at once; round 2 ([B]) is followed by
   * C and D, 100 and 600 ms later (far enough apart for a loaded machine's timers, and both well
   * inside the 1.5 s linger). The rounds' values.
   */
  async function burst(roundLingerMs: number): Promise<string[][]> {
    const sender: { append?: (...v: string[]) => Promise<unknown> } = {};
    const c = await consuming(roundLingerMs, async (values) => {
      if (values.includes('A')) await sender.append?.('B');
      if (values.includes('B')) {
        setTimeout(() => void sender.append?.('C'), 100);
        setTimeout(() => void sender.append?.('D'), 600);
      }
    });
    sender.append = c.append;
    await c.append('A');
    await until(() => c.rounds.flatMap((r) => r.values).includes('D'));
    return c.rounds.map((r) => r.values);
  }

  it('a small round that followed another waits, so records arriving meanwhile share the next round', async () => {
    expect(await burst(1_500)).toEqual([['A'], ['B'], ['C', 'D']]);
  });

  it('without a linger, each of those records has a round of its own', async () => {
    expect(await burst(0)).toEqual([['A'], ['B'], ['C'], ['D']]);
  });

  const many = (n: number, tag: string): string[] => Array.from({ length: n }, (_, i) => `${tag}${i}`);

  it('a round of 200 records or more is not followed by a linger: a backlog runs at full speed', async () => {
    const sender: { append?: (...v: string[]) => Promise<unknown> } = {};
    let appendedZ = 0;
    const c = await consuming(5_000, async (values) => {
      // Round 1 leaves 250 records; round 2 takes them all (back to back) and leaves Z.
      if (values.includes('A')) await sender.append?.(...many(250, 'r'));
      if (values.includes('r0')) {
        await sender.append?.('Z');
        appendedZ = Date.now();
      }
    });
    sender.append = c.append;
    await c.append('A');
    await until(() => c.rounds.some((r) => r.values.includes('Z')), 4_000);
    expect(c.rounds.map((r) => r.values.length)).toEqual([1, 250, 1]);
    expect((c.rounds[2]?.at ?? Infinity) - appendedZ).toBeLessThan(2_500);
  });

  it('nor is a round whose read of a partition came back full (a small per-partition cap behind a backlog)', async () => {
    const sender: { append?: (...v: string[]) => Promise<unknown> } = {};
    const c = await consuming(5_000, async (values) => {
      if (values.includes('A')) await sender.append?.(...many(50, 'r'));
    }, 10);
    sender.append = c.append;
    await c.append('A');
    // Six rounds (A, then five of ten) with no 5 s linger between them.
    await until(() => c.rounds.flatMap((r) => r.values).includes('r49'), 4_000);
    expect(c.rounds.map((r) => r.values.length)).toEqual([1, 10, 10, 10, 10, 10]);
  });

  it('stopping a lingering consumer does not wait for the linger to end', async () => {
    const sender: { append?: (...v: string[]) => Promise<unknown> } = {};
    const c = await consuming(10_000, async (values) => {
      if (values.includes('A')) await sender.append?.('B');
    });
    sender.append = c.append;
    await c.append('A');
    await until(() => c.rounds.length === 2);
    // Round 2 followed round 1 back to back and carried one record: the consumer lingers now.
    await sleep(50);
    const asked = Date.now();
    await c.consumer?.stop();
    expect(Date.now() - asked).toBeLessThan(2_500);
  });

  it('a consumer that waited for records does not linger: a quiet pipeline answers at once', async () => {
    const c = await consuming(5_000);
    await c.append('A');
    await until(() => c.rounds.length === 1);
    await sleep(100);
    const sent = Date.now();
    await c.append('B');
    // Well inside the 5 s linger: B's round ran because it came, not because a linger ended.
    await until(() => c.rounds.length === 2, 2_500);
    expect(c.rounds[1]?.values).toEqual(['B']);
    expect((c.rounds[1]?.at ?? Infinity) - sent).toBeLessThan(2_500);
  });
});
