// purge-demo fenced with the pipeline (issue 27 item 8, issue 30): the demo accounts' data is
// purged while records of theirs are still on their way through the processor and projector,
// and afterwards no document, total, report bucket, chat state, alert, analysis or registry
// entry of theirs remains, on any read route; other accounts keep theirs; seeding again gives
// the first seed's figures. And PipelineControl.fenced itself: refusals, drain timeout, a
// failing purge that leaves the consumers running, shutdown in the middle.
import { afterAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../src/app.js';
import { createLog, createStore } from '../../src/adapters/index.js';
import type { Log } from '../../src/adapters/log/log.js';
import { loadConfig } from '../../src/config.js';
import { DEFAULT_DEMO_SECRET } from '../../src/demo/demo-records.js';
import { loadDemoAccounts } from '../../src/demo/fixtures.js';
import { messageWebhook } from '../../src/demo/platform-bodies.js';
import { signBody } from '../../src/ingest/signature.js';
import { createIntelligence } from '../../src/intelligence/index.js';
import { ALERTS_COLLECTION, ANALYSES_COLLECTION } from '../../src/intelligence/intelligence.js';
import { DrainTimeoutError, PipelineBusyError, PipelineControl } from '../../src/pipeline-control.js';
import { CHAT_STATE_COLLECTION } from '../../src/processor/session-processor.js';
import { CHAT_LEDGER_COLLECTION } from '../../src/processor/chat-ledger.js';
import { ALL_READ_MODELS } from '../../src/projector/models/names.js';
import { ReadModelSet, collectionName } from '../../src/projector/read-model-set.js';
import { ACCOUNTS_COLLECTION } from '../../src/accounts/registry.js';
import { createLogger } from '../../src/support/logger.js';
import { topology as makeTopology } from '../../src/topology.js';
import { DEPLOYMENTS, deploymentEnv, removeDataDirs, startWithEnv } from '../support/deployments.js';
import { readModelDocs, settledHash } from '../support/read-models.js';
import { eventually } from '../support/wait.js';

const ADMIN = 'admin-token-for-purge-tests-00000';
const auth = { 'content-type': 'application/json', authorization: `Bearer ${ADMIN}` };
const DEMO = loadDemoAccounts().map((a) => a.id);
const OTHER = 'acct_0000000000000000000000000000ee01';

async function call(url: string, method: 'GET' | 'POST', path: string, body?: unknown) {
  const res = await fetch(`${url}${path}`, { method, headers: auth, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
const get = async <T>(url: string, path: string): Promise<T> => {
  const r = await call(url, 'GET', path);
  if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as T;
};

/** Demo-ingest records (signed with the demo secret) of one fan chat: fan, reply, fan, ... */
function chat(accountId: string, fanId: string, firstId: number, count: number, tag: string, chatterId = accountId === OTHER ? 'kept-chatter' : 'purged-chatter') {
  return Array.from({ length: count }, (_, i) => {
    const body = messageWebhook({
      accountId, fanId, messageId: String(firstId + i), text: `${tag} ${i}`, direction: i % 2 === 0 ? 'received' : 'sent',
      createdAt: new Date(Date.UTC(2026, 5, 10, 12, 0, i * 30)).toISOString(),
    });
    return { body, signature: signBody(DEFAULT_DEMO_SECRET, body), idempotencyKey: `evt_purge_${accountId.slice(-4)}_${fanId}_${firstId + i}`, ...(i % 2 === 1 ? { chatterId } : {}) };
  });
}

type AccountItem = { id: string } & Record<string, unknown>;
type Alert = { accountId: string | null; chatterId: string | null; sessionId: string | null };
type Floor = { accounts: { id: string }[]; chatters: { id: string }[]; topAlerts: Alert[]; totals: Record<string, unknown> };

/** The demo accounts' documents in the served read models, without idempotence bookkeeping (offsets differ between two seeds). */
async function demoDocs(app: RunningApp): Promise<string> {
  const docs = await readModelDocs(app.store);
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (v && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v).filter(([k]) => !['appliedOffset', 'appliedIds', '_rev'].includes(k)).sort(([a], [b]) => a.localeCompare(b)).map(([k, x]) => [k, strip(x)]));
    }
    return v;
  };
  return JSON.stringify(Object.fromEntries(Object.entries(docs).map(([name, list]) => [name, strip(list.filter((d) => DEMO.includes((d as { accountId: string }).accountId)))])));
}

/** Who answered in the demo accounts (the fixtures' chatters and the test's own). */
async function demoChatters(app: RunningApp): Promise<string[]> {
  const docs = await readModelDocs(app.store);
  const sessions = (docs.sessions ?? []) as { accountId: string; firstResponderId: string | null }[];
  return [...new Set(sessions.filter((x) => DEMO.includes(x.accountId)).map((x) => x.firstResponderId).filter((c): c is string => c !== null))];
}

/** Every stored trace of the demo accounts, by collection; empty after a purge. */
async function demoTraces(app: RunningApp, chatters: readonly string[] = []): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const version = await new ReadModelSet(app.store).activeVersion();
  const ofDemo = { accountId: { $in: DEMO } };
  for (const name of ALL_READ_MODELS) out[name] = (await app.store.collection(collectionName(name, version)).find(ofDemo)).length;
  out[CHAT_STATE_COLLECTION] = (await app.store.collection(CHAT_STATE_COLLECTION).find({ 'state.context.accountId': { $in: DEMO } })).length;
  out[CHAT_LEDGER_COLLECTION] = (await app.store.collection(CHAT_LEDGER_COLLECTION).find({ chatKey: { $regex: `^(${DEMO.join('|')}):` } })).length;
  out[ALERTS_COLLECTION] = (await app.store.collection(ALERTS_COLLECTION).find(ofDemo)).length;
  // A chatter's alerts name no account: those resting on demo sessions go too.
  out['chatter alerts'] = (await app.store.collection(ALERTS_COLLECTION).find({ chatterId: { $in: [...chatters] } })).length;
  out[ANALYSES_COLLECTION] = (await app.store.collection(ANALYSES_COLLECTION).find({ sessionId: { $regex: `^(${DEMO.join('|')}):` } })).length;
  out[ACCOUNTS_COLLECTION] = (await app.store.collection(ACCOUNTS_COLLECTION).find({ _id: { $in: DEMO } })).length;
  return out;
}

