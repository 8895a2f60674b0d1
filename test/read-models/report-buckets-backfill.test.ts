// Read models whose buckets were built by other contribution rules (a marker of an older
// CONTRIBUTIONS_FORMAT) get them built again once, computed from the documents, before the
// projector folds anything else: equal to what folding the events builds, on both stores.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EmbeddedStore } from '../../src/adapters/store/embedded-store.js';
import { MongoStore } from '../../src/adapters/store/mongo-store.js';
import type { BulkOp, Doc, DocumentStore } from '../../src/adapters/store/store.js';
import { applyEvents } from '../../src/projector/runner.js';
import { ensureReportBuckets } from '../../src/read-models/report-buckets/backfill.js';
import { CONTRIBUTIONS_FORMAT } from '../../src/read-models/report-buckets/contributions.js';
import { META_COLLECTION, ReadModelSet } from '../../src/read-models/read-model-set.js';
import { createLogger } from '../../src/support/logger.js';
import { conversationArb } from '../support/conversations.js';
import { withoutZeros } from '../support/read-models.js';
import { runChats } from '../support/run-chats.js';
import { uniqueName } from '../support/wait.js';
import { mongoUrl, withServers } from '../support/test-servers.js';
import { tempDir } from '../support/temp-dirs.js';

const IDLE_MS = 1800_000;
const LATE_MS = 300_000;
const logger = createLogger('silent');

const meaning = (docs: readonly Doc[]) => docs.map((d) => withoutZeros(d)).sort((a, b) => String((a as Doc)._id).localeCompare(String((b as Doc)._id)));

describe.each([
  ['embedded', async () => new EmbeddedStore(tempDir('convops-backfill-'))] as const,
  ...withServers([['mongodb wire', async () => MongoStore.connect(await mongoUrl(), uniqueName('convops_backfill'))] as const]),
])('report buckets built by other contribution rules, on the %s store', (_name, open) => {
  it('are built from the documents, page by page, equal to folding the events, once', async () => {
    const [conversation] = fc.sample(conversationArb({ minSteps: 40, maxSteps: 60, idleMs: IDLE_MS, lateMs: LATE_MS }), { numRuns: 1, seed: 14 });
    const m = runChats([...(conversation?.arrivals ?? []), { kind: 'tick', at: (conversation?.maxAt ?? 0) + LATE_MS + 1 }], IDLE_MS, LATE_MS);
    const [folded, old] = [await open(), await open()];
    try {
      await applyEvents(new ReadModelSet(folded).at(1), m.positioned);
      // The documents, and buckets the previous rules built (here: one that no document holds).
      const rm = new ReadModelSet(old).at(1);
      const insert = (docs: Iterable<Doc>) => [...docs].map((d): BulkOp<Doc> => ({ insertOne: { document: d } }));
      await rm.sessions.bulkWrite(insert(m.sessions.values()) as never);
      await rm.messages.bulkWrite(insert(m.messages.values()) as never);
      await rm.payments.bulkWrite(insert(m.payments.values()) as never);
      await rm.ppvs.bulkWrite(insert(m.ppvs.values()) as never);
      await rm.clock_intervals.bulkWrite(insert(m.clockIntervals.values()) as never);
      await rm.report_buckets.insertOne({ _id: 'stale', level: 'hour', start: 0, accountId: 'acct', opened: 99 } as never);
      await old.collection(META_COLLECTION).insertOne({ _id: `report-buckets-v1-f${CONTRIBUTIONS_FORMAT - 1}`, state: 'built', at: 1 });

      await ensureReportBuckets(old, new ReadModelSet(old), 1, logger, Date.now, 7);
      const built = await rm.report_buckets.find({});
      expect(built.length).toBeGreaterThan(0);
      const buckets = (s: DocumentStore) => new ReadModelSet(s).at(1).report_buckets.find({});
      expect(meaning(built.map(({ w: _w, ...d }) => d as Doc))).toEqual(meaning((await buckets(folded)).map(({ w: _w, ...d }) => d as Doc)));
      const marker = await old.collection(META_COLLECTION).findOne({ _id: `report-buckets-v1-f${CONTRIBUTIONS_FORMAT}` });
      expect(marker).toMatchObject({ state: 'built' });

      // Once: a second start leaves the buckets (and what was folded since) alone.
      await rm.report_buckets.deleteMany({});
      await ensureReportBuckets(old, new ReadModelSet(old), 1, logger);
      expect(await rm.report_buckets.countDocuments({})).toBe(0);
    } finally {
      await folded.close();
      await old.close();
    }
  }, 60_000);
});
