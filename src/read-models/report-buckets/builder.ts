// Report buckets computed in memory from documents, without the projector: for seeding a
// benchmark's data set, for rebuilding a version's buckets (backfill.ts), and for tests that check
// the stored buckets against the documents. Each time bucket gets the bounds of the contribution
// times it took (loAt, hiAt), as the projector's folds keep them: what lets a window's partial end
// read a bucket instead of the raw documents (edges.ts). From documents these are the times of
// what the bucket holds now (the fold's also count what later cancelled out), which is all that
// reading it in place of the documents needs.
import type { Doc } from '../../adapters/store/store.js';
import { addAt, addressesOf, type ReportBucketDoc } from './document.js';
import { incrementsOf, type BucketedModel } from './contributions.js';

export class ReportBucketBuilder {
  private readonly docs_ = new Map<string, Record<string, unknown>>();

  add(model: BucketedModel, doc: Doc): void {
    for (const i of incrementsOf(model, doc)) {
      for (const a of addressesOf(i)) {
        let d = this.docs_.get(a.id);
        if (!d) {
          d = { _id: a.id, level: a.level, start: a.start, accountId: a.accountId };
          this.docs_.set(a.id, d);
        }
        addAt(d, i.field, i.amount);
        if (i.at !== null && a.level !== 'live') {
          if (typeof d.loAt !== 'number' || i.at < d.loAt) d.loAt = i.at;
          if (typeof d.hiAt !== 'number' || i.at > d.hiAt) d.hiAt = i.at;
        }
      }
    }
  }

  docs(): ReportBucketDoc[] {
    return [...this.docs_.values()] as unknown as ReportBucketDoc[];
  }
}
