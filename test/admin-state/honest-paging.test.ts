// Honest paging: a page that says `hasMore: true` but gives no next-page link is followed by
// the marker it did give, or the job fails naming the endpoint and the missing link. A job is
// `done` only when the platform said there is nothing more. The app is the test harness's
// (inject(), no port), on the embedded store and log and on Kafka and MongoDB; the fake platform
// listens on a port of its own, since the platform client reaches it over HTTP as it would the
// real one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformClient, PlatformError } from '../../src/adapters/platform/platform-client.js';
import { kafkaMongoEnv, startHarness, type Harness } from '../support/app-harness.js';
import { DEPLOYMENTS, type Deployment } from '../support/deployments.js';
import { FakePlatform } from '../support/fake-platform.js';
import { eventually } from '../support/wait.js';

const ADMIN = 'admin-token-for-admin-state-0000';
const SINCE = '2026-01-01T00:00:00Z';
// 30 chats × 5 = 150 transactions: two pages of at most 100.
const SIZE = { chats: 30, messages: 10, transactions: 5 };
const TRANSACTIONS = SIZE.chats * SIZE.transactions;

interface Job { id: string; state: string; progress: { chats: number; messages: number; transactions: number }; errors: { message: string }[]; statusUrl: string }

async function settled(app: Harness, kind: 'backfill' | 'backfill-transactions'): Promise<Job> {
  const res = await app.call<Job>('POST', `/api/admin/${kind}`, { token: ADMIN, body: { since: SINCE } });
  expect(res.status).toBe(202);
  const job = res.body;
  return eventually(async () => {
    const j = (await app.call<Job>('GET', job.statusUrl, { token: ADMIN })).body;
    return j.state === 'running' ? undefined : j;
  }, 60_000, `${kind} job`);
}

describe('the platform client pages honestly', () => {
  const fake = new FakePlatform({ accounts: 1, chatsPerAccount: SIZE.chats, messagesPerChat: SIZE.messages, transactionsPerChat: SIZE.transactions });
  let client: PlatformClient;
  beforeAll(async () => { client = new PlatformClient({ baseUrl: await fake.start(), apiKey: fake.apiKey }); });
  afterAll(async () => { await fake.stop(); });
  const account = () => fake.data[0]?.id ?? '';

  it('follows data.nextMarker when a page says hasMore but gives no next_page link', async () => {
    expect(fake.data[0]?.transactions).toHaveLength(TRANSACTIONS);
    fake.faults.transactionPaging = 'no-next-page';
    try {
      const all = [];
      for await (const page of client.transactions(account(), new Date(SINCE))) all.push(...page);
      expect(all).toHaveLength(TRANSACTIONS);
      expect(new Set(all.map((t) => t.id)).size).toBe(TRANSACTIONS);
    } finally {
      fake.faults.transactionPaging = 'normal';
    }
  });

  it('refuses to stop early when a page says hasMore and gives neither a link nor a marker, naming the endpoint', async () => {
    fake.faults.transactionPaging = 'no-next-page-or-marker';
    try {
      const read = async () => {
        for await (const _page of client.transactions(account(), new Date(SINCE))) { /* drain */ }
      };
      const err = await read().then(() => null, (e: unknown) => e);
      expect(err).toBeInstanceOf(PlatformError);
      expect((err as PlatformError).kind).toBe('bad-response');
      expect((err as Error).message).toContain(`/api/${account()}/transactions`);
      expect((err as Error).message).toMatch(/hasMore/);
      expect((err as Error).message).toMatch(/next_page/);
    } finally {
      fake.faults.transactionPaging = 'normal';
    }
  });
});

describe.each(DEPLOYMENTS)('backfill jobs page honestly on %s', (kind: Deployment) => {
  const fake = new FakePlatform({ accounts: 1, chatsPerAccount: SIZE.chats, messagesPerChat: SIZE.messages, transactionsPerChat: SIZE.transactions });
  let app: Harness;
  beforeAll(async () => {
    const base = await fake.start();
    app = await startHarness({ ...(kind === 'kafka+mongo' ? await kafkaMongoEnv() : {}), ADMIN_TOKEN: ADMIN, PLATFORMAPI_BASE_URL: base, PLATFORMAPI_KEY: fake.apiKey }, { driven: kind !== 'kafka+mongo' });
  });
  afterAll(async () => {
    await app?.stop();
    await fake.stop();
  });

  it('a transactions backfill follows the marker when the next link is missing and gets every transaction', async () => {
    fake.faults.transactionPaging = 'no-next-page';
    try {
      const job = await settled(app, 'backfill-transactions');
      expect(job).toMatchObject({ state: 'done', errors: [] });
      expect(job.progress.transactions).toBe(TRANSACTIONS);
    } finally {
      fake.faults.transactionPaging = 'normal';
    }
  });

  it('a backfill whose transactions page says hasMore with no link and no marker fails, naming the endpoint and the missing link', async () => {
    fake.faults.transactionPaging = 'no-next-page-or-marker';
    try {
      for (const which of ['backfill', 'backfill-transactions'] as const) {
        const job = await settled(app, which);
        expect(job.state).toBe('failed');
        expect(job.errors.at(-1)?.message).toContain(`GET /api/${fake.data[0]?.id}/transactions`);
        expect(job.errors.at(-1)?.message).toMatch(/hasMore.*next_page/);
      }
    } finally {
      fake.faults.transactionPaging = 'normal';
    }
  });
});
