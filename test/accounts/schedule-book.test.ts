// Which schedule closes a wait: the one in force when its message was received, so processing
// the same records again closes them the same way whatever the schedule is now. Through the
// real store (embedded, and the Mongo-wire server) and the processor's copy of the versions.
import { rmSync } from 'node:fs';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BusinessHoursStore, ScheduleBook } from '../../src/accounts/business-hours-store.js';
import { EmbeddedStore } from '../../src/adapters/store/embedded-store.js';
import { MongoStore } from '../../src/adapters/store/mongo-store.js';
import type { DocumentStore } from '../../src/adapters/store/store.js';
import { mongoUrl, withServers } from '../support/test-servers.js';
import { tempDir } from '../support/temp-dirs.js';
import { uniqueName } from '../support/wait.js';

const dirs: string[] = [];
afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });

const STORES: readonly (readonly [string, () => Promise<DocumentStore>])[] = [
  ['embedded', async () => {
    const dir = tempDir('convops-schedules-');
    dirs.push(dir);
    return new EmbeddedStore(dir);
  }],
  ...withServers([['mongodb wire', async () => MongoStore.connect(await mongoUrl(), uniqueName('convops_schedules'))] as const]),
];

const HOUR = 3_600_000;
const OFFICE = { timezone: 'UTC', weekly: { mon: [['09:00', '17:00']], tue: [['09:00', '17:00']], wed: [['09:00', '17:00']], thu: [['09:00', '17:00']], fri: [['09:00', '17:00']] }, holidays: [] } as const;
// Friday 2026-11-20 16:00 UTC: an hour before the close.
const FRIDAY_4PM = Date.parse('2026-11-20T16:00:00Z');

describe.each(STORES)('the schedule book on %s', (_name, open) => {
  let store: DocumentStore;
  beforeEach(async () => { store = await open(); });
  afterEach(async () => { await store.close(); });

  it('a wait takes the schedule in force when its message was received: none, then office hours, then none again', async () => {
    const schedules = new BusinessHoursStore(store);
    const [t1, t2] = [Date.parse('2026-11-25T00:00:00Z'), Date.parse('2026-11-27T00:00:00Z')];
    await schedules.set('acct_1', OFFICE, t1);
    await schedules.remove('acct_1', t2);
    const book = new ScheduleBook(schedules);
    await book.refresh();
    // Two hours of open time from Friday 16:00: one on Friday, one on Monday (10:00).
    expect(book.limitEnd('acct_1', t1 - 1, FRIDAY_4PM, 2 * HOUR)).toBeUndefined();
    expect(book.limitEnd('acct_1', t1, FRIDAY_4PM, 2 * HOUR)).toBe(Date.parse('2026-11-23T10:00:00Z'));
    expect(book.limitEnd('acct_1', t2 - 1, FRIDAY_4PM, 2 * HOUR)).toBe(Date.parse('2026-11-23T10:00:00Z'));
    expect(book.limitEnd('acct_1', t2, FRIDAY_4PM, 2 * HOUR)).toBeUndefined();
    expect(book.limitEnd('acct_other', t1, FRIDAY_4PM, 2 * HOUR)).toBeUndefined();
  });

  it('a schedule saved before versions were kept counts from when it was saved, also after the next change; purging the account drops its history', async () => {
    const schedules = new BusinessHoursStore(store);
    const saved = Date.parse('2026-11-01T00:00:00Z');
    await schedules.schedules.replaceOne({ _id: 'acct_2' }, { _id: 'acct_2', ...OFFICE, updatedAt: saved }, { upsert: true });
    const book = new ScheduleBook(schedules);
    await book.refresh();
    expect(book.limitEnd('acct_2', saved - 1, FRIDAY_4PM, 2 * HOUR)).toBeUndefined();
    expect(book.limitEnd('acct_2', saved, FRIDAY_4PM, 2 * HOUR)).toBe(Date.parse('2026-11-23T10:00:00Z'));
    // The first versioned save keeps the old schedule as the version from when it was saved:
    // a record received under it is judged by it again on any later reprocessing.
    await schedules.remove('acct_2', saved + 1);
    expect(await schedules.history.countDocuments({ accountId: 'acct_2' })).toBe(2);
    const again = new ScheduleBook(schedules);
    await again.refresh();
    expect(again.limitEnd('acct_2', saved, FRIDAY_4PM, 2 * HOUR)).toBe(Date.parse('2026-11-23T10:00:00Z'));
    expect(again.limitEnd('acct_2', saved + 1, FRIDAY_4PM, 2 * HOUR)).toBeUndefined();
    await schedules.removeMany(['acct_2']);
    expect(await schedules.history.countDocuments({ accountId: 'acct_2' })).toBe(0);
  });
});
