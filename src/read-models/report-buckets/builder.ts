// Report buckets computed in memory from documents, without the projector: for seeding a
// benchmark's data set and for tests that check the stored buckets against the documents.
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
      }
    }
  }

  docs(): ReportBucketDoc[] {
    return [...this.docs_.values()] as unknown as ReportBucketDoc[];
  }
}
