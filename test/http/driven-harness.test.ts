// The route tests' harness without the running pipeline: no consumer runs, and settled()
// drives the real stages over the log, so a route reads what the pipeline would have written.
// Its figures are checked against the demo oracle (test/http/read-surface.test.ts) and the
// report reference (reads-windows); this file holds what the seam itself promises.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { startHarness, type Harness } from '../support/app-harness.js';

const sample = (name: string): string => readFileSync(new URL(`../../../shared/platform/samples/${name}`, import.meta.url), 'utf8');

describe('a driven harness', () => {
  let h: Harness;
  beforeAll(async () => { h = await startHarness({}, { driven: true }); });
  afterAll(async () => { await h?.stop(); });

  it('runs no consumer: a webhook waits in the log until the test drives the stages', async () => {
    expect(h.pipeline.stages()).toEqual([]);
    expect((await h.webhook(sample('messages_received.json'), { key: 'evt_driven_1' })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 200));
    const overview = async () => (await h.call<{ sessions: { total: number; awaiting: number }; messages: { total: number } }>('GET', '/api/overview')).body;
    expect(await overview()).toMatchObject({ sessions: { total: 0 }, messages: { total: 0 } });

    await h.settled();
    const after = await overview();
    expect(after, JSON.stringify(after)).toMatchObject({ sessions: { total: 1 }, messages: { total: 1, fromFans: 1 } });
  });

  it('commits what it drove, so health reads no lag and a second drive changes nothing', async () => {
    const health = (await h.call<{ components: { processor: { lag: number | null }; projector: { lag: number | null } } }>('GET', '/api/health')).body;
    expect(health.components.processor.lag).toBe(0);
    expect(health.components.projector.lag).toBe(0);
    const before = (await h.call('GET', '/api/overview')).text;
    await h.settled();
    expect((await h.call('GET', '/api/overview')).text).toBe(before);
  });
});
