// An open interval's end as its chatter's replies stand (clock-intervals/queries.ts): a read
// walks the interval once and later reads go on from where it stopped, so what they must get
// right is what arrives after a read: replies come late into a gap the last read took for the
// end, several of them in a chain, and replies after the end that change nothing. Each read is
// checked against the pure rule over all the replies (domain/clocked-time.ts), on both stores.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EmbeddedStore } from '../../src/adapters/store/embedded-store.js';
import { MongoStore } from '../../src/adapters/store/mongo-store.js';
import { clockedEnd } from '../../src/domain/clocked-time.js';
import type { ClockIntervalDoc } from '../../src/read-models/clock-intervals/projection.js';
import { clockedIntervals, onNow } from '../../src/read-models/clock-intervals/queries.js';
import type { MessageDoc } from '../../src/read-models/messages/projection.js';
import { ReadModelSet, type ReadModelCollections } from '../../src/read-models/read-model-set.js';
import { mongoUrl, withServers } from '../support/test-servers.js';
import { propertyRuns } from '../support/property-runs.js';
import { tempDir } from '../support/temp-dirs.js';
import { uniqueName } from '../support/wait.js';

const MIN = 60_000;
const IDLE = 30 * MIN;
const T0 = Date.UTC(2026, 10, 23, 9);
const A = 'acct_ends';

const interval: ClockIntervalDoc = { _id: `${A}:_clock.ann:1`, accountId: A, chatterId: 'ann', inAt: T0, outAt: null, inBy: 'm', outBy: null, outAutomatic: false, lastSeq: 1 };

let n = 0;
const reply = (atMin: number, chatterId = 'ann', sender: MessageDoc['sender'] = 'human', accountId = A): MessageDoc => ({
  _id: `${accountId}:m${++n}`, messageId: `m${n}`, accountId, chatId: '7', chatKey: `${A}:7`, sessionId: null, sender, chatterId, text: 'hi', priceCents: 0,
  sentAt: T0 + atMin * MIN, deleted: false, deletedAt: null, tombstone: false, lastSeq: n,
} as MessageDoc);

async function add(rm: ReadModelCollections, docs: readonly MessageDoc[]): Promise<void> {
  await rm.messages.bulkWrite(docs.map((d) => ({ insertOne: { document: d } })));
}

describe.each([
  ['embedded', async () => new EmbeddedStore(tempDir('convops-ends-'))] as const,
  ...withServers([['mongodb wire', async () => MongoStore.connect(await mongoUrl(), uniqueName('convops_ends'))] as const]),
])('an open interval\'s end, read again as replies arrive, on the %s store', (_name, open) => {
  it('equals the rule over every reply at each read, late replies in the gap included', async () => {
    const store = await open();
    try {
      const models = new ReadModelSet(store);
      await models.ensureIndexes(1);
      const rm = models.at(1);
      await rm.clock_intervals.insertOne(interval);
      const all: number[] = [];
      const check = async (nowMin: number, label: string) => {
        const now = T0 + nowMin * MIN;
        const want = clockedEnd(T0, null, all.filter((m) => m <= nowMin).sort((a, b) => a - b).map((m) => T0 + m * MIN), IDLE, now).end;
        const [got] = await clockedIntervals(rm, {}, T0 - MIN, now + MIN, IDLE, now);
        expect(got?.end, label).toBe(want);
        expect((await onNow(rm, {}, IDLE, now)).length, `${label}: on now`).toBe(want === null ? 1 : 0);
        return want;
      };
      const arrive = async (mins: number[]) => {
        all.push(...mins);
        await add(rm, mins.map((m) => reply(m)));
      };
      await arrive([10]);
      // Others' replies and the fan's never keep ann on.
      await add(rm, [reply(25, 'bob'), reply(26, 'ann', 'fan')]);
      expect(await check(20, 'on after a reply')).toBeNull();
      expect(await check(60, 'idle after the reply')).toBe(T0 + 40 * MIN);
      // A reply sent at 35 comes late: the gap is gone, and so is the end at 40.
      await arrive([35]);
      expect(await check(60, 'a late reply in the gap')).toBeNull();
      expect(await check(70, 'idle after the late reply')).toBe(T0 + 65 * MIN);
      // Two more in a chain, each within the idle time of the one before: ann stayed on.
      await arrive([62, 90]);
      expect(await check(100, 'a chain of late replies')).toBeNull();
      // Read at an earlier instant after a later one: what had happened by then.
      expect(await check(70, 'an earlier instant')).toBeNull();
      // Silence past the idle time, then replies after the end: the end stays.
      expect(await check(130, 'idle again')).toBe(T0 + 120 * MIN);
      await arrive([125, 140]);
      expect(await check(150, 'replies after a gap')).toBe(T0 + 120 * MIN);
      // Back to an instant before the last read's: idling had ended it then too.
      expect(await check(122, 'an earlier instant, ended then')).toBe(T0 + 120 * MIN);
      // Taken in again after a reset (the replies removed, others come): nothing of the old walk stays.
      await rm.messages.deleteMany({ accountId: A });
      all.length = 0;
      await arrive([5, 50]);
      expect(await check(100, 'after removals')).toBe(T0 + 35 * MIN);
      // A day on without a gap: the clock-in lasts a day at most.
      await arrive(Array.from({ length: 80 }, (_, i) => 51 + i * 20));
      expect(await check(1_700, 'past a day')).toBe(T0 + 35 * MIN);
    } finally {
      await store.close();
    }
  });
});

