// The demo routes (seed-demo, demo ingest, purge-demo) over the real embedded store and
// pipeline, through inject(): both demo paths give the same read models, a tampered record
// stores nothing, and purge-demo removes every trace of the demo accounts, fenced with the
// pipeline, while other accounts keep theirs.
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_DEMO_SECRET } from '../../src/config.js';
import { loadDemoAccounts, loadDemoRecords } from '../../src/demo/fixtures.js';
import { messageWebhook } from '../../src/demo/platform-bodies.js';
import { signBody } from '../../src/ingest/signature.js';
import { ALERTS_COLLECTION, ANALYSES_COLLECTION } from '../../src/intelligence/intelligence.js';
import { CHAT_STATE_COLLECTION } from '../../src/processor/session-processor.js';
import { CHAT_LEDGER_COLLECTION } from '../../src/processor/chat-ledger.js';
import { ALL_READ_MODELS } from '../../src/read-models/names.js';
import { ReadModelSet, collectionName } from '../../src/read-models/read-model-set.js';
import { ACCOUNTS_COLLECTION } from '../../src/accounts/registry.js';
import { startHarness, type Harness } from '../support/app-harness.js';
import { readModelDocs, readModelHash } from '../support/read-models.js';
import { eventually } from '../support/wait.js';

const ADMIN = 'admin-token-for-demo-tests-000000';
const DEMO = loadDemoAccounts().map((a) => a.id);
const OTHER = 'acct_0000000000000000000000000000ee01';

