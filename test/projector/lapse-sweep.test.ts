// The projector's sweep closes sessions past their deadline in the read models ahead of the
// processor (src/projector/lapse-sweep.ts). Whatever instants it runs at, between whatever
// batches: the buckets always equal the contributions of the documents as stored, a swept
// session is what readers showed at that instant, and once the log's own closes are folded the
// read models are exactly those of a projector that never swept. A failure prints fast-check's
// seed: rerun with PROPERTY_SEED / PROPERTY_PATH.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EmbeddedStore } from '../../src/adapters/store/embedded-store.js';
import { shownClose } from '../../src/domain/session-deadline.js';
import { sweepLapsed } from '../../src/projector/lapse-sweep.js';
import { applyEvents } from '../../src/projector/runner.js';
import { Projector } from '../../src/projector/projector.js';
import type { DocumentStore } from '../../src/adapters/store/store.js';
import { createLogger } from '../../src/support/logger.js';
import { topology } from '../../src/topology.js';
import { verifyFigures } from '../../src/read-side/verify.js';
import { ReportBucketBuilder } from '../../src/read-models/report-buckets/builder.js';
import { ReadModelSet, type ReadModelCollections } from '../../src/read-models/read-model-set.js';
import type { SessionDoc } from '../../src/read-models/sessions/projection.js';
import { conversationArb, type Conversation } from '../support/conversations.js';
import { propertyRuns } from '../support/property-runs.js';
import { runChats } from '../support/run-chats.js';
import { withoutZeros } from '../support/read-models.js';
import { tempDir } from '../support/temp-dirs.js';

const IDLE_MS = 1800_000;
const LATE_MS = 300_000;
const HOUR = 3_600_000;

const canonical = (docs: readonly object[], drop: readonly string[] = []): unknown[] => docs
  .map((d) => {
    const rest = { ...withoutZeros(d) as Record<string, unknown> };
    for (const k of ['_rev', ...drop]) delete rest[k];
    return rest;
  })
  .filter((d) => Object.keys(d).some((k) => !['_id', 'level', 'start', 'accountId'].includes(k)))
  .sort((x, y) => String(x._id).localeCompare(String(y._id)));
/** Bucket fields the documents alone cannot give: the events' marks and the time bounds every applied event widened. */
const FOLD_ONLY = ['w', 'loAt', 'hiAt'];

/** The buckets the stored documents add up to, marks and bounds aside (the sweep writes none, and bounds only widen). */
async function bucketsOfDocuments(rm: ReadModelCollections): Promise<unknown[]> {
  const b = new ReportBucketBuilder();
  for (const d of await rm.sessions.find({})) b.add('sessions', d);
  for (const d of await rm.messages.find({})) b.add('messages', d);
  for (const d of await rm.payments.find({})) b.add('payments', d);
  for (const d of await rm.ppvs.find({})) b.add('ppvs', d);
  return canonical(b.docs(), FOLD_ONLY);
}

const settled = (c: Conversation): Conversation => ({ ...c, arrivals: [...c.arrivals, { kind: 'tick', at: c.maxAt + 30 * 86_400_000 }] });

const caseArb = fc.record({
  conversation: conversationArb({ maxSteps: 50, idleMs: IDLE_MS, lateMs: LATE_MS }),
  cuts: fc.array(fc.integer({ min: 1, max: 30 }), { minLength: 1, maxLength: 6 }),
  // Where each sweep's instant falls, in hours from the conversation's first fact (past its end too), and its slice.
  sweeps: fc.array(fc.record({ hours: fc.integer({ min: 0, max: 60 }), limit: fc.integer({ min: 1, max: 5 }) }), { minLength: 1, maxLength: 6 }),
});

