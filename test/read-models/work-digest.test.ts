// The shift figures' facts per session, payment and clock interval (report-buckets/work-digest.ts),
// folded through the projector's own bucket writes on both stores: what a window reads back is
// each document as it stands now, in its account's day and nowhere else, whatever it was before.
import { describe, expect, it } from 'vitest';
import { EmbeddedStore } from '../../src/adapters/store/embedded-store.js';
import { MongoStore } from '../../src/adapters/store/mongo-store.js';
import type { BulkOp } from '../../src/adapters/store/store.js';
import type { ClockIntervalDoc } from '../../src/read-models/clock-intervals/projection.js';
import type { PaymentDoc } from '../../src/read-models/payments/projection.js';
import { ReadModelSet, type ReadModelCollections } from '../../src/read-models/read-model-set.js';
import { transitionIncrements, type BucketedModel } from '../../src/read-models/report-buckets/contributions.js';
import { BucketWrites, type ReportBucketDoc } from '../../src/read-models/report-buckets/document.js';
import { workIn } from '../../src/read-models/report-buckets/work-digest.js';
import type { SessionDoc } from '../../src/read-models/sessions/projection.js';
import { mongoUrl, withServers } from '../support/test-servers.js';
import { tempDir } from '../support/temp-dirs.js';
import { uniqueName } from '../support/wait.js';

const DAY = 86_400_000;
const D = Date.UTC(2026, 10, 23);
const A = 'acct_work';

const session = (over: Partial<SessionDoc>): SessionDoc => ({
  _id: `${A}:501:1`, accountId: A, chatId: '501', status: 'open', openedAt: D + 3_600_000, closedAt: null, closeReason: null, lastActivityAt: D + 3_600_000,
  awaiting: true, lastHumanChatterId: null, firstFanMessageAt: D + 3_600_000, firstResponseAt: null, firstResponseSec: null, firstResponderId: null, ...over,
} as unknown as SessionDoc);

const payment = (over: Partial<PaymentDoc>): PaymentDoc => ({
  _id: `${A}:tx1`, paymentId: 'tx1', accountId: A, chatId: '501', paidAt: D + 4_000_000, grossCents: 2500, chatterId: 'ann', ...over,
} as unknown as PaymentDoc);

const interval = (over: Partial<ClockIntervalDoc>): ClockIntervalDoc => ({
  _id: `${A}:_clock.ann:1`, accountId: A, chatterId: 'ann', inAt: D - 2 * 3_600_000, outAt: null, inBy: 'm', outBy: null, outAutomatic: false, lastSeq: 1, ...over,
});

/** Each change through the projector's bucket writes, one event each, as a round writes them. */
async function fold(rm: ReadModelCollections, changes: readonly [BucketedModel, unknown, unknown][]): Promise<void> {
  let offset = 0;
  for (const [model, before, after] of changes) {
    const increments = transitionIncrements(model, before, after);
    const loaded = new Map((await rm.report_buckets.find({ _id: { $in: BucketWrites.idsOf(increments) } })).map((d) => [d._id, d]));
    const writes = new BucketWrites(loaded);
    writes.add({ partition: 0, offset: offset++, id: `e${offset}` }, increments);
    const { inserts, updates } = writes.ops();
    await rm.writeAll([{ model: 'report_buckets' as const, ops: inserts as BulkOp<never>[] }, { model: 'report_buckets' as const, ops: updates as BulkOp<never>[] }].filter((w) => w.ops.length > 0));
  }
}

