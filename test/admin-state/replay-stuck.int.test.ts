// A replay that cannot progress fails with a reason instead of holding the lock for good
// (issue 27). Before, a replay whose rounds kept failing (a poisoned pipeline: the store refused
// one write on every retry) stayed `building`, and every later replay got 409 until a restart.
// Now an event whose documents cannot be written is set aside (stage 'write') as the live
// projector sets it aside, and the replay goes on; what is no event's fault (the store refusing
// every write as unavailable, round after round, or a write that never comes back) ends the job
// `failed` with the reason in its status, frees the lock, drops the half-built version (when
// nothing may still write into it) and leaves the served read models as they were; the next
// replay starts. Real log and store on both deployments; the fault is a store wrapper around
// writes into the replay's target version.
import Fastify from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { afterAll, describe, expect, it } from 'vitest';
import { createLog, createStore } from '../../src/adapters/index.js';
import type { Log } from '../../src/adapters/log/log.js';
import { StoreUnavailableError, type CollectionWrite, type DocumentStore } from '../../src/adapters/store/store.js';
import { loadConfig } from '../../src/config.js';
import { installErrorHandling } from '../../src/http/errors.js';
import { adminReplayRoutes } from '../../src/http/routes/admin-replay.js';
import type { PipelineControl } from '../../src/pipeline-control.js';
import { SET_ASIDE_COLLECTION, type SetAsideDoc } from '../../src/pipeline/set-aside.js';
import { JOBS_COLLECTION, REPLAY_LOCK_ID, ReplayService, type ReplayLimits } from '../../src/projector/replay.js';
import { ReadModelSet } from '../../src/read-models/read-model-set.js';
import { createLogger } from '../../src/support/logger.js';
import { topology, type Topology } from '../../src/topology.js';
import { initialChatState, step, type ChatState } from '../../machines/step.js';
import { DEPLOYMENTS, deploymentEnv, removeDataDirs } from '../support/deployments.js';
import { readModelDocs } from '../support/read-models.js';
import { eventually } from '../support/wait.js';

const FAULT = 'injected: the store is not answering';
const POISON = 'injected: this document cannot be written';
const POISONED_FAN = '7000005';

interface Fault {
  /** The read-model version whose writes fail (null: none). */
  version: number | null;
  /** unavailable: every write fails as the store's fault; hang: none comes back; poison: those holding POISONED_FAN's documents fail as theirs. */
  mode: 'unavailable' | 'hang' | 'poison';
  release: (() => void)[];
}

/** The store, with writes into one read-model version failing as `fault` says. */
function faultyStore(store: DocumentStore): { store: DocumentStore; fault: Fault } {
  const fault: Fault = { version: null, mode: 'unavailable', release: [] };
  const bulkWriteMany = async (writes: readonly CollectionWrite[]): Promise<void> => {
    const into = writes.filter((w) => fault.version !== null && w.collection.endsWith(`_v${fault.version}`));
    if (into.length > 0) {
      if (fault.mode === 'unavailable') throw new StoreUnavailableError(FAULT);
      if (fault.mode === 'poison' && JSON.stringify(into).includes(POISONED_FAN)) throw new Error(POISON);
      // A write that does not come back until the test lets it fail.
      if (fault.mode === 'hang') await new Promise<void>((_resolve, reject) => { fault.release.push(() => reject(new Error('released'))); });
    }
    return store.bulkWriteMany(writes);
  };
  const wrapped: DocumentStore = {
    kind: store.kind,
    collection: (name) => store.collection(name),
    bulkWriteMany,
    listCollections: () => store.listCollections(),
    ping: () => store.ping(),
    close: () => store.close(),
  };
  return { store: wrapped, fault };
}

