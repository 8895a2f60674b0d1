// A stage's idle work (the projector's sweep of lapsed sessions) runs between its rounds, never
// during one, again at once while it says there is more, and a stop waits for the call under
// way. Driven through runStage over a real embedded log.
import { afterEach, describe, expect, it } from 'vitest';
import { EmbeddedLog } from '../../src/adapters/log/embedded-log.js';
import type { RecordBatch } from '../../src/adapters/log/log.js';
import { runStage, type Stage } from '../../src/pipeline/stage.js';
import { tempDir } from '../support/temp-dirs.js';
import { eventually } from '../support/wait.js';

const TOPIC = 'idle-topic';
const logs: EmbeddedLog[] = [];
afterEach(async () => {
  await Promise.all(logs.splice(0).map((l) => l.close()));
});

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A stage whose rounds and idle calls each take a while, recording when each ran. */
function recordingStage(idleMore: () => boolean): Stage & { spans: { kind: 'round' | 'idle'; from: number; to: number }[]; records: number } {
  const spans: { kind: 'round' | 'idle'; from: number; to: number }[] = [];
  const stage = {
    role: 'test', group: 'idle-group', topics: [TOPIC], startFrom: 'beginning' as const, idleEveryMs: 200, spans, records: 0,
    async handleBatch(batches: readonly RecordBatch[]) {
      const from = performance.now();
      await pause(15);
      stage.records += batches.reduce((n, b) => n + b.records.length, 0);
      spans.push({ kind: 'round', from, to: performance.now() });
    },
    async idle() {
      const from = performance.now();
      await pause(15);
      spans.push({ kind: 'idle', from, to: performance.now() });
      return idleMore();
    },
  };
  return stage;
}

describe('a stage with idle work', () => {
  it('never runs it during a round, runs it again at once while there is more, and stops after the call under way', async () => {
    const log = new EmbeddedLog(tempDir('convops-idle-'));
    logs.push(log);
    await log.createTopics([{ name: TOPIC, partitions: 2 }]);
    // More to do five times over once every record is in (so no round comes between them).
    let more = 5;
    const stage: ReturnType<typeof recordingStage> = recordingStage(() => stage.records === 20 && more-- > 0);
    const consumer = await runStage(log, stage);
    for (let i = 0; i < 20; i++) {
      await log.append(TOPIC, [{ key: `k${i % 3}`, value: `v${i}` }]);
      await pause(5);
    }
    // Every record in, then five idle calls with more to do and one without.
    await eventually(async () => (stage.records === 20 && more < 0 ? true : undefined), 10_000, 'rounds and idle calls');
    await consumer.stop();
    const ended = stage.spans.length;
    const stoppedAt = performance.now();
    await pause(100);
    // Nothing after the stop, and nothing left running past it.
    expect(stage.spans.length).toBe(ended);
    for (const s of stage.spans) expect(s.to).toBeLessThanOrEqual(stoppedAt);
    // One at a time: no two spans overlap.
    const sorted = [...stage.spans].sort((a, b) => a.from - b.from);
    for (let i = 1; i < sorted.length; i++) expect(sorted[i]!.from, JSON.stringify([sorted[i - 1], sorted[i]])).toBeGreaterThanOrEqual(sorted[i - 1]!.to);
    // While it said there was more, the next idle call came at once (well inside the 200 ms period).
    const lastRound = Math.max(...sorted.filter((s) => s.kind === 'round').map((s) => s.to));
    const idles = sorted.filter((s) => s.kind === 'idle' && s.from >= lastRound);
    expect(idles.length).toBeGreaterThanOrEqual(6);
    const gaps = idles.slice(1, 6).map((s, i) => s.from - idles[i]!.to);
    expect(Math.max(...gaps)).toBeLessThan(100);
    expect(stage.spans.filter((s) => s.kind === 'round').length).toBeGreaterThan(0);
  });
});
