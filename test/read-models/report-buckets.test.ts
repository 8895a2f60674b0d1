// The report buckets are folds too: whatever batches the projector applies events in, with
// batches delivered again, the stored buckets equal the buckets computed afresh from the final
// documents (the sum of every document's contributions). And a window splits into buckets and
// partial hours that cover it exactly, once. A failure prints fast-check's seed: rerun with
// PROPERTY_SEED / PROPERTY_PATH.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EmbeddedStore } from '../../src/adapters/store/embedded-store.js';
import { MongoStore } from '../../src/adapters/store/mongo-store.js';
import type { DocumentStore } from '../../src/adapters/store/store.js';
import { applyEvents } from '../../src/projector/runner.js';
import { ReportBucketBuilder } from '../../src/read-models/report-buckets/builder.js';
import type { ReportBucketDoc } from '../../src/read-models/report-buckets/document.js';
import { bucketIndex, bucketStart, type TimeLevel } from '../../src/read-models/report-buckets/keys.js';
import { cover, type Cover } from '../../src/read-models/report-buckets/window.js';
import { windowCover } from '../../src/read-models/report-buckets/queries.js';
import type { Positioned } from '../../src/read-models/projection.js';
import { ReadModelSet } from '../../src/read-models/read-model-set.js';
import { conversationArb, type Conversation } from '../support/conversations.js';
import { runChats } from '../support/run-chats.js';
import { withoutZeros } from '../support/read-models.js';
import { uniqueName } from '../support/wait.js';
import { mongoUrl, withServers } from '../support/test-servers.js';
import { tempDir } from '../support/temp-dirs.js';
import { propertyRuns } from '../support/property-runs.js';

const IDLE_MS = 1800_000;
const LATE_MS = 300_000;

const params = propertyRuns;

const HOUR = 3_600_000;
const end = (level: TimeLevel, i: number) => (i >= Number.MAX_SAFE_INTEGER ? Infinity : bucketStart(level, i));
const begin = (level: TimeLevel, i: number) => (i <= Number.MIN_SAFE_INTEGER ? -Infinity : bucketStart(level, i));

describe('a report window', () => {
  const bound = fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: Date.UTC(2025, 0, 1), max: Date.UTC(2027, 11, 31) }) },
    // On an hour, day or month edge, and a millisecond either side of one.
    { weight: 3, arbitrary: fc.tuple(fc.integer({ min: Date.UTC(2025, 0, 1), max: Date.UTC(2027, 11, 31) }), fc.constantFrom<TimeLevel>('h', 'd', 'm'), fc.constantFrom(-1, 0, 1))
      .map(([t, level, nudge]) => bucketStart(level, bucketIndex(level, t)) + nudge) },
    { weight: 1, arbitrary: fc.constantFrom(-Infinity, Infinity) },
  );

  /** The cover's pieces tile [from, to) in order, with at most two partial hours, each inside one hour. */
  function expectExact(c: Cover, from: number, to: number, rangesPerLevel: number): boolean {
    const pieces = [
      ...c.buckets.map((r) => [begin(r.level, r.from), end(r.level, r.to)] as const),
      ...c.edges,
    ].filter(([x, y]) => x < y).sort((x, y) => x[0] - y[0]);
    if (!(from < to)) return pieces.length === 0;
    expect(pieces[0]?.[0]).toBe(from);
    expect(pieces[pieces.length - 1]?.[1]).toBe(to);
    for (let i = 1; i < pieces.length; i++) expect(pieces[i]?.[0]).toBe(pieces[i - 1]?.[1]);
    expect(c.edges.length).toBeLessThanOrEqual(2);
    for (const [x, y] of c.edges) {
      expect(y).toBeGreaterThan(x);
      expect(y - x).toBeLessThan(HOUR);
      expect(Math.floor(x / HOUR)).toBe(Math.floor((y - 1) / HOUR));
    }
    // Bounded by the window's shape: at most a few ranges per level.
    for (const level of ['h', 'd', 'm'] as const) expect(c.buckets.filter((r) => r.level === level).length).toBeLessThanOrEqual(rangesPerLevel);
    return true;
  }

  it('is covered exactly once by whole buckets and at most two partial hours', () => {
    fc.assert(fc.property(bound, bound, (a, b) => {
      const [from, to] = a < b ? [a, b] : [b, a];
      return expectExact(cover(from, to), from, to, 2);
    }), params(2000));
  });

  it('is read without the day and month being written now, and still exactly', () => {
    const now = fc.integer({ min: Date.UTC(2025, 0, 1), max: Date.UTC(2027, 11, 31) });
    fc.assert(fc.property(bound, bound, now, (a, b, t) => {
      const [from, to] = a < b ? [a, b] : [b, a];
      const c = windowCover({ from, to }, t);
      for (const r of c.buckets) {
        // This month's and today's buckets are written on every event: a bucket holding `now`
        // may be read only when it holds nothing before the current hour (a day or month that
        // began within it).
        const started = begin(r.level, r.from);
        if (started <= t && t < end(r.level, r.to) && started < Math.floor(t / HOUR) * HOUR) expect.fail(`${r.level} [${r.from}, ${r.to}) holds now ${t} and history before it`);
      }
      return expectExact(c, from, to, 4);
    }), params(2000));
  });
});

