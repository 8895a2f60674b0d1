// The pieces of "rounds that fit the session" that need no broker: how a gathered fetch is cut
// into rounds (fair prefixes per partition, at most the limit), how rounds are sized from the
// time per record, the settings' bounds, and what a stage reports about its consumer's group.
import { describe, expect, it } from 'vitest';
import { cutRound, MIN_ROUND_RECORDS, RoundPacer } from '../../src/adapters/log/kafka/rounds.js';
import type { LogRecord, RecordBatch } from '../../src/adapters/log/log.js';
import { ConfigError, DEFAULT_ROUND_LIMITS, loadConfig } from '../../src/config.js';
import { DROPS_REPORTED, GroupProgressWatch, StageHealth } from '../../src/pipeline/stage-health.js';

function batch(partition: number, from: number, n: number): RecordBatch {
  const records: LogRecord[] = Array.from({ length: n }, (_, i) => ({
    topic: 't', partition, offset: from + i, key: 'k', value: Buffer.alloc(0), headers: {}, timestamp: 0,
  }));
  return { topic: 't', partition, records };
}

describe('cutRound', () => {
  it('shares the limit fairly between partitions, each a prefix of what it has left, and gives what a short one leaves to the others', () => {
    const a = batch(0, 100, 10);
    const b = batch(1, 0, 2);
    const c = batch(2, 50, 10);
    const done = new Map<RecordBatch, number>();
    const first = cutRound([a, b, c], done, 12);
    expect(first.map((x) => [x.partition, x.records.map((r) => r.offset)])).toEqual([
      [0, [100, 101, 102, 103, 104]], [1, [0, 1]], [2, [50, 51, 52, 53, 54]],
    ]);
    done.set(a, 5).set(b, 2).set(c, 5);
    const second = cutRound([a, b, c], done, 100);
    expect(second.map((x) => [x.partition, x.records[0]?.offset, x.records.length])).toEqual([[0, 105, 5], [2, 55, 5]]);
    done.set(a, 10).set(c, 10);
    expect(cutRound([a, b, c], done, 100)).toEqual([]);
    // A limit below the number of partitions still moves: one record each until it runs out.
    expect(cutRound([a, b, c], new Map(), 2).map((x) => x.records.length)).toEqual([1, 1]);
  });

  it('serves the partitions in turn when the limit is below their number, so none starves', () => {
    const parts = [batch(0, 0, 5), batch(1, 0, 5), batch(2, 0, 5)];
    const done = new Map<RecordBatch, number>();
    const served: number[] = [];
    for (let turn = 0; turn < 6; turn++) {
      const round = cutRound(parts, done, 1, turn);
      expect(round).toHaveLength(1);
      const r = round[0] as RecordBatch;
      served.push(r.partition);
      const whole = parts[r.partition] as RecordBatch;
      done.set(whole, (done.get(whole) ?? 0) + r.records.length);
    }
    expect(served).toEqual([0, 1, 2, 0, 1, 2]);
    expect(cutRound(parts, new Map(), 2, 1).map((x) => x.partition)).toEqual([1, 2]);
    expect(cutRound(parts, new Map(), 2, 2).map((x) => x.partition)).toEqual([0, 2]);
  });
});

describe('RoundPacer', () => {
  it('starts at the record limit, then sizes rounds to the time limit from the measured time per record', () => {
    const p = new RoundPacer({ maxRecords: 2_000, maxMs: 1_000 });
    expect(p.next()).toBe(2_000);
    p.observe(2_000, 8_000); // 4 ms a record
    expect(p.next()).toBe(250);
    p.observe(250, 250); // faster: eases down, not at once
    expect(p.next()).toBe(400);
    p.observe(400, 8_000); // the store slowed down: a full round counts at once
    expect(p.next()).toBe(MIN_ROUND_RECORDS); // 50 by the time limit, but never below the floor
    p.observe(MIN_ROUND_RECORDS, 60_000);
    expect(p.next()).toBe(MIN_ROUND_RECORDS);
    // A round smaller than asked (only that much waited) does not raise the estimate.
    const q = new RoundPacer({ maxRecords: 2_000, maxMs: 1_000 });
    q.observe(2_000, 2_000);
    expect(q.next()).toBe(1_000);
    q.observe(3, 900);
    expect(q.next()).toBe(1_000);
  });

  it('does not get stuck at tiny rounds when most of a round is its fixed part (a store whose every call takes a second)', () => {
    const p = new RoundPacer({ maxRecords: 2_000, maxMs: 2_000 });
    // One record waited at first: its round, 1,040 ms, is nearly all fixed part.
    p.next();
    p.observe(1, 1_040);
    const sizes: number[] = [];
    for (let i = 0; i < 30; i++) {
      const n = p.next();
      sizes.push(n);
      p.observe(n, 1_040 + 10 * n);
    }
    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(MIN_ROUND_RECORDS);
    // It settles where a round takes about the time limit: the fixed second plus about a hundred records.
    const last = sizes[sizes.length - 1] ?? 0;
    expect(last).toBeGreaterThanOrEqual(MIN_ROUND_RECORDS);
    expect(1_040 + 10 * last).toBeLessThan(2_200);
  });
});

