// Rounds that fit the session, on a real broker at the smallest session timeout it accepts
// (group.min.session.timeout.ms, 6 s by default). Catching up used to hand a whole fetch to one
// round with no heartbeat while it ran: a round longer than the session got the member dropped,
// its commit refused, and the same range read again for good. Here a slow handler has several
// session timeouts of work waiting, and every record must be handled (at most twice) and the
// group's offsets reach the end. A consumer whose event loop is held past the session (so no
// heartbeat can go out) is dropped: that is reported naming its group, and clears once it commits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KafkaLog } from '../../src/adapters/log/kafka-log.js';
import type { RecordBatch } from '../../src/adapters/log/log.js';
import { StageHealth } from '../../src/pipeline/stage-health.js';
import { eventually, uniqueName } from '../support/wait.js';
import { kafkaBrokers } from '../support/test-servers.js';

const SESSION_MS = 6_000;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

let log: KafkaLog;

beforeAll(async () => {
  log = new KafkaLog({ brokers: (await kafkaBrokers()).split(','), sessionTimeoutMs: SESSION_MS, rounds: { maxRecords: 2_000, maxMs: 1_000 } });
});

afterAll(async () => {
  await log.close();
});

async function fill(topic: string, partitions: number, records: number): Promise<number> {
  await log.createTopics([{ name: topic, partitions }]);
  for (let i = 0; i < records; i += 1_000) {
    await log.append(topic, Array.from({ length: Math.min(1_000, records - i) }, (_, j) => ({ key: `chat-${(i + j) % 97}`, value: `r${i + j}` })));
  }
  return Object.values(await log.endOffsets(topic)).reduce((a, b) => a + b, 0);
}

async function committedTotal(groupId: string, topic: string): Promise<number> {
  return Object.values(await log.committedOffsets(groupId, topic)).reduce((a, b) => a + b, 0);
}

describe('kafka rounds', () => {
  it('catches up at the smallest session timeout with a handler slower than the session: every record handled, offsets at the end, no endless re-reads', async () => {
    const topic = uniqueName('rounds');
    const groupId = uniqueName('g');
    const total = await fill(topic, 4, 3_000);
    expect(total).toBe(3_000);
    // 4 ms a record and 50 ms a round: 12 s of work for what one fetch returns, and a first
    // round of 2,000 records (8 s) longer than the session on its own.
    const handled = new Map<string, number>();
    const sizes: number[] = [];
    const health = new StageHealth('test', { group: groupId });
    const started = Date.now();
    const consumer = await log.consumeRounds({
      groupId, topics: [topic], fromBeginning: true, monitor: health,
      onRound: async (batches: readonly RecordBatch[]) => {
        let n = 0;
        for (const b of batches) {
          for (const r of b.records) {
            const k = `${r.partition}:${r.offset}`;
            handled.set(k, (handled.get(k) ?? 0) + 1);
            n++;
          }
        }
        sizes.push(n);
        await sleep(50 + 4 * n);
      },
    });
    try {
      await eventually(async () => (await committedTotal(groupId, topic)) === total ? true : undefined, 60_000, 'every offset committed');
    } finally {
      await consumer.stop();
    }
    const elapsed = Date.now() - started;
    const counts = [...handled.values()];
    expect(handled.size).toBe(total);
    expect(Math.max(...counts)).toBeLessThanOrEqual(2);
    expect(health.rejoinCounts().dropped).toBe(0);
    expect(health.problems()).toEqual([]);
    // Rounds shrank to about a second of work after the first one measured the handler.
    expect(sizes[0]).toBeLessThanOrEqual(2_000);
    expect(Math.max(...sizes.slice(2))).toBeLessThanOrEqual(300);
    console.log(`[kafka-rounds] ${total} records in ${elapsed} ms over ${sizes.length} rounds (sizes ${sizes.slice(0, 4).join(', ')}, ...); handled twice: ${counts.filter((c) => c > 1).length}`);
  });

  it('reports a consumer dropped from its group (its event loop held past the session) naming the group, and clears once it commits again', async () => {
    const topic = uniqueName('dropped');
    const groupId = uniqueName('g');
    const total = await fill(topic, 2, 200);
    const handled = new Map<string, number>();
    const health = new StageHealth('test', { group: groupId });
    let held = false;
    let sawProblem: string | null = null;
    const consumer = await log.consumeRounds({
      groupId, topics: [topic], fromBeginning: true, monitor: health,
      onRound: async (batches: readonly RecordBatch[]) => {
        for (const b of batches) for (const r of b.records) handled.set(`${r.partition}:${r.offset}`, (handled.get(`${r.partition}:${r.offset}`) ?? 0) + 1);
        if (!held) {
          held = true;
          // Synchronous work longer than the session: no timer, so no heartbeat, can run.
          const until = Date.now() + SESSION_MS + 2_000;
          while (Date.now() < until) { /* hold the loop */ }
        }
        const p = health.problems().find((x) => x.group === groupId);
        if (p) sawProblem = p.reason;
      },
    });
    try {
      await eventually(() => (health.rejoinCounts().dropped > 0 ? true : undefined), 30_000, 'the drop reported');
      await eventually(async () => (await committedTotal(groupId, topic)) === total ? true : undefined, 30_000, 'every offset committed');
    } finally {
      await consumer.stop();
    }
    expect(handled.size).toBe(total);
    expect(Math.max(...handled.values())).toBeLessThanOrEqual(2);
    // Seen while it had not committed since the drop; cleared by the commit after it.
    expect(sawProblem).toContain(`consumer group ${groupId}: its consumer was dropped from the group`);
    expect(health.problems()).toEqual([]);
  });
});
