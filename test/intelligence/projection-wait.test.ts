// Intelligence does not analyse ahead of the read models: a round waits until the projector has
// written its events (woken by the projector's rounds in the same process, checking its
// committed offsets when it runs elsewhere), at most 30 s, and not at all once stopping.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Log, RecordBatch } from '../../src/adapters/log/log.js';
import { IntelligenceConsumer } from '../../src/intelligence/intelligence-consumer.js';
import type { Intelligence } from '../../src/intelligence/intelligence.js';
import { ProjectionProgress } from '../../src/projector/progress.js';
import type { Logger } from '../../src/support/logger.js';
import { topology } from '../../src/topology.js';

const closedAt = (partition: number, offset: number, sessionId: string): RecordBatch => ({
  topic: 'session-events', partition,
  records: [{ topic: 'session-events', partition, offset, key: sessionId, headers: {}, timestamp: 0, value: Buffer.from(JSON.stringify({ type: 'SessionClosed', data: { session: { sessionId } } })) }],
});

function setup(progress: ProjectionProgress | null) {
  const committed: Record<number, number> = {};
  const analysed: string[] = [];
  const warnings: string[] = [];
  const log = { committedOffsets: vi.fn(async () => ({ ...committed })) } as unknown as Log;
  const intelligence = { ensureIndexes: async () => undefined, sweep: async () => undefined, analyse: async (id: string) => { analysed.push(id); } } as unknown as Intelligence;
  const logger = { warn: (_: unknown, msg: string) => warnings.push(msg), error: () => undefined } as unknown as Logger;
  const consumer = new IntelligenceConsumer(log, topology(), intelligence, 0, logger, progress);
  return { consumer, committed, analysed, warnings, log };
}

afterEach(() => { vi.useRealTimers(); });

describe('intelligence waits for the projection', () => {
  it('in the same process: analyses once the projector has written the round, not before', async () => {
    const progress = new ProjectionProgress();
    const { consumer, analysed, warnings } = setup(progress);
    const round = consumer.handleBatch([closedAt(0, 4, 's1'), closedAt(1, 2, 's2')]);
    await new Promise((r) => setTimeout(r, 20));
    progress.advance([closedAt(0, 4, 's1')]);
    await new Promise((r) => setTimeout(r, 20));
    expect(analysed).toEqual([]);
    progress.advance([closedAt(1, 2, 's2')]);
    await round;
    expect(analysed).toEqual(['s1', 's2']);
    expect(warnings).toEqual([]);
    // Already written: no wait at all.
    await consumer.handleBatch([closedAt(1, 1, 's3')]);
    expect(analysed).toEqual(['s1', 's2', 's3']);
  });

  it('run apart from the projector: checks its committed offsets until they cover the round', async () => {
    const { consumer, committed, analysed, log } = setup(null);
    const round = consumer.handleBatch([closedAt(0, 4, 's1')]);
    await new Promise((r) => setTimeout(r, 250));
    expect(analysed).toEqual([]);
    expect(vi.mocked(log.committedOffsets).mock.calls.length).toBeGreaterThan(1);
    committed[0] = 5;
    await round;
    expect(analysed).toEqual(['s1']);
  });

  it.each([['in the same process', true], ['apart', false]])('%s: after 30 s, analyses what is there and says so', async (_, local) => {
    vi.useFakeTimers();
    const { consumer, analysed, warnings } = setup(local ? new ProjectionProgress() : null);
    const round = consumer.handleBatch([closedAt(0, 4, 's1')]);
    await vi.advanceTimersByTimeAsync(29_900);
    expect(analysed).toEqual([]);
    await vi.advanceTimersByTimeAsync(200);
    await round;
    expect(analysed).toEqual(['s1']);
    expect(warnings).toEqual(['projection has not caught up; analysing what is there']);
  });

  it.each([['in the same process', true], ['apart', false]])('%s: stopping ends the wait and leaves the round uncommitted, during it or before it', async (_, local) => {
    const { consumer, analysed } = setup(local ? new ProjectionProgress() : null);
    const started = Date.now();
    const round = consumer.handleBatch([closedAt(0, 4, 's1')]);
    await new Promise((r) => setTimeout(r, 20));
    await consumer.stop();
    await expect(round).rejects.toThrow('intelligence is stopping');
    // A round started after the stop (the log consumer stops after intelligence) does not wait either.
    await expect(consumer.handleBatch([closedAt(0, 5, 's2')])).rejects.toThrow('intelligence is stopping');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(analysed).toEqual([]);
  });
});