describe('round settings', () => {
  it('default to the measured limits, and refuse a round longer than half the session', () => {
    const c = loadConfig({});
    expect(c.kafkaRoundMaxRecords).toBe(DEFAULT_ROUND_LIMITS.maxRecords);
    expect(c.kafkaRoundMaxMs).toBe(DEFAULT_ROUND_LIMITS.maxMs);
    expect(loadConfig({ KAFKA_SESSION_TIMEOUT_MS: '6000' }).kafkaRoundMaxMs).toBeLessThanOrEqual(3_000);
    expect(loadConfig({ KAFKA_ROUND_MAX_RECORDS: '500', KAFKA_ROUND_MAX_MS: '3000', KAFKA_SESSION_TIMEOUT_MS: '6000' })).toMatchObject({ kafkaRoundMaxRecords: 500, kafkaRoundMaxMs: 3_000 });
    expect(() => loadConfig({ KAFKA_ROUND_MAX_MS: '3001', KAFKA_SESSION_TIMEOUT_MS: '6000' })).toThrow(/KAFKA_ROUND_MAX_MS must be at most half of KAFKA_SESSION_TIMEOUT_MS \(3000\)/);
    expect(() => loadConfig({ KAFKA_ROUND_MAX_RECORDS: '0' })).toThrow(ConfigError);
  });
});

describe('a stage\'s consumer in its group', () => {
  const t0 = Date.UTC(2026, 10, 25, 12);
  const s = (ms: number): number => t0 + ms;

  it('is reported dropped, naming the group, until it commits again; and while drops repeat even if it commits between them', () => {
    const h = new StageHealth('processor', { group: 'convops-processor', now: t0 });
    h.rejoined('rebalance', 'the group rebalanced', s(1_000));
    expect(h.problems(s(1_000))).toEqual([]);
    h.rejoined('dropped', 'the coordinator no longer knew this member (its session expired)', s(2_000));
    expect(h.problems(s(2_500))).toEqual([{
      stage: 'processor', group: 'convops-processor', since: new Date(s(2_000)).toISOString(), consecutiveFailures: 0,
      reason: 'consumer group convops-processor: its consumer was dropped from the group (1 time in the last 10 minutes; last: the coordinator no longer knew this member (its session expired)), and has committed nothing since',
    }]);
    h.committed(100, s(3_000));
    expect(h.problems(s(3_000))).toEqual([]);
    for (let i = 1; i < DROPS_REPORTED; i++) {
      h.rejoined('crashed', 'KafkaJSConnectionError: Connection error', s(3_000 + i * 10_000));
      h.committed(100, s(4_000 + i * 10_000));
    }
    expect(h.problems(s(30_000))[0]?.reason).toMatch(/^consumer group convops-processor: its consumer crashed and was started again \(3 times in the last 10 minutes/);
    // Out of the window, and committing: nothing to report.
    h.committed(0, s(20 * 60_000));
    expect(h.problems(s(20 * 60_000))).toEqual([]);
    expect(h.rejoinCounts()).toEqual({ rebalance: 1, dropped: 1, crashed: DROPS_REPORTED - 1 });
  });

  it('is reported stalled when records wait and nothing is committed for a while; waiting alone is not a stall', () => {
    const h = new StageHealth('projector', { group: 'convops-projector', stalledAfterMs: 60_000, now: t0 });
    h.waiting(0, s(0));
    expect(h.stalledSeconds(s(120_000))).toBe(0);
    h.waiting(5_000, s(10_000)); // records arrive: the clock starts now
    h.committed(4_000, s(20_000));
    h.waiting(4_500, s(30_000));
    expect(h.problems(s(79_000))).toEqual([]);
    expect(h.stalledSeconds(s(79_000))).toBe(59);
    expect(h.problems(s(80_000))).toEqual([{
      stage: 'projector', group: 'convops-projector', since: new Date(s(20_000)).toISOString(), consecutiveFailures: 0,
      reason: 'consumer group convops-projector: no progress for 60 s with 4500 records waiting',
    }]);
    h.committed(0, s(81_000));
    expect(h.problems(s(200_000))).toEqual([]);
    expect(h.stalledSeconds(s(200_000))).toBe(0);
  });

  it('seen from another process (its API), is reported stalled when its committed offsets stay put for a while with records waiting', () => {
    const w = new GroupProgressWatch(60_000);
    expect(w.observe('processor', 'convops-processor', 1_000, 500, s(0))).toBeNull();
    expect(w.observe('processor', 'convops-processor', 1_000, 800, s(59_000))).toBeNull();
    expect(w.observe('processor', 'convops-processor', 1_000, 900, s(61_000))).toEqual({
      stage: 'processor', group: 'convops-processor', since: new Date(s(0)).toISOString(), consecutiveFailures: 0,
      reason: 'consumer group convops-processor: no progress for 61 s with 900 records waiting (its committed offsets have not moved)',
    });
    // Moving again, or nothing waiting, restarts the clock.
    expect(w.observe('processor', 'convops-processor', 1_200, 700, s(62_000))).toBeNull();
    expect(w.observe('processor', 'convops-processor', 1_200, 700, s(100_000))).toBeNull();
    expect(w.observe('processor', 'convops-processor', 1_200, 0, s(200_000))).toBeNull();
    expect(w.observe('processor', 'convops-processor', 1_200, 10, s(250_000))).toBeNull();
  });
});
