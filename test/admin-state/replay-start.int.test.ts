// Starting a replay is one conditional write: of simultaneous starts, in one process or in
// several sharing a store, exactly one gets 202 and builds a version; the others get 409. A
// replay whose process died stops blocking once its heartbeat is stale, and taking it over is
// itself conditional, so two processes that both notice cannot both take over.
import { afterAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../src/app.js';
import { JOBS_COLLECTION, REPLAY_LOCK_ID } from '../../src/projector/replay.js';
import { DEPLOYMENTS, deploymentEnv, removeDataDirs, startWithEnv } from '../support/deployments.js';
import { faultDeliveries } from '../support/fault-input.js';
import { settledHash } from '../support/read-models.js';
import { deliverAll } from '../support/sender.js';
import { eventually } from '../support/wait.js';
import { unitTier } from '../support/test-servers.js';

const ADMIN = 'admin-token-for-admin-state-0000';
const admin = { 'content-type': 'application/json', authorization: `Bearer ${ADMIN}` };

interface ReplayAnswer { status: number; body: { id?: string; code?: string; message?: string; statusUrl?: string; targetVersion?: number } }

async function startReplay(url: string): Promise<ReplayAnswer> {
  const res = await fetch(`${url}/api/admin/replay`, { method: 'POST', headers: admin, body: '{}' });
  return { status: res.status, body: (await res.json()) as ReplayAnswer['body'] };
}

/** Enough session-events that a replay is still building while the other starts arrive. */
async function ingest(url: string, store: RunningApp['store']): Promise<void> {
  // Eight chats at a time, each chat's in order; the API is never down here: every answer a 200,
  // or a 503 when the log was slow to take a record (delivered again, as the platform does).
  const stats = await deliverAll(() => url, faultDeliveries(300, 3).deliveries, { lanes: 8 });
  expect([...stats.statuses.keys()].filter((s) => s !== 200 && s !== 503)).toEqual([]);
  await settledHash(url, store);
}

async function replayJobs(url: string): Promise<{ id: string; state: string; error: string | null }[]> {
  return ((await (await fetch(`${url}/api/admin/replay?limit=100`, { headers: admin })).json()) as { items: { id: string; state: string; error: string | null }[] }).items;
}

async function untilSettled(url: string): Promise<void> {
  await eventually(async () => ((await replayJobs(url)).every((j) => j.state === 'done' || j.state === 'failed') ? true : undefined), 120_000, 'replays to finish');
}

function tally(answers: readonly ReplayAnswer[]): { accepted: ReplayAnswer[]; conflicts: ReplayAnswer[]; other: ReplayAnswer[] } {
  return {
    accepted: answers.filter((a) => a.status === 202),
    conflicts: answers.filter((a) => a.status === 409 && a.body.code === 'CONFLICT'),
    other: answers.filter((a) => a.status !== 202 && a.status !== 409),
  };
}

describe.each(DEPLOYMENTS)('replay start on %s', (kind) => {
  const running: RunningApp[] = [];
  afterAll(async () => {
    await Promise.all(running.map((a) => a.stop()));
    removeDataDirs();
  });

  it('of five simultaneous starts exactly one gets 202 and only one job exists; the next start after it finishes is accepted', async () => {
    const app = await startWithEnv(await deploymentEnv(kind, { ADMIN_TOKEN: ADMIN }));
    running.push(app);
    const url = app.url ?? '';
    await ingest(url, app.store);

    const answers = await Promise.all(Array.from({ length: 5 }, () => startReplay(url)));
    const { accepted, conflicts, other } = tally(answers);
    expect(other).toEqual([]);
    expect(accepted).toHaveLength(1);
    expect(conflicts).toHaveLength(4);
    for (const c of conflicts) expect(c.body.message).toMatch(/replay/);
    // The losers left nothing behind: one job, building the one next version.
    expect((await replayJobs(url)).map((j) => j.id)).toEqual([accepted[0]?.body.id]);
    expect(accepted[0]?.body.targetVersion).toBe(2);

    await untilSettled(url);
    expect((await replayJobs(url))[0]).toMatchObject({ id: accepted[0]?.body.id, state: 'done' });
    const next = await startReplay(url);
    expect(next.status).toBe(202);
    expect(next.body.targetVersion).toBe(3);
    await untilSettled(url);
  }, 180_000);

  it('a replay whose process died blocks while its heartbeat is fresh; once stale, exactly one of five simultaneous starts takes over', async () => {
    const app = await startWithEnv(await deploymentEnv(kind, { ADMIN_TOKEN: ADMIN }));
    running.push(app);
    const url = app.url ?? '';
    await ingest(url, app.store);

    // What a process that died mid-replay leaves behind: its job building and the lock held.
    const jobs = app.store.collection(JOBS_COLLECTION);
    const deadJob = 'replay-dead-process';
    const at = Date.now();
    await jobs.insertOne({
      _id: deadJob, kind: 'replay', state: 'building', from: { kind: 'beginning' }, fromVersion: 1, targetVersion: 2,
      eventsApplied: 10, lag: 100, startedAt: at - 1000, heartbeatAt: at, finishedAt: null, error: null,
    });
    await jobs.updateOne({ _id: REPLAY_LOCK_ID }, { $set: { kind: 'replay-lock', jobId: deadJob, heartbeatAt: at } }, { upsert: true });

    const fresh = await startReplay(url);
    expect(fresh).toMatchObject({ status: 409, body: { code: 'CONFLICT', message: expect.stringContaining(deadJob) } });

    // Its heartbeat lapses (a minute old): now it is a dead replay, and only one start may replace it.
    const old = at - 60_000;
    await jobs.updateOne({ _id: deadJob }, { $set: { heartbeatAt: old } });
    await jobs.updateOne({ _id: REPLAY_LOCK_ID }, { $set: { heartbeatAt: old } });
    const answers = await Promise.all(Array.from({ length: 5 }, () => startReplay(url)));
    const { accepted, conflicts, other } = tally(answers);
    expect(other).toEqual([]);
    expect(accepted).toHaveLength(1);
    expect(conflicts).toHaveLength(4);
    const all = await replayJobs(url);
    expect(all.map((j) => j.id).sort()).toEqual([accepted[0]?.body.id, deadJob].sort());
    expect(all.find((j) => j.id === deadJob)).toMatchObject({ state: 'failed', error: expect.stringContaining('interrupted') });
    await untilSettled(url);
    expect(all.length).toBe(2);
    expect((await replayJobs(url)).find((j) => j.id === accepted[0]?.body.id)?.state).toBe('done');
  }, 180_000);
});

describe.skipIf(unitTier())('replay start across two processes sharing Kafka and MongoDB', () => {
  const running: RunningApp[] = [];
  afterAll(async () => {
    await Promise.all(running.map((a) => a.stop()));
    removeDataDirs();
  });

  it('of six simultaneous starts sent to two processes exactly one gets 202', async () => {
    const env = await deploymentEnv('kafka+mongo', { ADMIN_TOKEN: ADMIN });
    const a = await startWithEnv(env);
    running.push(a);
    const b = await startWithEnv(env);
    running.push(b);
    await ingest(a.url ?? '', a.store);

    const answers = await Promise.all([a, b, a, b, a, b].map((app) => startReplay(app.url ?? '')));
    const { accepted, conflicts, other } = tally(answers);
    expect(other).toEqual([]);
    expect(accepted).toHaveLength(1);
    expect(conflicts).toHaveLength(5);
    expect((await replayJobs(a.url ?? '')).map((j) => j.id)).toEqual([accepted[0]?.body.id]);
    await untilSettled(a.url ?? '');
    expect((await replayJobs(b.url ?? ''))[0]?.state).toBe('done');
  }, 180_000);
});
