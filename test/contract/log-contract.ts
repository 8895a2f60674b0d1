// One behavioural contract for every Log adapter: run against Kafka and the embedded log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Log, LogRecord } from '../../src/adapters/log/log.js';
import { TopicNotFoundError } from '../../src/adapters/log/log.js';
import { partitionForKey } from '../../src/adapters/log/partitioner.js';
import { eventually, uniqueName } from '../support/wait.js';

export function logContract(name: string, makeLog: () => Promise<Log>): void {
  describe(`log contract: ${name}`, () => {
    let log: Log;
    beforeAll(async () => {
      log = await makeLog();
    });
    afterAll(async () => {
      await log.close();
    });

    it('creates topics idempotently and reports their partition count', async () => {
      const topic = uniqueName('t');
      await log.createTopics([{ name: topic, partitions: 3 }]);
      await log.createTopics([{ name: topic, partitions: 3 }]);
      expect(await log.partitionCount(topic)).toBe(3);
      await expect(log.partitionCount(uniqueName('missing'))).rejects.toBeInstanceOf(TopicNotFoundError);
    });

    it('appends keyed records to the Java-compatible partition with consecutive offsets', async () => {
      const topic = uniqueName('t');
      await log.createTopics([{ name: topic, partitions: 4 }]);
      const keys = ['acct_1:100', 'acct_1:101', 'acct_2:100', 'acct_1:100'];
      const res = await log.append(topic, keys.map((key, i) => ({ key, value: `v${i}`, headers: { h: `x${i}` } })));
      expect(res.map((r) => r.partition)).toEqual(keys.map((k) => partitionForKey(k, 4)));
      // the same key twice in one append: same partition, next offset
      expect(res[3]?.partition).toBe(res[0]?.partition);
      expect(res[3]?.offset).toBe((res[0]?.offset ?? -1) + 1);
      const ends = await log.endOffsets(topic);
      const total = Object.values(ends).reduce((a, b) => a + b, 0);
      expect(total).toBe(4);
    });

    it('delivers records per partition in order to a group and resumes from committed offsets', async () => {
      const topic = uniqueName('t');
      const groupId = uniqueName('g');
      await log.createTopics([{ name: topic, partitions: 2 }]);
      await log.append(topic, Array.from({ length: 20 }, (_, i) => ({ key: `k${i % 5}`, value: String(i), timestamp: 1_700_000_000_000 + i })));
      const seen: LogRecord[] = [];
      const c1 = await log.consume({ groupId, topics: [topic], fromBeginning: true, onBatch: async (b) => { seen.push(...b.records); } });
      await eventually(() => (seen.length >= 20 ? true : undefined), 30_000, '20 records');
      await eventually(async () => {
        const committed = await log.committedOffsets(groupId, topic);
        return Object.values(committed).reduce((a, b) => a + b, 0) === 20 ? true : undefined;
      }, 15_000, 'offsets committed');
      await c1.stop();
      // per key, values arrive in append order
      for (let k = 0; k < 5; k++) {
        const values = seen.filter((r) => r.key === `k${k}`).map((r) => Number(r.value.toString()));
        expect(values).toEqual([...values].sort((a, b) => a - b));
      }
      expect(seen.find((r) => r.value.toString() === '7')?.timestamp).toBe(1_700_000_000_007);

      await log.append(topic, [{ key: 'k1', value: 'after' }]);
      const second: LogRecord[] = [];
      const c2 = await log.consume({ groupId, topics: [topic], fromBeginning: true, onBatch: async (b) => { second.push(...b.records); } });
      await eventually(() => (second.length >= 1 ? true : undefined), 30_000, 'the new record');
      await new Promise((r) => setTimeout(r, 300));
      await c2.stop();
      expect(second.map((r) => r.value.toString())).toEqual(['after']);
    });

    it('redelivers a batch whose handler failed (nothing is committed past a failure)', async () => {
      const topic = uniqueName('t');
      const groupId = uniqueName('g');
      await log.createTopics([{ name: topic, partitions: 1 }]);
      await log.append(topic, [{ key: 'a', value: '1' }, { key: 'a', value: '2' }]);
      let attempts = 0;
      const delivered: string[] = [];
      const c = await log.consume({
        groupId, topics: [topic], fromBeginning: true,
        onBatch: async (b) => {
          attempts++;
          if (attempts === 1) throw new Error('injected failure');
          delivered.push(...b.records.map((r) => r.value.toString()));
        },
      });
      await eventually(() => (delivered.length >= 2 ? true : undefined), 30_000, 'redelivery');
      await c.stop();
      expect(attempts).toBeGreaterThanOrEqual(2);
      expect(delivered.slice(0, 2)).toEqual(['1', '2']);
    });

    it('moves an inactive group to the earliest offset, to given offsets, and to a timestamp', async () => {
      const topic = uniqueName('t');
      const groupId = uniqueName('g');
      await log.createTopics([{ name: topic, partitions: 1 }]);
      const t0 = 1_800_000_000_000;
      await log.append(topic, Array.from({ length: 6 }, (_, i) => ({ key: 'same', value: String(i), timestamp: t0 + i * 1000 })));
      const readAll = async (): Promise<string[]> => {
        const got: string[] = [];
        const c = await log.consume({ groupId, topics: [topic], fromBeginning: true, onBatch: async (b) => { got.push(...b.records.map((r) => r.value.toString())); } });
        await eventually(async () => ((await log.committedOffsets(groupId, topic))[0] === 6 ? true : undefined), 30_000, 'caught up');
        await c.stop();
        return got;
      };
      expect(await readAll()).toEqual(['0', '1', '2', '3', '4', '5']);
      await log.setGroupPosition(groupId, topic, { kind: 'offsets', offsets: { 0: 4 } });
      expect(await readAll()).toEqual(['4', '5']);
      await log.setGroupPosition(groupId, topic, { kind: 'timestamp', timestamp: t0 + 2500 });
      expect(await readAll()).toEqual(['3', '4', '5']);
      await log.setGroupPosition(groupId, topic, { kind: 'earliest' });
      expect(await readAll()).toEqual(['0', '1', '2', '3', '4', '5']);
    });

    it('keeps binary values and string headers intact', async () => {
      const topic = uniqueName('t');
      const groupId = uniqueName('g');
      await log.createTopics([{ name: topic, partitions: 1 }]);
      const value = Buffer.from([0, 255, 10, 13, 128]);
      await log.append(topic, [{ key: 'bin', value, headers: { 'x-ofapi-idempotency-key': 'evt_1' } }]);
      let got: LogRecord | undefined;
      const c = await log.consume({ groupId, topics: [topic], fromBeginning: true, onBatch: async (b) => { got = b.records[0]; } });
      await eventually(() => got, 30_000, 'record');
      await c.stop();
      expect(got?.value.equals(value)).toBe(true);
      expect(got?.headers['x-ofapi-idempotency-key']).toBe('evt_1');
      expect(got?.key).toBe('bin');
    });

    it('reads one record whole at its position, and null where the log holds none', async () => {
      const topic = uniqueName('t');
      await log.createTopics([{ name: topic, partitions: 2 }]);
      const value = Buffer.from([1, 0, 254, 7]);
      const [a, b] = await log.append(topic, [
        { key: 'one', value: 'first', partition: 1 },
        { key: 'two', value, headers: { h: 'x' }, partition: 1 },
      ]);
      const got = await log.readRecord(topic, 1, b?.offset ?? -1);
      expect(got).toMatchObject({ topic, partition: 1, offset: b?.offset, key: 'two', headers: { h: 'x' } });
      expect(got?.value.equals(value)).toBe(true);
      expect((await log.readRecord(topic, 1, a?.offset ?? -1))?.value.toString()).toBe('first');
      // Past the end, an empty partition, a partition that does not exist, a negative offset.
      expect(await log.readRecord(topic, 1, 2)).toBeNull();
      expect(await log.readRecord(topic, 0, 0)).toBeNull();
      expect(await log.readRecord(topic, 5, 0)).toBeNull();
      expect(await log.readRecord(topic, 1, -1)).toBeNull();
      await expect(log.readRecord(uniqueName('missing'), 0, 0)).rejects.toBeInstanceOf(TopicNotFoundError);
    });

    it('reads a range of one partition in offset order, only what the partition holds, not another partition', async () => {
      const topic = uniqueName('t');
      await log.createTopics([{ name: topic, partitions: 3 }]);
      // More than one fetch and more than one embedded slice; the other partitions are busy too.
      const n = 2_500;
      for (const p of [0, 1, 2]) {
        await log.append(topic, Array.from({ length: n }, (_, i) => ({ key: `k${i % 7}`, value: `p${p}-${i}`, headers: { i: String(i) }, partition: p })));
      }
      const { records: got, held } = await log.readRange(topic, 1, 100, 2_200);
      expect(held).toBe(2_100);
      expect(got.map((r) => r.offset)).toEqual(Array.from({ length: 2_100 }, (_, i) => 100 + i));
      expect(got.every((r) => r.partition === 1 && r.value.toString() === `p1-${r.offset}` && r.headers.i === String(r.offset) && r.key === `k${r.offset % 7}`)).toBe(true);
      // Clipped to what the partition holds; empty where it holds nothing.
      expect((await log.readRange(topic, 2, n - 3, n + 50)).records.map((r) => r.value.toString())).toEqual([`p2-${n - 3}`, `p2-${n - 2}`, `p2-${n - 1}`]);
      // Only what `keep` accepts is answered; what the partition held is counted all the same.
      const kept = await log.readRange(topic, 0, 0, 1_000, (r) => r.key === 'k3');
      expect(kept.held).toBe(1_000);
      expect(kept.records.map((r) => r.offset)).toEqual(Array.from({ length: 1_000 }, (_, i) => i).filter((i) => i % 7 === 3));
      expect(await log.readRange(topic, 0, n, n + 10)).toEqual({ records: [], held: 0 });
      expect(await log.readRange(topic, 0, 5, 5)).toEqual({ records: [], held: 0 });
      expect(await log.readRange(topic, 7, 0, 10)).toEqual({ records: [], held: 0 });
      await expect(log.readRange(uniqueName('missing'), 0, 0, 1)).rejects.toBeInstanceOf(TopicNotFoundError);
    });
  });
}