describe.each([
  ['embedded', async () => new EmbeddedStore(tempDir('convops-work-'))] as const,
  ...withServers([['mongodb wire', async () => MongoStore.connect(await mongoUrl(), uniqueName('convops_work'))] as const]),
])('the shift figures\' facts per account and day, on the %s store', (_name, open) => {
  it('read back each session, payment and clock interval as it stands now, in its own day only', async () => {
    const store = await open();
    try {
      const rm = new ReadModelSet(store).at(1);
      const waiting = session({});
      // Answered in no time at all (0 s must not read as "not answered"), by ann.
      const answered = session({ awaiting: false, firstResponseAt: D + 3_600_000, firstResponseSec: 0, firstResponderId: 'ann', lastHumanChatterId: 'ann' });
      // Reassigned to bob, then closed.
      const bobs = { ...answered, firstResponderId: 'bob', lastHumanChatterId: 'bob' } as SessionDoc;
      const closed = { ...bobs, status: 'closed', closedAt: D + 5_000_000, closeReason: 'idle' } as unknown as SessionDoc;
      // A second session whose first fan message moves back to the day before (a late record).
      const late = session({ _id: `${A}:502:1`, chatId: '502', firstFanMessageAt: D + 600_000 });
      const moved = { ...late, firstFanMessageAt: D - 600_000 } as SessionDoc;
      const toCat = payment({ late: true, override: { chatterId: 'cat', by: 'm', at: D, reason: 'r' } } as Partial<PaymentDoc>);
      const overridden = payment({ late: true, override: { chatterId: 'dan', by: 'm', at: D, reason: 'r' } } as Partial<PaymentDoc>);
      // Answered by a reply stamped a second before the fan's message: -1 s is answered too.
      const early = session({ _id: `${A}:503:1`, chatId: '503', firstFanMessageAt: D + 7_200_000, firstResponseAt: D + 7_199_000, firstResponseSec: -1, firstResponderId: 'ann' });
      const out = interval({ outAt: D + 3_000_000, outBy: 'm', outAutomatic: true, lastSeq: 2 });
      await fold(rm, [
        ['sessions', undefined, waiting], ['sessions', waiting, answered], ['sessions', answered, bobs], ['sessions', bobs, closed],
        ['sessions', undefined, late], ['sessions', late, moved],
        ['sessions', undefined, early],
        ['payments', undefined, payment({})], ['payments', payment({}), toCat], ['payments', toCat, overridden],
        ['clock_intervals', undefined, interval({})], ['clock_intervals', interval({}), out],
        ['clock_intervals', undefined, interval({ _id: `${A}:_clock.bob:1`, chatterId: 'bob', inAt: D + 60_000 })],
      ]);

      const day = await workIn(rm, {}, D, D + DAY);
      expect(day.sessions).toEqual([
        { accountId: A, firstFanMessageAt: D + 3_600_000, waitEnd: D + 3_600_000, firstResponderId: 'bob', firstResponseSec: 0 },
        { accountId: A, firstFanMessageAt: D + 7_200_000, waitEnd: D + 7_199_000, firstResponderId: 'ann', firstResponseSec: -1 },
      ]);
      expect(day.payments).toEqual([{
        accountId: A, paidAt: D + 4_000_000, grossCents: 2500, uncredited: true, overrideChatterId: 'dan',
        credited: { session: 'dan', sender: 'dan', converter: 'dan' },
      }]);
      // The clock interval begun the day before and ended in this day is this day's too; bob's is open.
      expect(day.intervals.map(({ id: _id, ...i }) => i)).toEqual([
        { accountId: A, chatterId: 'ann', inAt: D - 2 * 3_600_000, outAt: D + 3_000_000, outAutomatic: true },
        { accountId: A, chatterId: 'bob', inAt: D + 60_000, outAt: null, outAutomatic: false },
      ]);
      // The session that moved is the day before's, and only that day's.
      const before = await workIn(rm, {}, D - DAY, D);
      expect(before.sessions).toEqual([{ accountId: A, firstFanMessageAt: D - 600_000, waitEnd: null, firstResponderId: null, firstResponseSec: null }]);
      // Another account's scope sees none of it.
      const other = await workIn(rm, { accountId: 'acct_other' }, D - DAY, D + DAY);
      expect([other.sessions, other.payments, other.intervals, other.dayDoc(A, D)]).toEqual([[], [], [], undefined]);
      // The day documents read, as handed out: what a kept shift row is checked against.
      expect(day.dayDoc(A, D + 5_000_000)).toBeDefined();
      expect(day.dayDoc(A, D + DAY)).toBeUndefined();

      // The facts live in day documents of their own: no figure bucket (hour, day, month, all time) carries them.
      const docs: ReportBucketDoc[] = await rm.report_buckets.find({});
      const carries = (d: ReportBucketDoc) => ['ws', 'wp', 'wi'].some((k) => k in d);
      expect(docs.filter(carries).map((d) => d._id.split('|')[0])).toEqual(['wd', 'wd']);
      expect(docs.filter((d) => !carries(d)).every((d) => !d._id.startsWith('w'))).toBe(true);
    } finally {
      await store.close();
    }
  }, 60_000);
});
