// The projector's sweep of lapsed sessions: those still open in the store whose deadline has
// passed by the clock are written as readers already show them, closed at their deadline
// (read-models/sessions/lapse.ts), and their report-bucket contributions move with them, so
// every count that readers used to correct session by session is a counter again.
//
// One store write per slice: each session's replace is conditional on the revision it was read
// at, and the buckets' increments carry no event mark, so the write must be all or nothing,
// which only the embedded store's transaction gives. On MongoDB (writes land one collection
// after another) nothing is swept and readers keep correcting lapsed sessions on each read.
import type { BulkOp, Doc } from '../adapters/store/store.js';
import type { ReadModelCollections } from '../read-models/read-model-set.js';
import { transitionIncrements } from '../read-models/report-buckets/contributions.js';
import { BucketWrites, type ReportBucketDoc } from '../read-models/report-buckets/document.js';
import { REPORT_BUCKETS, SESSIONS, type ReadModelName } from '../read-models/names.js';
import { sweptSession } from '../read-models/sessions/lapse.js';
import { pastDeadlineFilter } from '../domain/session-deadline.js';
import type { SessionDoc } from '../read-models/sessions/projection.js';

/**
 * Sessions swept per store write. Each write also rewrites every report bucket the slice
 * touches, some of them large (a month's, all time's, a day's shift facts: about 300 ms a
 * slice on 2 cores with 17,000 sessions an account-day, against 0.1 ms a session), so slices
 * are not small. The write holds the event loop throughout (it does not take turns: an lmdb
 * transaction open across turns is what reads in this process would see, half written).
 */
export const SWEEP_SLICE = 1_000;

export interface SweepResult {
  readonly swept: number;
  /** The slice was full: more sessions may be past their deadline. */
  readonly more: boolean;
}

/** Sweeps up to `limit` sessions open in `rm` whose deadline is at or before `now`. */
export async function sweepLapsed(rm: ReadModelCollections, now: number, limit = SWEEP_SLICE): Promise<SweepResult> {
  const lapsed = await rm.sessions.find(pastDeadlineFilter(now), { sort: { closesAt: 1 }, limit });
  if (lapsed.length === 0) return { swept: 0, more: false };
  const swept = lapsed.map(sweptSession);
  const increments = lapsed.map((s, i) => transitionIncrements('sessions', s, swept[i]));
  const ids = new Set<string>();
  for (const i of increments) BucketWrites.addIds(i, ids);
  const loaded = new Map<string, ReportBucketDoc>();
  if (ids.size > 0) for (const d of await rm.report_buckets.find({ _id: { $in: [...ids] } })) loaded.set(d._id, d);
  const buckets = new BucketWrites(loaded);
  for (const i of increments) buckets.addUnmarked(i);
  const { inserts, updates } = buckets.ops();
  const docs = lapsed.map((s, i): BulkOp<Doc> => {
    const stored = (s as SessionDoc & { _rev?: unknown })._rev;
    const rev = typeof stored === 'number' ? stored : null;
    return { replaceOne: { filter: { _id: s._id, _rev: rev }, replacement: { ...(swept[i] as SessionDoc), _rev: (rev ?? 0) + 1 }, requireMatch: true } };
  });
  // The sessions first: one a round changed since it was read fails the write before any bucket is touched.
  const writes: { model: ReadModelName; ops: BulkOp<Doc>[] }[] = [
    { model: SESSIONS, ops: docs },
    { model: REPORT_BUCKETS, ops: inserts as BulkOp<Doc>[] },
    { model: REPORT_BUCKETS, ops: updates as BulkOp<Doc>[] },
  ];
  await rm.writeAll(writes.filter((w) => w.ops.length > 0));
  return { swept: lapsed.length, more: lapsed.length === limit };
}
