// One runner per backfill job. Claiming a stale job is one conditional write, so two runners
// (two API processes sharing a store) that both see it stale cannot both run it; a runner that
// lost its claim stops writing; the heartbeat keeps beating while the platform client waits
// out a rate-limit window longer than BACKFILL_STALE_SEC; and of simultaneous identical starts
// exactly one creates a job.
import { afterAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../src/app.js';
import { PlatformClient } from '../../src/adapters/platform/platform-client.js';
import { BackfillJobs, type BackfillJobDoc } from '../../src/backfill/backfill-jobs.js';
import { JOBS_COLLECTION } from '../../src/projector/replay.js';
import { createLogger } from '../../src/support/logger.js';
import { topology } from '../../src/topology.js';
import { DEPLOYMENTS, deploymentEnv, removeDataDirs, startWithEnv } from '../support/deployments.js';
import { FakePlatform } from '../support/fake-platform.js';
import { eventually } from '../support/wait.js';

const ADMIN = 'admin-token-for-admin-state-0000';
const admin = { authorization: `Bearer ${ADMIN}` };
const SINCE = '2026-01-01T00:00:00Z';

interface Job { id: string; state: string; progress: BackfillJobDoc['progress']; errors: { message: string }[]; statusUrl: string }

async function call<T = Record<string, unknown>>(url: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${url}${path}`, { method, headers: { ...admin, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as T };
}

async function finished(url: string, id: string, timeoutMs = 120_000): Promise<Job> {
  return eventually(async () => {
    const j = (await call<Job>(url, 'GET', `/api/admin/backfill/${encodeURIComponent(id)}`)).body;
    if (j.state === 'failed') throw new Error(`backfill failed: ${JSON.stringify(j.errors)}`);
    return j.state === 'done' ? j : undefined;
  }, timeoutMs, `backfill ${id}`);
}

/** Every chat's messages page, the chats page and the transactions page were each fetched exactly once. */
function expectEachPageOnce(fake: FakePlatform): void {
  const account = fake.data[0];
  if (!account) throw new Error('no account');
  const counts = account.chats.map((chat) => fake.servedUnder(`/api/${account.id}/chats/${chat}/messages`));
  expect(counts).toEqual(account.chats.map(() => 1));
  expect(fake.servedUnder(`/api/${account.id}/chats?`)).toBe(1);
  expect(fake.servedUnder(`/api/${account.id}/transactions`)).toBe(1);
}

describe.each(DEPLOYMENTS)('backfill job claims on %s', (kind) => {
  const apps: RunningApp[] = [];
  const runners: BackfillJobs[] = [];
  const fakes: FakePlatform[] = [];
  afterAll(async () => {
    await Promise.all(runners.map((r) => r.stop()));
    await Promise.all(apps.map((a) => a.stop()));
    await Promise.all(fakes.map((f) => f.stop()));
    removeDataDirs();
  });

  async function setUp(fakeOptions: ConstructorParameters<typeof FakePlatform>[0], extra: Record<string, string> = {}) {
    const fake = new FakePlatform(fakeOptions);
    fakes.push(fake);
    const base = await fake.start();
    const env = await deploymentEnv(kind, { ADMIN_TOKEN: ADMIN, PLATFORMAPI_BASE_URL: base, PLATFORMAPI_KEY: fake.apiKey, ...extra });
    const app = await startWithEnv(env);
    apps.push(app);
    const topics = topology(env.TOPIC_PREFIX ?? '');
    /** Another API process's backfill runner over the same store and log. */
    const runner = (staleMs: number, rateWindowMs = 60_000) => {
      const r = new BackfillJobs(app.store, new PlatformClient({ baseUrl: base, apiKey: fake.apiKey, rateWindowMs }), async (records) => { await app.log.append(topics.inbound, records); }, createLogger('silent'), staleMs);
      runners.push(r);
      return r;
    };
    return { fake, app, url: app.url ?? '', runner };
  }

  /** What a process that died mid-backfill leaves behind: a running job whose heartbeat stopped ten minutes ago. */
  async function deadJob(app: RunningApp, fake: FakePlatform): Promise<string> {
    const account = fake.data[0]?.id ?? '';
    const since = Date.parse(SINCE);
    const id = `backfill-dead-${Math.random().toString(36).slice(2, 8)}`;
    await app.store.collection(JOBS_COLLECTION).insertOne({
      _id: id, kind: 'backfill', state: 'running', identity: `backfill|${account}|${since}`, accountIds: [account], since,
      progress: { accountIndex: 0, chatsPage: null, chatIndex: 0, chats: 0, messages: 0, transactions: 0, requests: 0, waitedMs: 0 },
      errors: [], startedAt: Date.now() - 700_000, heartbeatAt: Date.now() - 600_000, finishedAt: null,
    });
    return id;
  }

  it('a stale job that two runners see at the same moment is claimed and run by one of them, once', async () => {
    // The app's own runner counts an hour as stale, so the two runners here are the only candidates.
    const { fake, app, url, runner } = await setUp({ accounts: 1, chatsPerAccount: 8, messagesPerChat: 20, transactionsPerChat: 2 }, { BACKFILL_STALE_SEC: '3600' });
    const id = await deadJob(app, fake);
    fake.faults.slowMs = 30;
    const [a, b] = await Promise.all([runner(1_000).resumeStale(), runner(1_000).resumeStale()]);
    expect([...a, ...b]).toEqual([id]);

    const done = await finished(url, id);
    expect(done.progress).toMatchObject({ chats: 8, messages: 160, transactions: 16 });
    expectEachPageOnce(fake);
  });

  it('a runner whose claim was taken over stops by itself: no more progress, no final state from it', async () => {
    const { fake, app, runner } = await setUp({ accounts: 1, chatsPerAccount: 30, messagesPerChat: 4, transactionsPerChat: 0 }, { BACKFILL_STALE_SEC: '3600' });
    const id = await deadJob(app, fake);
    fake.faults.slowMs = 40;
    expect(await runner(1_000).resumeStale()).toEqual([id]);
    const jobs = app.store.collection<BackfillJobDoc>(JOBS_COLLECTION);
    await eventually(async () => ((await jobs.findOne({ _id: id }))?.progress.chats ?? 0) >= 2 || undefined, 30_000, 'some chats done');

    // Another process took it over (as it would after a lapse in this runner's heartbeat).
    await jobs.updateOne({ _id: id }, { $set: { owner: 'another-process' } });
    const after = await jobs.findOne({ _id: id });
    const served = fake.servedUnder('/api/');
    // Long enough for every remaining chat had the runner gone on (30 chats at 40 ms and more each).
    await new Promise((r) => setTimeout(r, 2_000));
    expect(await jobs.findOne({ _id: id })).toEqual(after);
    expect(after).toMatchObject({ state: 'running', owner: 'another-process', finishedAt: null });
    expect(after?.progress.chats).toBeLessThan(30);
    // At most the chat it was on when it lost the claim.
    expect(fake.servedUnder('/api/') - served).toBeLessThanOrEqual(1);
  });

  it('waiting out a rate-limit window longer than BACKFILL_STALE_SEC keeps the heartbeat fresh, so no other runner takes the job', async () => {
    // Three requests per 2.5 s window, stale after 2 s: the client waits about 3 s between
    // windows. (Stale after 1 s, a heartbeat every third of it was once seen 1,037 ms old on a
    // loaded machine, its timer held up by the other test files' work.)
    const { fake, app, url, runner } = await setUp(
      { accounts: 1, chatsPerAccount: 6, messagesPerChat: 10, transactionsPerChat: 1, rateLimit: 3, rateWindowMs: 2_500 },
      { BACKFILL_STALE_SEC: '2', PLATFORMAPI_RATE_WINDOW_SEC: '3' },
    );
    const started = await call<Job>(url, 'POST', '/api/admin/backfill', { since: SINCE });
    expect(started.status).toBe(202);
    const jobs = app.store.collection<BackfillJobDoc>(JOBS_COLLECTION);
    const other = runner(2_000, 3_000);
    const taken: string[] = [];
    let oldest = 0;
    for (;;) {
      // The age as of the read's start: on a busy machine the read's answer can wait behind
      // other work of this process, which is not the heartbeat's delay.
      const at = Date.now();
      const job = await jobs.findOne({ _id: started.body.id });
      if (!job || job.state !== 'running') break;
      oldest = Math.max(oldest, at - job.heartbeatAt);
      taken.push(...(await other.resumeStale()));
      await new Promise((r) => setTimeout(r, 100));
    }
    const done = await finished(url, started.body.id);
    expect(done.progress.waitedMs).toBeGreaterThan(2_000);
    expect(taken).toEqual([]);
    expect(oldest).toBeLessThan(2_000);
    expect(done.progress).toMatchObject({ chats: 6, messages: 60, transactions: 6 });
    expectEachPageOnce(fake);
  });

  it('of five simultaneous identical starts in two processes exactly one creates a job', async () => {
    const { fake, app, url, runner } = await setUp({ accounts: 1, chatsPerAccount: 5, messagesPerChat: 10, transactionsPerChat: 1 }, { BACKFILL_STALE_SEC: '3600' });
    const account = fake.data[0]?.id ?? '';
    const [one, two] = [runner(60_000), runner(60_000)];
    const answers = await Promise.allSettled([one, two, one, two, one].map((r) => r.start('backfill', [account], Date.parse(SINCE))));
    const accepted = answers.filter((a): a is PromiseFulfilledResult<BackfillJobDoc> => a.status === 'fulfilled').map((a) => a.value._id);
    const refused = answers.filter((a): a is PromiseRejectedResult => a.status === 'rejected').map((a) => String(a.reason));
    expect(accepted).toHaveLength(1);
    expect(refused).toHaveLength(4);
    for (const r of refused) expect(r).toContain('identical backfill job is still running');
    expect((await call<{ items: Job[] }>(url, 'GET', '/api/admin/backfill')).body.items.map((j) => j.id)).toEqual(accepted);
    await finished(url, accepted[0] ?? '');
    expectEachPageOnce(fake);
    // Once it is done, the same backfill may run again, and the route refuses a second while it runs.
    const again = await call<Job>(url, 'POST', '/api/admin/backfill', { accountId: account, since: SINCE });
    expect(again.status).toBe(202);
    expect((await call(url, 'POST', '/api/admin/backfill', { accountId: account, since: SINCE })).status).toBe(409);
    await finished(url, again.body.id);
    expect(await app.store.collection(JOBS_COLLECTION).countDocuments({ kind: 'backfill' })).toBe(2);
  });
});
