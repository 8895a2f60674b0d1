// The report-bucket build marker is a lease: while its builder renews it, another process
// waits instead of building too; once it has not moved for the stale bound, one process takes
// it over, builds, and marks the version built.
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { EmbeddedStore } from '../../src/adapters/store/embedded-store.js';
import { ensureReportBuckets } from '../../src/read-models/report-buckets/backfill.js';
import { CONTRIBUTIONS_FORMAT } from '../../src/read-models/report-buckets/contributions.js';
import { META_COLLECTION, ReadModelSet } from '../../src/read-models/read-model-set.js';
import { createLogger } from '../../src/support/logger.js';
import { tempDir } from '../support/temp-dirs.js';

const STALE_MS = 120_000;

describe('the report-bucket build marker', () => {
  const dir = tempDir('convops-marker-');
  const store = new EmbeddedStore(dir);
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('makes a second process wait for a live builder, and take the build over once the builder stops renewing', async () => {
    const id = `report-buckets-v1-f${CONTRIBUTIONS_FORMAT}`;
    const markers = store.collection(META_COLLECTION);
    let now = 10_000_000;
    // Another process started building a moment ago.
    await markers.insertOne({ _id: id, state: 'building', at: now, builder: 'other-process' });
    now += 1_000;
    let settled = false;
    const ensuring = ensureReportBuckets(store, new ReadModelSet(store), 1, createLogger('silent'), () => now).then(() => { settled = true; });
    // It looks again every second; several looks go by without it building.
    await new Promise((r) => setTimeout(r, 2_500));
    expect(settled).toBe(false);
    expect(await markers.findOne({ _id: id })).toMatchObject({ state: 'building', builder: 'other-process' });

    // The other process died: its marker has not moved for the stale bound.
    now += STALE_MS;
    await ensuring;
    const marker = await markers.findOne({ _id: id });
    expect(marker).toMatchObject({ state: 'built' });
    expect(marker?.builder).not.toBe('other-process');
  }, 30_000);
});