describe('sweeping lapsed sessions on the embedded store', () => {
  let sessionsSwept = 0;
  it('keeps the buckets equal to the documents, shows what readers showed, and ends where a projector that never swept ends', async () => {
    await fc.assert(fc.asyncProperty(caseArb, async ({ conversation, cuts, sweeps }) => {
      const m = runChats(settled(conversation).arrivals, IDLE_MS, LATE_MS);
      const first = Math.min(...conversation.facts.map((f) => f.at));
      const swept = new EmbeddedStore(tempDir('convops-sweep-'));
      const plain = new EmbeddedStore(tempDir('convops-nosweep-'));
      try {
        const rm = new ReadModelSet(swept).at(1);
        let start = 0;
        let sweptAny = 0;
        for (let i = 0; start < m.positioned.length; i++) {
          const size = cuts[i % cuts.length] ?? 1;
          await applyEvents(rm, m.positioned.slice(start, start + size));
          start += size;
          const sweep = sweeps[i % sweeps.length];
          if (!sweep) continue;
          const now = first + sweep.hours * HOUR;
          const before = new Map((await rm.sessions.find({})).map((d) => [d._id, d]));
          const { swept: n, more } = await sweepLapsed(rm, now, sweep.limit);
          sweptAny += n;
          expect(n).toBeLessThanOrEqual(sweep.limit);
          expect(more).toBe(n === sweep.limit);
          const after = await rm.sessions.find({});
          let changed = 0;
          for (const d of after) {
            const was = before.get(d._id) as SessionDoc;
            if (was.status === d.status) {
              expect(d.swept === true).toBe(was.swept === true);
              continue;
            }
            // Swept: the close readers showed at that instant, nothing else moved.
            changed++;
            expect(was.status).toBe('open');
            expect(d.swept).toBe(true);
            expect({ status: d.status, closedAt: d.closedAt, closeReason: d.closeReason }).toEqual(shownClose(was, now));
            expect(d.priorityAt).toBeNull();
            expect({ ...d, status: 'open', closedAt: null, closeReason: null, priorityAt: was.priorityAt, swept: undefined, _rev: undefined }).toEqual({ ...was, swept: undefined, _rev: undefined });
          }
          expect(changed).toBe(n);
          expect(canonical(await rm.report_buckets.find({}), FOLD_ONLY)).toEqual(await bucketsOfDocuments(rm));
          // The admin's check agrees: the totals rows (folded from events) still count a swept session open.
          expect((await verifyFigures(rm, {}, now)).differences).toEqual([]);
        }
        // Every session's close came from the log: nothing is left swept, and the read models
        // are those of a projector that never swept.
        await applyEvents(new ReadModelSet(plain).at(1), m.positioned);
        const plainRm = new ReadModelSet(plain).at(1);
        for (const model of ['sessions', 'chats', 'account_stats', 'messages'] as const) {
          expect(canonical(await rm[model].find({})), model).toEqual(canonical(await plainRm[model].find({})));
        }
        expect(canonical(await rm.report_buckets.find({}))).toEqual(canonical(await plainRm.report_buckets.find({})));
        expect((await rm.sessions.find({})).filter((d) => d.swept === true)).toEqual([]);
        sessionsSwept += sweptAny;
      } finally {
        await swept.close();
        await plain.close();
      }
    }), propertyRuns(25));
    // The cases did sweep (a property whose sweeps all found nothing would prove nothing).
    expect(sessionsSwept).toBeGreaterThan(0);
  }, 180_000);
});

/** The same store, saying it is MongoDB's (whose multi-collection writes are not one transaction). */
const asMongo = (store: DocumentStore): DocumentStore => ({
  kind: 'mongo', collection: (n) => store.collection(n), listCollections: () => store.listCollections(), ping: () => store.ping(),
  close: () => store.close(), bulkWriteMany: (w, o) => store.bulkWriteMany(w, o),
});

describe('the projector\'s idle call', () => {
  it('sweeps on the embedded store only, not while the read models switch, and counts what it swept', async () => {
    // Conversations that end open: their sessions lapse by any clock of today.
    const m = fc.sample(conversationArb({ minSteps: 10, maxSteps: 30, idleMs: IDLE_MS, lateMs: LATE_MS }).map((c) => runChats(c.arrivals, IDLE_MS, LATE_MS)).filter((r) => [...r.sessions.values()].some((d) => d.status === 'open' && d.closesAt !== null)), { seed: 53, numRuns: 1 })[0];
    if (!m) throw new Error('no conversation with an open session');
    const store = new EmbeddedStore(tempDir('convops-sweep-idle-'));
    try {
      const set = new ReadModelSet(store);
      const rm = set.at(1);
      await applyEvents(rm, m.positioned);
      const lapsed = async () => (await rm.sessions.find({ status: 'open' })).filter((d) => (d.closesAt ?? Infinity) <= Date.now()).length;
      const before = await lapsed();
      expect(before).toBeGreaterThan(0);
      const logger = createLogger('silent');
      const onMongo = new Projector(asMongo(store), topology('idle'), logger);
      expect(await onMongo.idle()).toBe(false);
      expect(onMongo.counters.sessionsSwept).toBe(0);
      const projector = new Projector(store, topology('idle'), logger);
      await set.pauseProjection(Date.now() + 60_000);
      expect(await projector.idle()).toBe(false);
      expect(await lapsed()).toBe(before);
      await set.switchTo(1, Date.now());
      expect(await projector.idle()).toBe(false);
      expect(await lapsed()).toBe(0);
      expect(projector.counters.sessionsSwept).toBe(before);
      expect((await rm.sessions.find({ swept: true })).length).toBe(before);
    } finally {
      await store.close();
    }
  });
});
