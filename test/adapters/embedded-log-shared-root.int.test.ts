// Several embedded logs open on one folder in one process (deployments sharing a DATA_DIR, a
// test's log on the deployment's folder beside the app's) must not hang. lmdb-js opened each
// path once per log: one LMDB environment, so one writer lock, but a write thread per log, each
// unaware of the others. One log's write thread took the lock and waited for the main thread to
// run its append's transaction callback, while the main thread, opening that topic's databases
// in another log (every openDB is a synchronous write transaction), waited for the lock: neither
// moved again.
//
// A hang there stops the event loop, vitest's timers with it, so each scenario runs in a child
// process that is killed when it takes too long.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { result, scenario } from '../support/hang-scenario.js';
import { tempDir } from '../support/temp-dirs.js';

const logModule = join(import.meta.dirname, '../../src/adapters/log/embedded-log.ts');
const folder = () => tempDir('embedded-log-shared-');

/** `EmbeddedLog`, a fresh `dir` and `turns` in scope of every scenario. */
const prelude = (): string => `
    import { EmbeddedLog } from ${JSON.stringify(logModule)};
    const dir = ${JSON.stringify(folder())};
    const turns = async (n) => { for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r)); };
`;

describe('embedded logs sharing a folder in one process', () => {
  it('a second log appends to a topic while the first has an append under way, without hanging', async () => {
    // Without the fix this hangs every time: a's append is queued, lmdb-js starts its write
    // thread from an immediate, and b opens the topic's databases right after.
    const o = await scenario(prelude(), `
      const a = new EmbeddedLog(dir);
      await a.createTopics([{ name: 't1', partitions: 1 }]);
      await a.append('t1', [{ key: 'k', value: 'v' }]);
      const b = new EmbeddedLog(dir);
      const p = a.append('t1', [{ key: 'k', value: 'v2' }]);
      await turns(3);
      await b.append('t1', [{ key: 'k', value: 'b' }]);
      await p;
      const read = await a.readRange('t1', 0, 0, 10);
      await Promise.all([a.close(), b.close()]);
      console.log(JSON.stringify(read.records.map((r) => [r.offset, r.value.toString()])));
    `, 30_000);
    expect(result(o)).toEqual([[0, 'v'], [1, 'v2'], [2, 'b']]);
  }, 60_000);

  it('appends, new topics, consumers, commits and closes of several logs interleave, every record there once', async () => {
    const o = await scenario(prelude(), `
      const a = new EmbeddedLog(dir);
      let b = new EmbeddedLog(dir);
      const c = new EmbeddedLog(dir);
      await a.createTopics([{ name: 'shared', partitions: 3 }]);
      // c consumes what all of them append; its offsets are committed through its own handle.
      const seen = [];
      let consumer = await c.consume({
        groupId: 'g', topics: ['shared'], fromBeginning: true,
        onBatch: async (batch) => { for (const r of batch.records) seen.push(r.value.toString()); },
      });
      const appended = [];
      const perRound = [];
      const ROUNDS = 30;
      for (let round = 0; round < ROUNDS; round++) {
        const topic = 'r' + round;
        const writes = [];
        const put = (log, t, value) => { if (t === 'shared') appended.push(value); writes.push(log.append(t, [{ key: value, value }])); };
        // A topic created through one log; another appends to it first and opens its databases.
        await b.createTopics([{ name: topic, partitions: 2 }]);
        put(a, 'shared', 'a' + round);
        writes.push(a.append(topic, [{ key: 'x', value: 'a' }]));
        // From no wait at all to a few turns of the loop: a's write thread is starting, holds
        // the lock waiting for its callbacks, or has committed.
        await turns(round % 4);
        if (round % 2 === 1) {
          // Busy for a moment: the write thread takes the lock and waits for this thread.
          const until = Date.now() + 5;
          while (Date.now() < until);
        }
        // The other two open the topics' databases (the first round) and append to them.
        writes.push(c.append(topic, [{ key: 'x', value: 'c' }]), b.append(topic, [{ key: 'y', value: 'b' }]));
        put(c, 'shared', 'c' + round);
        put(b, 'shared', 'b' + round);
        // A group moved, and offsets read, through other handles while the writes go on.
        writes.push(b.setGroupPosition('moved' + round, 'shared', { kind: 'earliest' }));
        writes.push(a.committedOffsets('g', 'shared'));
        if (round === 15) {
          // The consumer stops and starts again: it goes on from its committed offsets.
          await consumer.stop();
          consumer = await c.consume({
            groupId: 'g', topics: ['shared'], fromBeginning: true,
            onBatch: async (batch) => { for (const r of batch.records) seen.push(r.value.toString()); },
          });
        }
        while (writes.length > 0) await writes.shift();
        if (round % 10 === 9) {
          // One log closes and another opens on the folder (its databases opened afresh) while
          // the others write, to the topic and to the log's own databases.
          const closing = b.close();
          put(a, 'shared', 'close' + round);
          writes.push(a.setGroupPosition('other' + round, 'shared', { kind: 'earliest' }));
          await turns(round % 4);
          b = new EmbeddedLog(dir);
          put(b, 'shared', 'late' + round);
          writes.push(closing);
          while (writes.length > 0) await writes.shift();
        }
        const ends = await b.endOffsets(topic);
        perRound.push(ends[0] + ends[1]);
      }
      // Wait for the consumer to have seen every record.
      const deadline = Date.now() + 20_000;
      while (new Set(seen).size < appended.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      await consumer.stop();
      const ends = await a.endOffsets('shared');
      const committed = await b.committedOffsets('g', 'shared');
      const moved = await a.committedOffsets('moved7', 'shared');
      await Promise.all([a.close(), b.close(), c.close()]);
      // Closed and opened again: what was written is there, once.
      const again = new EmbeddedLog(dir);
      const stored = [];
      for (let p = 0; p < 3; p++) for (const r of (await again.readRange('shared', p, 0, 1e6)).records) stored.push(r.value.toString());
      const againEnds = await again.endOffsets('shared');
      let topicRecords = 0;
      for (let round = 0; round < ROUNDS; round++) {
        for (let p = 0; p < 2; p++) topicRecords += (await again.readRange('r' + round, p, 0, 100)).records.length;
      }
      await again.close();
      const sorted = (xs) => [...xs].sort();
      console.log(JSON.stringify({
        storedOnce: JSON.stringify(sorted(stored)) === JSON.stringify(sorted(appended)),
        // At least once: a batch handled as the consumer stopped is handled again after it.
        seenAll: JSON.stringify(sorted(new Set(seen))) === JSON.stringify(sorted(appended)),
        count: stored.length,
        committedIsEnd: JSON.stringify(committed) === JSON.stringify(ends) && JSON.stringify(ends) === JSON.stringify(againEnds),
        moved,
        perRound: [...new Set(perRound)],
        topicRecords,
      }));
    `, 90_000);
    expect(result(o)).toEqual({
      storedOnce: true, seenAll: true, count: 96, committedIsEnd: true, moved: { 0: 0, 1: 0, 2: 0 }, perRound: [3], topicRecords: 90,
    });
  }, 150_000);
});
