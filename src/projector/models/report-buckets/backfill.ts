// Read models built before report buckets existed have documents but no buckets. Before the
// projector folds anything into such a version, the buckets are computed once from its
// documents (the same contributions the fold uses), page by page. One process builds, claimed
// by a marker document; the others wait for it. A replay builds its version's buckets from
// events, so it marks its version as built from the start.
import { DuplicateKeyError, type BulkOp, type Collection, type Doc, type DocumentStore } from '../../../adapters/store/store.js';
import type { Logger } from '../../../support/logger.js';
import { META_COLLECTION, type ReadModelSet } from '../../read-model-set.js';
import { ReportBucketBuilder } from './builder.js';
import type { BucketedModel } from './contributions.js';
import type { ReportBucketDoc } from './document.js';

const PAGE = 5_000;
/** A build whose marker has not moved for this long died with its process. */
const STALE_MS = 120_000;

interface MarkerDoc extends Doc {
  state: 'building' | 'built';
  at: number;
  documents?: number;
}

const markerId = (version: number): string => `report-buckets-v${version}`;

export async function markReportBucketsBuilt(store: DocumentStore, version: number): Promise<void> {
  await store.collection<MarkerDoc>(META_COLLECTION).replaceOne({ _id: markerId(version) }, { _id: markerId(version), state: 'built', at: Date.now() }, { upsert: true });
}

export async function ensureReportBuckets(store: DocumentStore, models: ReadModelSet, version: number, logger: Logger, clock: () => number = Date.now, page = PAGE): Promise<void> {
  const markers = store.collection<MarkerDoc>(META_COLLECTION);
  const id = markerId(version);
  const rm = models.at(version);
  for (;;) {
    const marker = await markers.findOne({ _id: id });
    if (marker?.state === 'built') return;
    if (!marker) {
      // Nothing folded yet: the fold builds the buckets as it goes.
      if ((await rm.sessions.countDocuments({})) === 0 && (await rm.messages.countDocuments({})) === 0 && (await rm.payments.countDocuments({})) === 0) {
        await markReportBucketsBuilt(store, version);
        return;
      }
      try {
        await markers.insertOne({ _id: id, state: 'building', at: clock() });
      } catch (err) {
        if (err instanceof DuplicateKeyError || (err as { code?: number }).code === 11000) continue;
        throw err;
      }
      await build(store, models, version, logger, clock, page);
      return;
    }
    if (clock() - marker.at > STALE_MS) {
      // Taken over by one conditional write, so two processes never build at once.
      const taken = await markers.updateOne({ _id: id, state: 'building', at: marker.at }, { $set: { at: clock() } });
      if (taken.matched === 1) {
        await build(store, models, version, logger, clock, page);
        return;
      }
    }
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

async function build(store: DocumentStore, models: ReadModelSet, version: number, logger: Logger, clock: () => number, pageSize: number): Promise<void> {
  const rm = models.at(version);
  const markers = store.collection<MarkerDoc>(META_COLLECTION);
  logger.warn({ version }, 'read models predate report buckets: building them from the stored documents before projecting (once)');
  const started = clock();
  const builder = new ReportBucketBuilder();
  let documents = 0;
  const sources: [BucketedModel, Collection<Doc>][] = [
    ['sessions', rm.sessions as unknown as Collection<Doc>], ['messages', rm.messages as unknown as Collection<Doc>], ['payments', rm.payments as unknown as Collection<Doc>],
  ];
  for (const [model, c] of sources) {
    let last: string | null = null;
    for (;;) {
      const page: Doc[] = await c.find(last === null ? {} : { _id: { $gt: last } }, { sort: { _id: 1 }, limit: pageSize });
      for (const d of page) builder.add(model, d);
      documents += page.length;
      if (page.length < pageSize) break;
      last = page[page.length - 1]?._id ?? null;
      await markers.updateOne({ _id: markerId(version) }, { $set: { at: clock(), documents } });
    }
  }
  await rm.report_buckets.deleteMany({});
  const docs = builder.docs();
  for (let i = 0; i < docs.length; i += PAGE) {
    await rm.report_buckets.bulkWrite(docs.slice(i, i + PAGE).map((d): BulkOp<ReportBucketDoc> => ({ insertOne: { document: d } })));
  }
  await markers.replaceOne({ _id: markerId(version) }, { _id: markerId(version), state: 'built', at: clock(), documents });
  logger.warn({ version, documents, buckets: docs.length, ms: clock() - started }, 'report buckets built');
}