/** What the read routes show of the demo accounts; all empty after a purge. */
async function demoOnRoutes(url: string) {
  const listed = (await get<{ items: AccountItem[] }>(url, '/api/accounts')).items.filter((a) => DEMO.includes(a.id)).map((a) => a.id);
  const floor = await get<Floor>(url, '/api/floor');
  const alerts = (await get<{ items: Alert[] }>(url, '/api/alerts?status=all&limit=500')).items;
  const sessions: string[] = [];
  for (const id of DEMO) sessions.push(...(await get<{ items: { id: string }[] }>(url, `/api/sessions?accountId=${id}&limit=500`)).items.map((s) => s.id));
  return {
    accounts: listed,
    floorAccounts: floor.accounts.filter((a) => DEMO.includes(a.id)).map((a) => a.id),
    floorAlerts: floor.topAlerts.filter((a) => a.accountId !== null && DEMO.includes(a.accountId)).length,
    alerts: alerts.filter((a) => a.accountId !== null && DEMO.includes(a.accountId)).length,
    sessions,
  };
}
const NOTHING = { accounts: [], floorAccounts: [], floorAlerts: 0, alerts: 0, sessions: [] };

describe.each(DEPLOYMENTS)('purge-demo fenced with the pipeline (%s)', (kind) => {
  const apps: RunningApp[] = [];
  afterAll(async () => {
    await Promise.all(apps.map((a) => a.stop()));
    removeDataDirs();
  });

  it("purges the demo accounts mid-flight: no row, alert or count of theirs remains, others keep theirs, and seeding again gives the first seed's figures", async () => {
    // Sweeps every second, so the demo's waiting fans have stored alerts before the purge.
    const app = await startWithEnv(deploymentEnv(kind, { ADMIN_TOKEN: ADMIN, ALERT_SWEEP_SEC: '1' }));
    apps.push(app);
    const url = app.url ?? '';
    expect((await call(url, 'POST', '/api/demo/ingest', { records: chat(OTHER, '71001', 1790000100000, 4, 'kept') })).status).toBe(200);
    expect((await call(url, 'POST', '/api/admin/seed-demo', { timeline: 'original' })).status).toBe(200);
    await settledHash(url, app.store);
    const first = await get<{ items: AccountItem[] }>(url, '/api/accounts');
    const firstDemo = first.items.filter((a) => DEMO.includes(a.id));
    expect(firstDemo.map((a) => a.id)).toEqual(DEMO);
    const firstDocs = await demoDocs(app);
    const firstOverview = await get<{ messages: { total: number }; revenue: { cents: number } }>(url, '/api/overview');
    // The purge has something to remove on every route: stored alerts included.
    await eventually(async () => ((await demoTraces(app))[ALERTS_COLLECTION] ?? 0) > 0 || undefined, 30_000, 'demo alerts stored by the sweep');
    const chatters = [...await demoChatters(app), 'purged-chatter'];
    const before = await demoOnRoutes(url);
    expect(before.accounts).toEqual(DEMO);
    expect(before.floorAccounts.length).toBeGreaterThan(0);
    expect(before.alerts).toBeGreaterThan(0);
    expect(before.sessions.length).toBeGreaterThan(0);
    expect(chatters.length).toBeGreaterThan(1);

    // More demo records on their way: the whole seed again (redeliveries the processor must
    // still step through) and new chats and messages in existing ones. They are in the log,
    // not yet through the pipeline, when the purge comes.
    expect((await call(url, 'POST', '/api/admin/seed-demo', { timeline: 'original' })).status).toBe(200);
    const more = [...chat(DEMO[0] ?? '', '71002', 1790000200000, 40, 'new chat'), ...chat(DEMO[1] ?? '', '300001015', 1790000300000, 40, 'old chat')];
    expect((await call(url, 'POST', '/api/demo/ingest', { records: more })).status).toBe(200);
    // Another account's records arrive during the purge: concurrent with it, never purged.
    const [purged, other] = await Promise.all([
      call(url, 'POST', '/api/admin/purge-demo', {}),
      call(url, 'POST', '/api/demo/ingest', { records: chat(OTHER, '71003', 1790000400000, 4, 'during') }),
    ]);
    expect(other.status).toBe(200);
    expect(purged).toMatchObject({ status: 200, body: { status: 'purged', accounts: DEMO } });
    const removed = purged.body.removed as Record<string, number>;
    for (const name of ['sessions', 'messages', 'account_stats', 'report_buckets', CHAT_STATE_COLLECTION, CHAT_LEDGER_COLLECTION, ALERTS_COLLECTION]) expect(removed[name], name).toBeGreaterThan(0);
    expect(removed[ACCOUNTS_COLLECTION]).toBe(DEMO.length);

    // At once, and still after the pipeline settles and the sweep has run again: nothing of theirs.
    expect(await demoOnRoutes(url)).toEqual(NOTHING);
    await settledHash(url, app.store);
    await new Promise((r) => setTimeout(r, 2_500));
    expect(await demoOnRoutes(url)).toEqual(NOTHING);
    expect(Object.values(await demoTraces(app, chatters)).every((n) => n === 0), JSON.stringify(await demoTraces(app, chatters))).toBe(true);
    const floor = await get<Floor>(url, '/api/floor');
    expect(floor.chatters.map((c) => c.id)).toEqual(['kept-chatter']);
    const overview = await get<{ accounts: number; messages: { total: number } }>(url, '/api/overview');
    expect(overview).toMatchObject({ accounts: 1, messages: { total: 8 } });
    const kept = (await get<{ items: AccountItem[] }>(url, `/api/accounts?accountId=${OTHER}`)).items;
    expect(kept).toEqual([expect.objectContaining({ id: OTHER, messages: 8, chats: 2 })]);
    expect(await call(url, 'GET', '/api/admin/verify')).toMatchObject({ status: 200, body: { ok: true, differences: [] } });

    // Seeding again: the first seed's figures and documents, nothing of the purged extras.
    expect((await call(url, 'POST', '/api/admin/seed-demo', { timeline: 'original' })).status).toBe(200);
    await settledHash(url, app.store);
    const again = (await get<{ items: AccountItem[] }>(url, '/api/accounts')).items.filter((a) => DEMO.includes(a.id));
    expect(again).toEqual(firstDemo);
    expect(await demoDocs(app)).toBe(firstDocs);
    const overviewAgain = await get<{ messages: { total: number }; revenue: { cents: number } }>(url, '/api/overview');
    expect(overviewAgain.messages.total).toBe(firstOverview.messages.total + 4);
    expect(overviewAgain.revenue.cents).toBe(firstOverview.revenue.cents);
    expect(await call(url, 'GET', '/api/admin/verify')).toMatchObject({ status: 200, body: { ok: true, differences: [] } });
  }, 300_000);
});