/**
 * A store whose next multi-collection write lands only its first `landed` collections and then
 * fails, as a MongoDB write does when the process dies half way (the embedded store would
 * have written all or nothing).
 */
function halfLanding(store: DocumentStore, landed: number): DocumentStore {
  return {
    kind: store.kind,
    collection: (n) => store.collection(n),
    listCollections: () => store.listCollections(),
    ping: () => store.ping(),
    close: () => store.close(),
    bulkWriteMany: async (writes) => {
      for (const w of writes.slice(0, landed)) await store.collection(w.collection).bulkWrite(w.ops);
      throw new Error(`crashed after ${landed} of ${writes.length} collection writes`);
    },
  };
}

/** Applies the events in random batches, some delivered twice, some crashing half-written first, as the live projector and a replay may. */
async function project(store: DocumentStore, events: readonly Positioned[], cuts: readonly number[], again: readonly boolean[], crashes: readonly number[]): Promise<void> {
  const rm = new ReadModelSet(store).at(1);
  let start = 0;
  for (let i = 0; start < events.length; i++) {
    const size = Math.max(1, cuts[i % cuts.length] ?? 1);
    const batch = events.slice(start, start + size);
    const landed = crashes[i % crashes.length] ?? 0;
    if (landed > 0) await expect(applyEvents(new ReadModelSet(halfLanding(store, landed)).at(1), batch)).rejects.toThrow(/crashed after/);
    await applyEvents(rm, batch);
    if (again[i % again.length]) await applyEvents(rm, batch.slice(0, Math.max(1, Math.floor(batch.length / 2))));
    start += size;
  }
}

function built(m: ReturnType<typeof runChats>): ReportBucketDoc[] {
  const b = new ReportBucketBuilder();
  for (const d of m.sessions.values()) b.add('sessions', d);
  for (const d of m.messages.values()) b.add('messages', d);
  for (const d of m.payments.values()) b.add('payments', d);
  for (const d of m.ppvs.values()) b.add('ppvs', d);
  return b.docs();
}

const expected = (m: ReturnType<typeof runChats>): unknown[] => canonicalBuckets(built(m));

function canonicalBuckets(docs: readonly unknown[]): unknown[] {
  return docs.map((d) => withoutZeros(d))
    .filter((d) => Object.keys(d as object).some((k) => !['_id', 'level', 'start', 'accountId', '_rev'].includes(k)))
    .map((d) => { const { _rev: _r, ...rest } = d as Record<string, unknown>; return rest; })
    .sort((x, y) => String((x as { _id: string })._id).localeCompare(String((y as { _id: string })._id)));
}

const caseArb = fc.record({
  conversation: conversationArb({ maxSteps: 60, idleMs: IDLE_MS, lateMs: LATE_MS }),
  cuts: fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 8 }),
  again: fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }),
  // How many collection writes of a batch land before a crash (0: none crashes).
  crashes: fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 5 }),
});

function settled(c: Conversation): Conversation {
  return { ...c, arrivals: [...c.arrivals, { kind: 'tick', at: c.maxAt + LATE_MS + 1 }] };
}

describe.each([
  ['embedded', async () => new EmbeddedStore(tempDir('convops-buckets-'))] as const,
  ...withServers([['mongodb wire', async () => MongoStore.connect(await mongoUrl(), uniqueName('convops_buckets'))] as const]),
])('report buckets on the %s store', (name, open) => {
  it('equal the sum of the final documents\' contributions, however events are batched, redelivered or half-written before a crash', async () => {
    await fc.assert(fc.asyncProperty(caseArb, async ({ conversation, cuts, again, crashes }) => {
      const m = runChats(settled(conversation).arrivals, IDLE_MS, LATE_MS);
      const store = await open();
      try {
        await project(store, m.positioned, cuts, again, crashes);
        const stored = await new ReadModelSet(store).at(1).report_buckets.find({});
        expect(canonicalBuckets(stored)).toEqual(expected(m));
        // Built from the documents, a bucket's time bounds lie inside the fold's (which also
        // count what cancelled out later): true of what it holds, so an edge may read it.
        const folded = new Map(stored.map((d) => [d._id, d]));
        for (const d of built(m)) {
          if (d.level === 'live') {
            expect(d.loAt, d._id).toBeUndefined();
            continue;
          }
          const f = folded.get(d._id);
          if (typeof d.loAt !== 'number' || typeof d.hiAt !== 'number' || !f) continue;
          expect(f.loAt ?? Infinity, d._id).toBeLessThanOrEqual(d.loAt);
          expect(f.hiAt ?? -Infinity, d._id).toBeGreaterThanOrEqual(d.hiAt);
          expect(d.loAt).toBeLessThanOrEqual(d.hiAt);
        }
      } finally {
        await store.close();
      }
    }), params(name === 'embedded' ? 25 : 8));
  }, 120_000);
});
