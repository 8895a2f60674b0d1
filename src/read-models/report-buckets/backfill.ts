// A read-model version's buckets are built by the rules of one CONTRIBUTIONS_FORMAT, which a
// marker document in `meta` names. When a projector starts on a version that has documents but
// no marker for the current format (what a document contributes changed since they were
// folded), the buckets are computed again once from its documents (the same contributions the
// fold uses), page by page, before the projector folds anything into it. One process builds,
// holding the marker document as a lease (adapters/store/lease.ts) while it is `building`; the
// others wait for it, and take it over if its builder stops renewing it. A version with no
// documents yet, and one a replay builds from events, is marked built from the start.
import { randomUUID } from 'node:crypto';
import type { BulkOp, Collection, Doc, DocumentStore } from '../../adapters/store/store.js';
import { Lease } from '../../adapters/store/lease.js';
import type { Logger } from '../../support/logger.js';
import { META_COLLECTION, type ReadModelSet } from '../read-model-set.js';
import { ReportBucketBuilder } from './builder.js';
import { CONTRIBUTIONS_FORMAT, type BucketedModel } from './contributions.js';
import type { ReportBucketDoc } from './document.js';

const PAGE = 5_000;
/** A build whose marker has not moved for this long died with its process. */
const STALE_MS = 120_000;

interface MarkerDoc extends Doc {
  state: 'building' | 'built';
  /** The last renewal while building; when it was built after. */
  at: number;
  /** Who builds (absent on a marker written as built: markReportBucketsBuilt). */
  builder?: string | null;
  documents?: number;
}

const markerId = (version: number): string => `report-buckets-v${version}-f${CONTRIBUTIONS_FORMAT}`;

function buildLease(store: DocumentStore, version: number, clock: () => number): Lease {
  return new Lease(store, {
    collection: META_COLLECTION, id: markerId(version), staleMs: STALE_MS, ownerField: 'builder', beatField: 'at',
    where: { state: 'building' }, create: { state: 'building' }, clock,
  });
}

/** Another process took the build over (this one stopped renewing the marker in time). */
class BuildTakenOver extends Error {}

export async function markReportBucketsBuilt(store: DocumentStore, version: number): Promise<void> {
  await store.collection<MarkerDoc>(META_COLLECTION).replaceOne({ _id: markerId(version) }, { _id: markerId(version), state: 'built', at: Date.now() }, { upsert: true });
}

export async function ensureReportBuckets(store: DocumentStore, models: ReadModelSet, version: number, logger: Logger, clock: () => number = Date.now, page = PAGE): Promise<void> {
  const markers = store.collection<MarkerDoc>(META_COLLECTION);
  const id = markerId(version);
  const rm = models.at(version);
  const lease = buildLease(store, version, clock);
  const me = randomUUID();
  for (;;) {
    const marker = await markers.findOne({ _id: id });
    if (marker?.state === 'built') return;
    // Nothing folded yet: the fold builds the buckets as it goes.
    if (!marker && (await rm.sessions.countDocuments({})) === 0 && (await rm.messages.countDocuments({})) === 0 && (await rm.payments.countDocuments({})) === 0 && (await rm.clock_intervals.countDocuments({})) === 0) {
      await markReportBucketsBuilt(store, version);
      return;
    }
    // Created when missing, taken over when its builder stopped renewing it: two processes never build at once.
    if (await lease.acquire(me)) {
      try {
        await build(store, models, version, logger, clock, page, lease, me);
        return;
      } catch (err) {
        if (!(err instanceof BuildTakenOver)) throw err;
        logger.warn({ version }, 'report-bucket build taken over by another process; waiting for it');
      }
    }
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

async function build(store: DocumentStore, models: ReadModelSet, version: number, logger: Logger, clock: () => number, pageSize: number, lease: Lease, me: string): Promise<void> {
  const rm = models.at(version);
  logger.warn({ version, format: CONTRIBUTIONS_FORMAT }, 'report buckets not built by the current contributions format: building them from the stored documents before projecting (once)');
  const started = clock();
  const builder = new ReportBucketBuilder();
  let documents = 0;
  const sources: [BucketedModel, Collection<Doc>][] = [
    ['sessions', rm.sessions as unknown as Collection<Doc>], ['messages', rm.messages as unknown as Collection<Doc>], ['payments', rm.payments as unknown as Collection<Doc>], ['ppvs', rm.ppvs as unknown as Collection<Doc>],
    ['clock_intervals', rm.clock_intervals as unknown as Collection<Doc>],
  ];
  for (const [model, c] of sources) {
    let last: string | null = null;
    for (;;) {
      const page: Doc[] = await c.find(last === null ? {} : { _id: { $gt: last } }, { sort: { _id: 1 }, limit: pageSize });
      for (const d of page) builder.add(model, d);
      documents += page.length;
      if (page.length < pageSize) break;
      last = page[page.length - 1]?._id ?? null;
      if (!(await lease.renew(me, { documents }))) throw new BuildTakenOver();
    }
  }
  await rm.report_buckets.deleteMany({});
  const docs = builder.docs();
  for (let i = 0; i < docs.length; i += PAGE) {
    await rm.report_buckets.bulkWrite(docs.slice(i, i + PAGE).map((d): BulkOp<ReportBucketDoc> => ({ insertOne: { document: d } })));
  }
  // Built only by its holder: one that lost the marker leaves the state to its successor.
  if (!(await lease.renew(me, { state: 'built', documents }))) throw new BuildTakenOver();
  logger.warn({ version, documents, buckets: docs.length, ms: clock() - started }, 'report buckets built');
}