/** Session events of a few chats, made by the real machine; answers how many per chat id. */
async function seed(log: Log, topo: Topology): Promise<Map<string, number>> {
  const perChat = new Map<string, number>();
  const states = new Map<number, ChatState>();
  const records: { key: string; value: string }[] = [];
  const t0 = Date.parse('2026-06-10T10:00:00Z');
  for (let i = 0; i < 300; i++) {
    const chat = i % 12;
    const state = states.get(chat) ?? initialChatState({ accountId: `acct_stuck_${chat % 2}`, chatId: String(7_000_000 + chat), idleMs: 1_800_000, lateMs: 300_000, unansweredMs: 86_400_000 });
    const r = step(state, i % 5 === 4
      ? { type: 'chat.payment', dedupeKey: `p${i}`, at: t0 + i * 1000, paymentId: `t${i}`, kind: 'tip', grossCents: 500, netCents: 400 }
      : { type: 'chat.message', dedupeKey: `k${i}`, at: t0 + i * 1000, messageId: String(i), sender: i % 2 === 0 ? 'fan' : 'human', text: 'hello', priceCents: 0, chatterId: 'ana' });
    states.set(chat, r.state);
    for (const e of r.events) records.push({ key: e.chatKey, value: JSON.stringify(e) });
    perChat.set(String(7_000_000 + chat), (perChat.get(String(7_000_000 + chat)) ?? 0) + r.events.length);
  }
  await log.append(topo.sessionEvents, records);
  return perChat;
}

interface JobView { id: string; state: string; error: string | null; targetVersion: number; eventsApplied: number; statusUrl: string }

