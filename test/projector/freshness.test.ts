import { describe, expect, it } from 'vitest';
import { Freshness } from '../../src/pipeline/freshness.js';

describe('freshness (received → visible)', () => {
  it('reports nearest-rank percentiles over the window only', () => {
    const f = new Freshness(10_000);
    // An old burst of slow ones, outside the window by the time we ask.
    for (let i = 0; i < 50; i++) f.record(0, 5_000);
    for (let i = 1; i <= 100; i++) f.record(20_000 - i, 20_000);
    const s = f.summary(21_000);
    expect(s).toEqual({ windowSec: 10, samples: 100, p50Ms: 50, p99Ms: 99, maxMs: 100 });
  });

  it('ignores inputs without a receipt time and says when there is nothing to report', () => {
    const f = new Freshness(1000);
    f.record(Number.NaN, 10);
    expect(f.summary(10)).toEqual({ windowSec: 1, samples: 0, p50Ms: null, p99Ms: null, maxMs: null });
  });

  it('keeps at most the newest samples', () => {
    const f = new Freshness(1_000_000, 1000);
    for (let i = 0; i < 100_000; i++) f.record(i - (i < 99_000 ? 500 : 1), i);
    const s = f.summary(100_000);
    expect(s.samples).toBe(1000);
    expect(s.maxMs).toBe(1);
  });
});