describe('purge-demo refusals', () => {
  const apps: RunningApp[] = [];
  afterAll(async () => {
    await Promise.all(apps.map((a) => a.stop()));
    removeDataDirs();
  });

  it('answers 409 in a process that does not run the processor and the projector, and changes nothing', async () => {
    const app = await startWithEnv(deploymentEnv('embedded', { ADMIN_TOKEN: ADMIN, ROLES: 'api,processor' }));
    apps.push(app);
    const url = app.url ?? '';
    expect((await call(url, 'POST', '/api/admin/seed-demo', { timeline: 'original' })).status).toBe(200);
    const r = await call(url, 'POST', '/api/admin/purge-demo', {});
    expect(r).toMatchObject({ status: 409, body: { code: 'CONFLICT', message: expect.stringContaining('processor and the projector') } });
    expect((await app.store.collection(ACCOUNTS_COLLECTION).find({ _id: { $in: DEMO } })).length).toBe(DEMO.length);
  });
});

describe('PipelineControl.fenced', () => {
  const env = (extra: Record<string, string> = {}) => deploymentEnv('embedded', { ALERT_SWEEP_SEC: '0', ...extra });
  const opened: { pipeline: PipelineControl; log: Log; close: () => Promise<void> }[] = [];
  afterAll(async () => {
    for (const o of opened) await o.close();
    removeDataDirs();
  });

  /** Calls through to `target`, except the methods `override` gives while it gives them. */
  function intercept<T extends object>(target: T, override: (key: string | symbol) => unknown): T {
    return new Proxy(target, {
      get(t, key) {
        const o = override(key);
        if (o !== undefined) return o;
        const v = Reflect.get(t, key, t) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v;
      },
    });
  }

  /**
   * A pipeline over an embedded deployment; `stuck` makes the log report no committed offsets
   * (consumers never catch up), `noIndexes` makes every index creation fail (stages cannot start).
   */
  async function pipelineOf(extra: Record<string, string> = {}) {
    const config = loadConfig(env(extra));
    const logger = createLogger('silent');
    const real = createLog(config, logger);
    const realStore = await createStore(config);
    const topology = makeTopology(config.topicPrefix);
    await real.createTopics([{ name: topology.inbound, partitions: config.inboundPartitions }, { name: topology.sessionEvents, partitions: config.inboundPartitions }]);
    const state = { stuck: false, noIndexes: false };
    const log = intercept(real, (key) => (key === 'committedOffsets' && state.stuck ? async () => ({}) : undefined));
    const store = intercept(realStore, (key) => (key === 'collection'
      ? (name: string) => intercept(realStore.collection(name), (k) => (k === 'createIndex' && state.noIndexes ? async () => { throw new Error('store down'); } : undefined))
      : undefined));
    const pipeline = new PipelineControl(config, log, store, topology, logger, createIntelligence(config, store, logger).intelligence);
    await pipeline.start();
    const entry = { pipeline, log, close: async () => { await pipeline.stop(); await real.close(); await realStore.close(); } };
    opened.push(entry);
    return { ...entry, state, topology };
  }
  const allRunning = (p: PipelineControl): boolean => p.stages().length === 3 && p.stages().every((s) => s.running);
  const counters = (p: PipelineControl) => p.counters();

  it('runs the work with the consumers stopped, and starts them again when it throws', async () => {
    const { pipeline } = await pipelineOf();
    await expect(pipeline.fenced(async () => {
      // Held on purpose: readiness does not flap, but no consumer runs.
      expect(allRunning(pipeline)).toBe(true);
      expect(counters(pipeline)).toEqual({ processor: null, projector: null });
      throw new Error('purge failed half way');
    })).rejects.toThrow('purge failed half way');
    expect(allRunning(pipeline)).toBe(true);
    expect(counters(pipeline).processor).not.toBeNull();
    expect(await pipeline.fenced(async () => 'done')).toBe('done');
    expect(allRunning(pipeline)).toBe(true);
  });

  it('keeps starting the consumers again in the background when the first restart fails', async () => {
    const { pipeline, state } = await pipelineOf();
    await expect(pipeline.fenced(async () => { state.noIndexes = true; })).rejects.toThrow('store down');
    expect(pipeline.stages().every((s) => s.running)).toBe(false);
    // Meanwhile no other purge or reset starts them a second time.
    await expect(pipeline.fenced(async () => undefined)).rejects.toBeInstanceOf(PipelineBusyError);
    state.noIndexes = false;
    await eventually(() => allRunning(pipeline) || undefined, 10_000, 'consumers running again');
    expect(await pipeline.fenced(async () => 'done')).toBe('done');
  });

  it('gives up without stopping anything when the consumers do not catch up, and refuses a second one meanwhile', async () => {
    const { pipeline, log, state, topology } = await pipelineOf();
    await log.append(topology.inbound, [{ key: 'acct_x:1', value: '{}' }]);
    state.stuck = true;
    let ran = false;
    const first = pipeline.fenced(async () => { ran = true; }, 300);
    await expect(pipeline.fenced(async () => undefined)).rejects.toBeInstanceOf(PipelineBusyError);
    await expect(first).rejects.toBeInstanceOf(DrainTimeoutError);
    expect(ran).toBe(false);
    expect(counters(pipeline).processor).not.toBeNull();
    expect(allRunning(pipeline)).toBe(true);
    state.stuck = false;
  });

  it('refuses where the processor and projector do not both run, and stops for good on shutdown', async () => {
    const apiOnly = await pipelineOf({ ROLES: 'api,projector' });
    await expect(apiOnly.pipeline.fenced(async () => undefined)).rejects.toBeInstanceOf(PipelineBusyError);

    const { pipeline, log, state, topology } = await pipelineOf();
    await log.append(topology.inbound, [{ key: 'acct_x:1', value: '{}' }]);
    state.stuck = true;
    const waiting = pipeline.fenced(async () => undefined);
    await new Promise((r) => setTimeout(r, 100));
    await pipeline.stop();
    await expect(waiting).rejects.toBeInstanceOf(PipelineBusyError);
    expect(pipeline.stages()).toEqual([]);
    await expect(pipeline.fenced(async () => undefined)).rejects.toBeInstanceOf(PipelineBusyError);
  });
});