describe('an open interval\'s end against the rule, as replies arrive in any order and reads come at any instant', () => {
  it('equals clockedEnd over the replies stored, at every read', async () => {
    const store = new EmbeddedStore(tempDir('convops-ends-prop-'));
    try {
      const models = new ReadModelSet(store);
      await models.ensureIndexes(1);
      const rm = models.at(1);
      let run = 0;
      await fc.assert(fc.asyncProperty(
        fc.integer({ min: 5, max: 60 }),
        // Replies of hers (minutes from the clock-in, past the day's cap too) in arrival batches, and noise.
        fc.array(fc.array(fc.integer({ min: -30, max: 1_600 }), { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 6 }),
        fc.array(fc.integer({ min: 0, max: 1_700 }), { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        async (idle, batches, instants, reset) => {
          const account = `acct_ends_${++run}`;
          await rm.clock_intervals.insertOne({ ...interval, _id: `${account}:_clock.ann:1`, accountId: account });
          let stored: number[] = [];
          const read = async (nowMin: number) => {
            const now = T0 + nowMin * MIN;
            const want = clockedEnd(T0, null, stored.filter((m) => m <= nowMin).sort((a, b) => a - b).map((m) => T0 + m * MIN), idle * MIN, now).end;
            const got = (await clockedIntervals(rm, { accountId: account }, T0 - MIN, now + MIN, idle * MIN, now))[0];
            expect(got?.end ?? null, `idle ${idle}, read at ${nowMin}, replies ${JSON.stringify([...stored].sort((a, b) => a - b))}`).toBe(want);
          };
          for (const [i, batch] of batches.entries()) {
            await rm.messages.bulkWrite([
              ...batch.map((m) => ({ insertOne: { document: reply(m, 'ann', 'human', account) } })),
              // Not hers, not on this account, not a human reply: never keep her on.
              { insertOne: { document: reply(batch[0] as number, 'bob', 'human', account) } },
              { insertOne: { document: reply((batch[0] as number) + 1, 'ann', 'fan', account) } },
              { insertOne: { document: reply((batch[0] as number) + 2, 'ann', 'human', `${account}_other`) } },
            ]);
            stored.push(...batch);
            for (const at of instants) await read(at);
            if (reset && i === 0) {
              await rm.messages.deleteMany({ accountId: account });
              stored = [];
              await read(instants[0] as number);
            }
          }
        },
      ), propertyRuns(60));
    } finally {
      await store.close();
    }
  }, 120_000);
});