const started: Harness[] = [];
afterAll(async () => { await Promise.all(started.map((h) => h.stop())); });
async function start(env: Record<string, string> = {}): Promise<Harness> {
  const h = await startHarness({ ADMIN_TOKEN: ADMIN, ...env });
  started.push(h);
  return h;
}
const admin = (h: Harness, method: string, path: string, body?: unknown) => h.call(method, path, { token: ADMIN, body });
async function get<T>(h: Harness, path: string): Promise<T> {
  const r = await admin(h, 'GET', path);
  if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${r.text}`);
  return r.body as T;
}

/** Demo-ingest records (signed with the demo secret) of one fan chat: fan, reply, fan, ... */
function chat(accountId: string, fanId: string, firstId: number, count: number, tag: string, chatterId = accountId === OTHER ? 'kept-chatter' : 'purged-chatter', from = Date.UTC(2026, 5, 10, 12)) {
  return Array.from({ length: count }, (_, i) => {
    const body = messageWebhook({
      accountId, fanId, messageId: String(firstId + i), text: `${tag} ${i}`, direction: i % 2 === 0 ? 'received' : 'sent',
      createdAt: new Date(from + i * 30_000).toISOString(),
    });
    return { body, signature: signBody(DEFAULT_DEMO_SECRET, body), idempotencyKey: `evt_purge_${accountId.slice(-4)}_${fanId}_${firstId + i}`, ...(i % 2 === 1 ? { chatterId } : {}) };
  });
}

describe('seed-demo and demo ingest', () => {
  it('seeding and signed demo ingest of the same fixtures give the same read models, the dataset the issue asks for', async () => {
    const records = loadDemoRecords();
    const seeded = await start();
    expect(await admin(seeded, 'POST', '/api/admin/seed-demo', { timeline: 'original' })).toMatchObject({ status: 200, body: { status: 'seeded', records: records.length } });
    await seeded.settled();

    const ingested = await start();
    for (let i = 0; i < records.length; i += 500) {
      const r = await admin(ingested, 'POST', '/api/demo/ingest', { records: records.slice(i, i + 500) });
      expect(r).toMatchObject({ status: 200, body: { accepted: Math.min(500, records.length - i) } });
    }
    await ingested.settled();
    // Seeding tells each chat its history is complete, so months-old sessions close at once;
    // records ingested one batch at a time wait for the clock: a tick past the lateness.
    await ingested.tick(Date.now() + 10 * 60_000);
    await ingested.settled();
    expect(await readModelHash(ingested.store)).toBe(await readModelHash(seeded.store));

    const docs = await readModelDocs(seeded.store);
    const sessions = docs.sessions as { accountId: string; chatId: string; awaiting: boolean }[];
    expect(new Set(sessions.map((s) => s.accountId)).size).toBe(3);
    expect(new Set(sessions.map((s) => `${s.accountId}:${s.chatId}`)).size).toBe(60);
    expect((docs.messages as unknown[]).length).toBeGreaterThanOrEqual(2000);
    expect(sessions.filter((s) => s.awaiting).length).toBeGreaterThan(0);
    // Months old, seeded as complete history: nothing is left open, and a fan who never got an answer closed as unanswered.
    expect(sessions.filter((s) => (s as unknown as { status: string }).status === 'open')).toEqual([]);
    expect(sessions.some((s) => (s as unknown as { closeReason: string }).closeReason === 'unanswered')).toBe(true);
    expect((docs.payments as unknown[]).length).toBeGreaterThan(0);
    const chatters = new Set((docs.payments as { chatterId: string | null }[]).map((p) => p.chatterId).filter(Boolean));
    expect(chatters.size).toBeGreaterThanOrEqual(3);
  });

  it('refuses a tampered record with 401 naming it and an empty batch with 400, and stores nothing of either', async () => {
    const h = await start();
    const [a, b] = loadDemoRecords();
    if (!a || !b) throw new Error('no fixtures');
    const tampered = { ...b, body: b.body.replace('"account_id":"acct_', '"account_id":"acct_x') };
    expect(await admin(h, 'POST', '/api/demo/ingest', { records: [a, tampered] }))
      .toMatchObject({ status: 401, body: { code: 'UNAUTHORIZED', message: expect.stringContaining('records.1.signature') } });
    expect(await admin(h, 'POST', '/api/demo/ingest', { records: [] })).toMatchObject({ status: 400, body: { code: 'INVALID_INPUT' } });
    expect(await h.call('POST', '/api/demo/ingest', { body: { records: [a] } })).toMatchObject({ status: 401 });
    await h.settled();
    expect((await readModelDocs(h.store)).messages).toEqual([]);
  });
});

type AccountItem = { id: string } & Record<string, unknown>;
type Alert = { accountId: string | null; chatterId: string | null; sessionId: string | null };
type Floor = { accounts: { id: string }[]; chatters: { id: string }[]; topAlerts: Alert[]; totals: Record<string, unknown> };

/** The demo accounts' documents in the served read models, without idempotence bookkeeping (offsets differ between two seeds). */
async function demoDocs(h: Harness): Promise<string> {
  const docs = await readModelDocs(h.store);
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (v && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v).filter(([k]) => !['appliedOffset', 'appliedIds', '_rev'].includes(k)).sort(([x], [y]) => x.localeCompare(y)).map(([k, x]) => [k, strip(x)]));
    }
    return v;
  };
  return JSON.stringify(Object.fromEntries(Object.entries(docs).map(([name, list]) => [name, strip(list.filter((d) => DEMO.includes((d as { accountId: string }).accountId)))])));
}

/** Every stored trace of the demo accounts, by collection; empty after a purge. */
async function demoTraces(h: Harness, chatters: readonly string[] = []): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const version = await new ReadModelSet(h.store).activeVersion();
  const ofDemo = { accountId: { $in: DEMO } };
  for (const name of ALL_READ_MODELS) out[name] = (await h.store.collection(collectionName(name, version)).find(ofDemo)).length;
  out[CHAT_STATE_COLLECTION] = (await h.store.collection(CHAT_STATE_COLLECTION).find({ _id: { $regex: `^(${DEMO.join('|')}):` } })).length;
  out[CHAT_LEDGER_COLLECTION] = (await h.store.collection(CHAT_LEDGER_COLLECTION).find({ chatKey: { $regex: `^(${DEMO.join('|')}):` } })).length;
  out[ALERTS_COLLECTION] = (await h.store.collection(ALERTS_COLLECTION).find(ofDemo)).length;
  // A chatter's alerts name no account: those resting on demo sessions go too.
  out['chatter alerts'] = (await h.store.collection(ALERTS_COLLECTION).find({ chatterId: { $in: [...chatters] } })).length;
  out[ANALYSES_COLLECTION] = (await h.store.collection(ANALYSES_COLLECTION).find({ sessionId: { $regex: `^(${DEMO.join('|')}):` } })).length;
  out[ACCOUNTS_COLLECTION] = (await h.store.collection(ACCOUNTS_COLLECTION).find({ _id: { $in: DEMO } })).length;
  return out;
}

/** What the read routes show of the demo accounts; all empty after a purge. */
async function demoOnRoutes(h: Harness) {
  const listed = (await get<{ items: AccountItem[] }>(h, '/api/accounts')).items.filter((a) => DEMO.includes(a.id)).map((a) => a.id);
  const floor = await get<Floor>(h, '/api/floor');
  const alerts = (await get<{ items: Alert[] }>(h, '/api/alerts?status=all&limit=500')).items;
  const sessions: string[] = [];
  for (const id of DEMO) sessions.push(...(await get<{ items: { id: string }[] }>(h, `/api/sessions?accountId=${id}&limit=500`)).items.map((s) => s.id));
  return {
    accounts: listed,
    floorAccounts: floor.accounts.filter((a) => DEMO.includes(a.id)).map((a) => a.id),
    floorAlerts: floor.topAlerts.filter((a) => a.accountId !== null && DEMO.includes(a.accountId)).length,
    alerts: alerts.filter((a) => a.accountId !== null && DEMO.includes(a.accountId)).length,
    sessions,
  };
}
const NOTHING = { accounts: [], floorAccounts: [], floorAlerts: 0, alerts: 0, sessions: [] };

describe('purge-demo', () => {
  it("purges the demo accounts mid-flight: no row, alert or count of theirs remains, others keep theirs, and seeding again gives the first seed's figures", async () => {
    // Sweeps every second, so the demo's waiting fans have stored alerts before the purge.
    const h = await start({ ALERT_SWEEP_SEC: '1' });
    expect((await admin(h, 'POST', '/api/demo/ingest', { records: chat(OTHER, '71001', 1790000100000, 4, 'kept') })).status).toBe(200);
    expect((await admin(h, 'POST', '/api/admin/seed-demo', { timeline: 'original' })).status).toBe(200);
    await h.settled();
    const firstDemo = (await get<{ items: AccountItem[] }>(h, '/api/accounts')).items.filter((a) => DEMO.includes(a.id));
    expect(firstDemo.map((a) => a.id)).toEqual(DEMO);
    const firstDocs = await demoDocs(h);
    const firstOverview = await get<{ messages: { total: number }; revenue: { cents: number } }>(h, '/api/overview');
    // The purge has something to remove on every route: stored alerts included. The seeded
    // history is months old and closed; a demo fan who wrote ten minutes ago waits.
    expect((await admin(h, 'POST', '/api/demo/ingest', { records: chat(DEMO[0] ?? '', '71003', 1790000400000, 1, 'waiting now', undefined, Date.now() - 10 * 60_000) })).status).toBe(200);
    await eventually(async () => ((await demoTraces(h))[ALERTS_COLLECTION] ?? 0) > 0 || undefined, 30_000, 'demo alerts stored by the sweep');
    const docs = await readModelDocs(h.store);
    const responders = (docs.sessions as { accountId: string; firstResponderId: string | null }[]).filter((x) => DEMO.includes(x.accountId)).map((x) => x.firstResponderId);
    const chatters = [...new Set(responders.filter((c): c is string => c !== null)), 'purged-chatter'];
    const before = await demoOnRoutes(h);
    expect(before.accounts).toEqual(DEMO);
    expect(before.floorAccounts.length).toBeGreaterThan(0);
    expect(before.alerts).toBeGreaterThan(0);
    expect(before.sessions.length).toBeGreaterThan(0);
    expect(chatters.length).toBeGreaterThan(1);

    // More demo records on their way, in the log but not yet through the pipeline when the
    // purge comes: the whole seed again, and new chats and messages in existing ones.
    expect((await admin(h, 'POST', '/api/admin/seed-demo', { timeline: 'original' })).status).toBe(200);
    const more = [...chat(DEMO[0] ?? '', '71002', 1790000200000, 40, 'new chat'), ...chat(DEMO[1] ?? '', '300001015', 1790000300000, 40, 'old chat')];
    expect((await admin(h, 'POST', '/api/demo/ingest', { records: more })).status).toBe(200);
    expect(await h.call('POST', '/api/admin/purge-demo', { body: {} })).toMatchObject({ status: 401 });
    // Another account's records arrive during the purge: concurrent with it, never purged.
    const [purged, other] = await Promise.all([
      admin(h, 'POST', '/api/admin/purge-demo', {}),
      admin(h, 'POST', '/api/demo/ingest', { records: chat(OTHER, '71003', 1790000400000, 4, 'during') }),
    ]);
    expect(other.status).toBe(200);
    expect(purged).toMatchObject({ status: 200, body: { status: 'purged', accounts: DEMO } });
    const removed = (purged.body as { removed: Record<string, number> }).removed;
    for (const name of ['sessions', 'messages', 'account_stats', 'report_buckets', CHAT_STATE_COLLECTION, CHAT_LEDGER_COLLECTION, ALERTS_COLLECTION]) expect(removed[name], name).toBeGreaterThan(0);
    expect(removed[ACCOUNTS_COLLECTION]).toBe(DEMO.length);

    // At once, and still after the pipeline settles and the sweep has run again: nothing of theirs.
    expect(await demoOnRoutes(h)).toEqual(NOTHING);
    await h.settled();
    await new Promise((r) => setTimeout(r, 2_500));
    expect(await demoOnRoutes(h)).toEqual(NOTHING);
    const traces = await demoTraces(h, chatters);
    expect(Object.values(traces).every((n) => n === 0), JSON.stringify(traces)).toBe(true);
    // The kept account's chatter keeps her scorecard row (its chat is months old: closed, so
    // not on the floor's open rows); nothing of the purged chatter's is left.
    expect((await get<{ items: { chatterId: string }[] }>(h, '/api/chatters/scorecard?from=2026-01-01')).items.map((c) => c.chatterId)).toEqual(['kept-chatter']);
    expect((await get<Floor>(h, '/api/floor')).chatters).toEqual([]);
    expect(await get(h, '/api/overview')).toMatchObject({ accounts: 1, messages: { total: 8 } });
    expect((await get<{ items: AccountItem[] }>(h, `/api/accounts?accountId=${OTHER}`)).items).toEqual([expect.objectContaining({ id: OTHER, messages: 8, chats: 2 })]);
    expect(await admin(h, 'GET', '/api/admin/verify')).toMatchObject({ status: 200, body: { ok: true, differences: [] } });

    // Seeding again: the first seed's figures and documents (the purge forgot the chats' dedupe
    // ledger too), nothing of the purged extras.
    expect((await admin(h, 'POST', '/api/admin/seed-demo', { timeline: 'original' })).status).toBe(200);
    await h.settled();
    expect((await get<{ items: AccountItem[] }>(h, '/api/accounts')).items.filter((a) => DEMO.includes(a.id))).toEqual(firstDemo);
    expect(await demoDocs(h)).toBe(firstDocs);
    const overviewAgain = await get<{ messages: { total: number }; revenue: { cents: number } }>(h, '/api/overview');
    expect(overviewAgain.messages.total).toBe(firstOverview.messages.total + 4);
    expect(overviewAgain.revenue.cents).toBe(firstOverview.revenue.cents);
    expect(await admin(h, 'GET', '/api/admin/verify')).toMatchObject({ status: 200, body: { ok: true, differences: [] } });

    // A full reset empties the read models and the alerts, and the pipeline keeps working
    // without replaying the old log into them.
    expect(await admin(h, 'POST', '/api/admin/purge-demo', { full: true })).toMatchObject({ status: 200, body: { status: 'reset' } });
    expect(Object.values(await readModelDocs(h.store)).every((d) => d.length === 0)).toBe(true);
    expect(await h.store.collection(ALERTS_COLLECTION).find({})).toEqual([]);
    const [first] = loadDemoRecords();
    expect((await admin(h, 'POST', '/api/demo/ingest', { records: [first] })).status).toBe(200);
    await h.settled();
    const after = await readModelDocs(h.store);
    expect((after.sessions as unknown[]).length + (after.payments as unknown[]).length).toBe(1);
  }, 300_000);

  it('answers 409 in a process that does not run the processor and the projector, and changes nothing', async () => {
    const h = await start({ ROLES: 'api,processor' });
    expect((await admin(h, 'POST', '/api/admin/seed-demo', { timeline: 'original' })).status).toBe(200);
    expect(await admin(h, 'POST', '/api/admin/purge-demo', {})).toMatchObject({ status: 409, body: { code: 'CONFLICT', message: expect.stringContaining('processor and the projector') } });
    expect((await h.store.collection(ACCOUNTS_COLLECTION).find({ _id: { $in: DEMO } })).length).toBe(DEMO.length);
  });
});