describe.each(DEPLOYMENTS)('a replay that cannot progress, on %s', (kind) => {
  const closing: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of closing.splice(0).reverse()) await c();
    removeDataDirs();
  });

  async function setUp(limits: ReplayLimits) {
    const config = loadConfig(await deploymentEnv(kind));
    const topo = topology(config.topicPrefix);
    const logger = createLogger('silent');
    const log = createLog(config, logger);
    const real = await createStore(config);
    closing.push(async () => { await log.close(); await real.close(); });
    await log.createTopics([{ name: topo.sessionEvents, partitions: config.inboundPartitions }]);
    const perChat = await seed(log, topo);
    const events = [...perChat.values()].reduce((a, b) => a + b, 0);
    const { store, fault } = faultyStore(real);
    const service = new ReplayService(log, store, topo, { pause: async () => undefined, resume: async () => undefined }, logger, Date.now, limits);
    closing.push(async () => { for (const r of fault.release.splice(0)) r(); await service.abort(); });
    const app = Fastify().withTypeProvider<TypeBoxTypeProvider>();
    installErrorHandling(app);
    await app.register(adminReplayRoutes, { pipeline: { replay: service } as unknown as PipelineControl });
    closing.push(() => app.close());
    const startReplay = async () => {
      const res = await app.inject({ method: 'POST', url: '/api/admin/replay', payload: {} });
      return { status: res.statusCode, body: res.json() as JobView & { code?: string } };
    };
    const untilFinished = (statusUrl: string) => eventually(async () => {
      const job = (await app.inject({ method: 'GET', url: statusUrl })).json() as JobView;
      return job.state === 'done' || job.state === 'failed' ? job : undefined;
    }, 90_000, 'the replay to finish');
    const lock = async () => (await real.collection<{ _id: string; jobId: string | null }>(JOBS_COLLECTION).findOne({ _id: REPLAY_LOCK_ID }))?.jobId ?? null;
    return { real, events, eventsOf: (chatId: string) => perChat.get(chatId) ?? 0, fault, service, startReplay, untilFinished, lock, models: new ReadModelSet(real) };
  }

  it('a round that fails the same way every time, for no event\'s fault, ends the job failed with the reason, frees the lock, leaves the served version as it was; the next replay runs', async () => {
    const t = await setUp({ repeatedFailures: 3, failingForMs: 0, stopWaitMs: 10_000 });

    // A healthy replay first: version 2 is served.
    const first = await t.startReplay();
    expect(first.status).toBe(202);
    expect(await t.untilFinished(first.body.statusUrl)).toMatchObject({ state: 'done', eventsApplied: t.events, targetVersion: 2 });
    expect(await t.models.activeVersion()).toBe(2);
    const served = await readModelDocs(t.real);
    expect(served.sessions?.length).toBeGreaterThan(0);
    // A job reads done a moment before its lock is let go; on a loaded machine the next start came in between (409).
    await eventually(async () => ((await t.lock()) === null ? true : undefined), 10_000, 'the first replay\'s lock to be freed');

    // Every write into the next version fails the same way, and not for an event's fault.
    t.fault.version = 3;
    const stuck = await t.startReplay();
    expect(stuck).toMatchObject({ status: 202, body: { state: 'building', targetVersion: 3 } });
    const failed = await t.untilFinished(stuck.body.statusUrl);
    expect(failed.state).toBe('failed');
    expect(failed.error).toContain('cannot progress');
    expect(failed.error).toContain('3 times in a row');
    expect(failed.error).toContain('StoreUnavailableError');
    expect(failed.error).toContain(FAULT);
    await eventually(async () => ((await t.lock()) === null ? true : undefined), 10_000, 'the lock to be freed');
    expect(await t.models.activeVersion()).toBe(2);
    expect(await readModelDocs(t.real)).toEqual(served);
    // Its half-built version is gone (nothing of it can still be written: its consumer stopped).
    expect(await t.models.storedVersions()).toEqual([2]);

    // The next replay is not refused, and with the store healthy again it switches.
    t.fault.version = null;
    const next = await t.startReplay();
    expect(next).toMatchObject({ status: 202, body: { targetVersion: 3 } });
    expect(await t.untilFinished(next.body.statusUrl)).toMatchObject({ state: 'done', eventsApplied: t.events });
    expect(await t.models.activeVersion()).toBe(3);
    expect(await readModelDocs(t.real)).toEqual(served);
  });

  it('a round that never comes back ends the job failed after the stall bound and frees the lock, though its consumer is still stuck', async () => {
    const t = await setUp({ stallMs: 3_000, stopWaitMs: 500 });
    t.fault.version = 2;
    t.fault.mode = 'hang';
    const stuck = await t.startReplay();
    expect(stuck).toMatchObject({ status: 202, body: { targetVersion: 2 } });
    const failed = await t.untilFinished(stuck.body.statusUrl);
    expect(failed.state).toBe('failed');
    expect(failed.error).toMatch(/cannot progress: no round went through for \d+ s/);
    await eventually(async () => ((await t.lock()) === null ? true : undefined), 10_000, 'the lock to be freed');
    expect(await t.models.activeVersion()).toBe(1);

    // The stuck write fails at last; a new replay (above the abandoned version, which its
    // consumer might still have written into) starts and switches.
    t.fault.version = null;
    for (const r of t.fault.release.splice(0)) r();
    const next = await t.startReplay();
    expect(next.status).toBe(202);
    expect(next.body.targetVersion).toBeGreaterThan(2);
    expect(await t.untilFinished(next.body.statusUrl)).toMatchObject({ state: 'done', eventsApplied: t.events });
    expect(await t.models.activeVersion()).toBe(next.body.targetVersion);
  });

  it('an event whose documents cannot be written is set aside (stage write) and the replay switches without it', async () => {
    const t = await setUp({});
    t.fault.version = 2;
    t.fault.mode = 'poison';
    const started = await t.startReplay();
    expect(started.status).toBe(202);
    expect(await t.untilFinished(started.body.statusUrl)).toMatchObject({ state: 'done', eventsApplied: t.events, targetVersion: 2 });
    expect(await t.models.activeVersion()).toBe(2);
    const asides = await t.real.collection<SetAsideDoc>(SET_ASIDE_COLLECTION).find({});
    // Every event of the poisoned chat, and nothing else.
    expect(asides.length).toBe(t.eventsOf(POISONED_FAN));
    for (const a of asides) expect(a).toMatchObject({ stage: 'write', chatKey: expect.stringContaining(POISONED_FAN), error: `Error: ${POISON}` });
    const rm = await t.models.active();
    const chats = (await rm.chats.find({})).map((c) => String(c.chatId)).sort();
    expect(chats).toHaveLength(11);
    expect(chats).not.toContain(POISONED_FAN);
    expect(await rm.messages.countDocuments({})).toBeGreaterThan(0);
  });
});
