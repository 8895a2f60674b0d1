// Accounts and backfill against the local fake platform: the connection flow, sync, and a
// backfill of 200 chats, 20,000 messages and 5,000 transactions under a rate limit that forces
// waiting, equal to the same data sent as webhooks, and counting nothing twice when both come.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../src/app.js';
import { JOBS_COLLECTION } from '../../src/projector/replay.js';
import { deploymentEnv, removeDataDirs, startWithEnv } from '../support/deployments.js';
import { FakePlatform } from '../support/fake-platform.js';
import { settleChats } from '../support/reference-check.js';
import { differences, readModelDocs, settledHash } from '../support/read-models.js';
import { eventually } from '../support/wait.js';

const ADMIN = 'admin-token-for-backfill-tests-0';
const admin = { authorization: `Bearer ${ADMIN}` };

async function call<T = Record<string, unknown>>(url: string, method: string, path: string, body?: unknown, headers: Record<string, string> = admin) {
  const res = await fetch(`${url}${path}`, { method, headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as T };
}

/** Read models without the bookkeeping that depends on where and in what order records sat
 *  in the log (offsets, per-chat sequences): every figure stays in. */
async function comparable(app: RunningApp): Promise<Record<string, unknown[]>> {
  const docs = await readModelDocs(app.store);
  for (const [name, list] of Object.entries(docs)) {
    docs[name] = list.map((d) => {
      const { appliedOffset: _o, appliedIds: _i, lastSeq: _s, ...rest } = d as Record<string, unknown>;
      return rest;
    });
  }
  return docs;
}

interface Job { id: string; state: string; progress: { chats: number; messages: number; transactions: number; requests: number; waitedMs: number }; errors: { message: string }[]; statusUrl: string }

async function finished(url: string, job: Job): Promise<Job> {
  return eventually(async () => {
    const j = (await call<Job>(url, 'GET', job.statusUrl)).body;
    if (j.state === 'failed') throw new Error(`backfill failed: ${JSON.stringify(j.errors)}`);
    return j.state === 'done' ? j : undefined;
  }, 240_000, 'backfill job');
}

// The size: 200 chats, 20,000 messages, 5,000 transactions (about two minutes).
const SIZE = { chats: 200, messages: 100, transactions: 25 };
const RESUME_CHATS = 40;

describe('accounts and backfill', () => {
  const fake = new FakePlatform({ accounts: 1, chatsPerAccount: SIZE.chats, messagesPerChat: SIZE.messages, transactionsPerChat: SIZE.transactions, rateLimit: 15, rateWindowMs: 1000 });
  const apps: RunningApp[] = [];
  let base = '';
  beforeAll(async () => { base = await fake.start(); });
  afterAll(async () => {
    await Promise.all(apps.map((a) => a.stop()));
    await fake.stop();
    removeDataDirs();
  });
  const start = async (extra: Record<string, string> = {}) => {
    const env = await deploymentEnv('embedded', { ADMIN_TOKEN: ADMIN, PLATFORMAPI_BASE_URL: base, PLATFORMAPI_KEY: fake.apiKey, PLATFORMAPI_RATE_WINDOW_SEC: '1', ...extra });
    const app = await startWithEnv(env);
    apps.push(app);
    return { app, url: app.url ?? '', env };
  };
  /** Drained, and settled by a clock tick past the lateness (as the ticker does live): a fan
   *  who wrote again after an idle gap at the very end of a chat's history is held until then. */
  const settled = async (s: { app: RunningApp; url: string; env: Record<string, string> }): Promise<void> => {
    await settledHash(s.url, s.app.store, 240_000);
    await settleChats(s.env, s.app.log);
    await settledHash(s.url, s.app.store, 240_000);
  };

  it('connects an account through start, poll and 2FA; syncs; disconnects; and names a missing key', async () => {
    const { url } = await start();
    const started = await call<{ attemptId: string }>(url, 'POST', '/api/admin/accounts/auth/start', { email: 'creator-2fa@example.com', password: 'pw', name: 'New Creator' });
    expect(started.status).toBe(200);
    const first = await call<{ needsOtp: boolean; account: unknown }>(url, 'POST', '/api/admin/accounts/auth/poll', { attemptId: started.body.attemptId });
    expect(first.body).toMatchObject({ needsOtp: true, account: null });
    expect((await call(url, 'POST', '/api/admin/accounts/auth/2fa', { attemptId: started.body.attemptId, code: '000000' })).status).toBe(502);
    expect((await call(url, 'POST', '/api/admin/accounts/auth/2fa', { attemptId: started.body.attemptId, code: '123456' })).status).toBe(200);
    const done = await call<{ state: string; account: { id: string; status: string; source: string } }>(url, 'POST', '/api/admin/accounts/auth/poll', { attemptId: started.body.attemptId });
    expect(done.body).toMatchObject({ state: 'authenticated', account: { status: 'connected', source: 'synced' } });
    const synced = await call<{ synced: number }>(url, 'POST', '/api/admin/accounts/sync', {});
    expect(synced.body.synced).toBe(fake.data.length);
    expect((await call(url, 'POST', `/api/admin/accounts/${done.body.account.id}/disconnect`)).body).toMatchObject({ status: 'disconnected' });
    expect((await call(url, 'POST', '/api/admin/accounts', { id: 'acct_nothex', displayName: 'x' })).status).toBe(400);
    expect((await call(url, 'POST', '/api/admin/accounts', { id: `acct_${'b'.repeat(32)}`, displayName: 'Manual' })).status).toBe(201);
    expect((await call(url, 'POST', '/api/admin/accounts/seed', {})).body).toMatchObject({ seeded: 3 });
    const accounts = (await call<{ items: { id: string; status: string; source: string }[] }>(url, 'GET', '/api/accounts', undefined, {})).body.items;
    expect(accounts).toEqual(expect.arrayContaining([
      expect.objectContaining({ id: done.body.account.id, status: 'disconnected', source: 'synced' }),
      expect.objectContaining({ id: `acct_${'b'.repeat(32)}`, status: 'connected', source: 'manual' }),
      expect.objectContaining({ source: 'demo' }),
    ]));

    const { url: keyless } = await start({ PLATFORMAPI_KEY: '' });
    for (const path of ['/api/admin/accounts/sync', '/api/admin/backfill', '/api/admin/backfill-transactions']) {
      expect(await call(keyless, 'POST', path, {})).toMatchObject({ status: 503, body: { code: 'NOT_READY', message: expect.stringContaining('PLATFORMAPI_KEY') } });
    }
  });

  it('refuses cleanly with a wrong key, a platform that is down, or an exhausted rate limit, leaving no job behind', async () => {
    const { app, url } = await start({ PLATFORMAPI_KEY: 'ofapi_wrong_key_000000000000' });
    expect(await call(url, 'POST', '/api/admin/backfill', {})).toMatchObject({ status: 502, body: { code: 'PLATFORM_ERROR', message: expect.stringContaining('PLATFORMAPI_KEY') } });
    const good = await start();
    fake.faults.down = true;
    try {
      expect((await call(good.url, 'POST', '/api/admin/backfill', {})).status).toBe(503);
    } finally {
      fake.faults.down = false;
    }
    fake.faults.fail429Every = 1;
    try {
      expect((await call(good.url, 'POST', '/api/admin/backfill-transactions', {})).body).toMatchObject({ code: 'RATE_LIMITED' });
    } finally {
      fake.faults.fail429Every = 0;
    }
    expect(await app.store.collection(JOBS_COLLECTION).countDocuments()).toBe(0);
    expect(await good.app.store.collection(JOBS_COLLECTION).countDocuments()).toBe(0);
  }, 120_000);

  it(`backfills ${SIZE.chats} chats, ${SIZE.chats * SIZE.messages} messages and ${SIZE.chats * SIZE.transactions} transactions under a rate limit to the same read models as webhooks`, async () => {
    const messages = SIZE.chats * SIZE.messages;
    const transactions = SIZE.chats * SIZE.transactions;
    expect(fake.data[0]?.messages).toHaveLength(messages);
    expect(fake.data[0]?.transactions).toHaveLength(transactions);

    // The history by webhooks, once: what a backfill must come to. (That both together count
    // nothing twice is shown on the smaller platform below: it is about ids, not volume.)
    const byWebhook = await start();
    await fake.sendWebhooks(`${byWebhook.url}/webhooks/platform`, () => undefined, 16);
    await settled(byWebhook);
    const expected = await comparable(byWebhook.app);
    expect(expected.messages).toHaveLength(messages);
    expect(expected.payments).toHaveLength(transactions);
    const limitedBefore = fake.limited;
    const windowsBefore = fake.exhaustedWindows;

    // By backfill alone, under the rate limit: the client waits for the window instead of
    // running into 429s. The waiting is shown over a few windows; then the limit is lifted, as
    // the rest is about counting (at 15 requests a second each pass took minutes of the suite).
    // Five a window: a client slowed by a busy machine still uses a window up before it ends
    // (at 15 a one-second window could pass unused, and the test saw no waiting).
    fake.rateLimit = 5;
    const byBackfill = await start();
    const job = await call<Job>(byBackfill.url, 'POST', '/api/admin/backfill', { since: '2026-01-01T00:00:00Z' });
    expect(job.status).toBe(202);
    expect((await call(byBackfill.url, 'POST', '/api/admin/backfill', { since: '2026-01-01T00:00:00Z' })).status).toBe(409);
    await eventually(async () => {
      if (fake.exhaustedWindows - windowsBefore >= 3) return true;
      return (await call<Job>(byBackfill.url, 'GET', job.body.statusUrl)).body.state === 'running' ? undefined : true;
    }, 240_000, 'three rate-limit windows used up');
    fake.rateLimit = 1000;
    const done = await finished(byBackfill.url, job.body);
    expect(done.progress).toMatchObject({ chats: SIZE.chats, messages, transactions });
    expect(done.progress.waitedMs).toBeGreaterThan(0);
    expect(fake.limited - limitedBefore).toBeLessThanOrEqual(2);
    // History from May: each backfilled chat says its history is complete, so nothing of it is
    // left open for a tick to close (none has come yet).
    await settledHash(byBackfill.url, byBackfill.app.store, 240_000);
    expect(((await comparable(byBackfill.app)).sessions as { status: string }[]).filter((s) => s.status === 'open')).toEqual([]);
    await settled(byBackfill);
    expect(differences(expected, await comparable(byBackfill.app))).toEqual([]);
  }, 900_000);

  // Resuming, repeating and mixing sources are about which chats a job visits and which ids are
  // known, not about volume: a platform of its own, a fifth the size, keeps them off the suite's clock.
  it('resumes a job whose process stopped, from the chat it was on, and counts nothing twice: not after a second backfill, nor with the same history by webhook', async () => {
    const small = new FakePlatform({ accounts: 1, chatsPerAccount: RESUME_CHATS, messagesPerChat: SIZE.messages, transactionsPerChat: SIZE.transactions, rateLimit: 1000, rateWindowMs: 1000 });
    const smallBase = await small.start();
    try {
      const env = await deploymentEnv('embedded', { ADMIN_TOKEN: ADMIN, PLATFORMAPI_BASE_URL: smallBase, PLATFORMAPI_KEY: small.apiKey, PLATFORMAPI_RATE_WINDOW_SEC: '1', BACKFILL_STALE_SEC: '1' });
      const first = await startWithEnv(env);
      const url = first.url ?? '';
      small.faults.slowMs = 40;
      let job: Job;
      try {
        job = (await call<Job>(url, 'POST', '/api/admin/backfill', { since: '2026-01-01T00:00:00Z' })).body;
        await eventually(async () => ((await call<Job>(url, 'GET', job.statusUrl)).body.progress.chats >= 5 ? true : undefined), 60_000, 'some chats done');
        // Stopped part-way: the job must have chats left to resume.
        expect((await call<Job>(url, 'GET', job.statusUrl)).body.progress.chats).toBeLessThan(RESUME_CHATS);
        await first.stop();
      } finally {
        small.faults.slowMs = 0;
      }
      const second = await startWithEnv(env);
      apps.push(second);
      const secondUrl = second.url ?? '';
      const done = await finished(secondUrl, job);
      expect(done.progress.chats).toBe(RESUME_CHATS);
      await settled({ app: second, url: secondUrl, env });
      const docs = await comparable(second);
      expect(docs.messages).toHaveLength(RESUME_CHATS * SIZE.messages);
      expect(docs.payments).toHaveLength(RESUME_CHATS * SIZE.transactions);
      // The same backfill again, once the first is done: every message and payment is known by id.
      await finished(secondUrl, (await call<Job>(secondUrl, 'POST', '/api/admin/backfill', { since: '2026-01-01T00:00:00Z' })).body);
      await settled({ app: second, url: secondUrl, env });
      expect(differences(docs, await comparable(second))).toEqual([]);
      // And the same history as webhooks, then by transaction backfill: both sources together
      // count nothing twice (a message or payment is the same by id whichever way it came).
      await small.sendWebhooks(`${secondUrl}/webhooks/platform`, () => undefined, 16);
      await finished(secondUrl, (await call<Job>(secondUrl, 'POST', '/api/admin/backfill-transactions', { since: '2026-01-01T00:00:00Z' })).body);
      await settled({ app: second, url: secondUrl, env });
      expect(differences(docs, await comparable(second))).toEqual([]);
    } finally {
      await small.stop();
    }
  }, 600_000);
});
