// An open interval's end as its chatter's replies stand (clock-intervals/queries.ts): a read
// walks the interval once and later reads go on from where it stopped, so what they must get
// right is what arrives after a read: replies come late into a gap the last read took for the
// end, several of them in a chain, and replies after the end that change nothing. Each read is
// checked against the pure rule over all the replies (domain/clocked-time.ts), on both stores.
import { describe, expect, it } from 'vitest';
import { EmbeddedStore } from '../../src/adapters/store/embedded-store.js';
import { MongoStore } from '../../src/adapters/store/mongo-store.js';
import { clockedEnd } from '../../src/domain/clocked-time.js';
import type { ClockIntervalDoc } from '../../src/read-models/clock-intervals/projection.js';
import { clockedIntervals, onNow } from '../../src/read-models/clock-intervals/queries.js';
import type { MessageDoc } from '../../src/read-models/messages/projection.js';
import { ReadModelSet, type ReadModelCollections } from '../../src/read-models/read-model-set.js';
import { mongoUrl, withServers } from '../support/test-servers.js';
import { tempDir } from '../support/temp-dirs.js';
import { uniqueName } from '../support/wait.js';

const MIN = 60_000;
const IDLE = 30 * MIN;
const T0 = Date.UTC(2026, 10, 23, 9);
const A = 'acct_ends';

const interval: ClockIntervalDoc = { _id: `${A}:_clock.ann:1`, accountId: A, chatterId: 'ann', inAt: T0, outAt: null, inBy: 'm', outBy: null, outAutomatic: false, lastSeq: 1 };

let n = 0;
const reply = (atMin: number, chatterId = 'ann', sender: MessageDoc['sender'] = 'human'): MessageDoc => ({
  _id: `${A}:m${++n}`, messageId: `m${n}`, accountId: A, chatId: '7', chatKey: `${A}:7`, sessionId: null, sender, chatterId, text: 'hi', priceCents: 0,
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
    } finally {
      await store.close();
    }
  });
});
