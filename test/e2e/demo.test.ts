// The demo dataset through both demo paths, purge, full reset, and the connector feed.
import { afterAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../src/app.js';
import { loadDemoAccounts, loadDemoRecords } from '../../src/demo/fixtures.js';
import { deploymentEnv, removeDataDirs, startWithEnv } from '../support/deployments.js';
import { getJson, postWebhook } from '../support/platform.js';
import { messageWebhook } from '../../src/demo/platform-bodies.js';
import { readModelDocs, settledHash } from '../support/read-models.js';
import { eventually } from '../support/wait.js';

const ADMIN = 'admin-token-for-demo-tests-000000';
const CONNECTOR = 'connector-token-for-tests-000000';
const auth = (token: string) => ({ 'content-type': 'application/json', authorization: `Bearer ${token}` });

async function post(url: string, path: string, body: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }) {
  const res = await fetch(`${url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('demo data', () => {
  const apps: RunningApp[] = [];
  afterAll(async () => {
    await Promise.all(apps.map((a) => a.stop()));
    removeDataDirs();
  });
  const start = async (extra: Record<string, string> = {}) => {
    const app = await startWithEnv(deploymentEnv('embedded', { ADMIN_TOKEN: ADMIN, CONNECTOR_TOKEN: CONNECTOR, ...extra }));
    apps.push(app);
    return { app, url: app.url ?? '' };
  };

  it('seeding and signed demo ingest of the same fixtures give the same read models', async () => {
    const records = loadDemoRecords();
    const seeded = await start();
    const seed = await post(seeded.url, '/api/admin/seed-demo', { timeline: 'original' }, auth(ADMIN));
    expect(seed).toMatchObject({ status: 200, body: { status: 'seeded', records: records.length } });
    const seededHash = await settledHash(seeded.url, seeded.app.store);

    const ingested = await start();
    for (let i = 0; i < records.length; i += 500) {
      const r = await post(ingested.url, '/api/demo/ingest', { records: records.slice(i, i + 500) }, auth(ADMIN));
      expect(r).toMatchObject({ status: 200, body: { accepted: Math.min(500, records.length - i) } });
    }
    expect(await settledHash(ingested.url, ingested.app.store)).toBe(seededHash);

    // The dataset is what the issue asks for.
    const docs = await readModelDocs(seeded.app.store);
    const sessions = docs.sessions as { accountId: string; chatId: string; awaiting: boolean; revenueCents: number }[];
    const messages = docs.messages as unknown[];
    expect(new Set(sessions.map((s) => s.accountId)).size).toBe(3);
    expect(new Set(sessions.map((s) => `${s.accountId}:${s.chatId}`)).size).toBe(60);
    expect(messages.length).toBeGreaterThanOrEqual(2000);
    expect(sessions.filter((s) => s.awaiting).length).toBeGreaterThan(0);
    expect((docs.payments as unknown[]).length).toBeGreaterThan(0);
    const chatters = new Set((docs.payments as { chatterId: string | null }[]).map((p) => p.chatterId).filter(Boolean));
    expect(chatters.size).toBeGreaterThanOrEqual(3);
  });

  it('refuses a tampered record with 401 naming it, and stores nothing of the batch', async () => {
    const { app, url } = await start();
    const [a, b] = loadDemoRecords();
    if (!a || !b) throw new Error('no fixtures');
    const tampered = { ...b, body: b.body.replace('"account_id":"acct_', '"account_id":"acct_x') };
    const r = await post(url, '/api/demo/ingest', { records: [a, tampered] }, auth(ADMIN));
    expect(r).toMatchObject({ status: 401, body: { code: 'UNAUTHORIZED', message: expect.stringContaining('records.1.signature') } });
    const bad = await post(url, '/api/demo/ingest', { records: [] }, auth(ADMIN));
    expect(bad).toMatchObject({ status: 400, body: { code: 'INVALID_INPUT' } });
    await new Promise((res) => setTimeout(res, 500));
    expect(await settledHash(url, app.store)).toBe(await settledHash(url, app.store));
    expect((await readModelDocs(app.store)).messages).toEqual([]);
  });

  it("purges the demo accounts' data, and a full reset empties the pipeline and keeps working", async () => {
    // Sweeps every second, so alerts are stored before the reset.
    const { app, url } = await start({ ALERT_SWEEP_SEC: '1' });
    expect((await post(url, '/api/admin/seed-demo', {}, auth(ADMIN))).status).toBe(200);
    await settledHash(url, app.store);
    expect(await post(url, '/api/admin/purge-demo', {}, { 'content-type': 'application/json' })).toMatchObject({ status: 401 });
    const purged = await post(url, '/api/admin/purge-demo', {}, auth(ADMIN));
    expect(purged).toMatchObject({ status: 200, body: { status: 'purged', accounts: loadDemoAccounts().map((x) => x.id) } });
    expect(((purged.body.removed as Record<string, number>).sessions ?? 0)).toBeGreaterThan(0);
    expect((await getJson<{ items: unknown[] }>(url, '/api/sessions')).body.items).toEqual([]);
    // Seeding again brings the data back: the purge forgot the chats' dedupe ledger too.
    expect((await post(url, '/api/admin/seed-demo', {}, auth(ADMIN))).status).toBe(200);
    await settledHash(url, app.store);
    expect((await getJson<{ items: unknown[] }>(url, '/api/sessions')).body.items.length).toBeGreaterThan(0);

    await eventually(async () => (await app.store.collection('alerts').find({})).length > 0 || undefined, 20_000, 'stored alerts');
    const reset = await post(url, '/api/admin/purge-demo', { full: true }, auth(ADMIN));
    expect(reset).toMatchObject({ status: 200, body: { status: 'reset' } });
    const docs = await readModelDocs(app.store);
    expect(Object.values(docs).every((d) => d.length === 0)).toBe(true);
    // No alert of a dropped session stays on the floor.
    expect(await app.store.collection('alerts').find({})).toEqual([]);
    // The pipeline still runs after the reset, and the old log is not replayed into it.
    const [first] = loadDemoRecords();
    expect((await post(url, '/api/demo/ingest', { records: [first] }, auth(ADMIN))).status).toBe(200);
    await settledHash(url, app.store);
    const after = await readModelDocs(app.store);
    expect((after.sessions as unknown[]).length + (after.payments as unknown[]).length).toBeLessThanOrEqual(1);
  });

  it('the connector feed records outbound messages with their chatter', async () => {
    const { url } = await start();
    const body = { accountId: 'acct_0c0000000000000000000000000000c1', messages: [{ chatId: '123', messageId: '5550001', text: 'hi from the connector', sentAt: '2026-06-10T10:00:00Z', chatterId: 'zoe' }] };
    expect(await post(url, '/api/connector/ingest', body)).toMatchObject({ status: 401 });
    expect(await post(url, '/api/connector/ingest', body, auth(CONNECTOR))).toMatchObject({ status: 200, body: { accepted: 1 } });
    expect(await post(url, '/api/connector/ingest', { ...body, messages: [{ ...body.messages[0], sentAt: 'yesterday' }] }, auth(CONNECTOR))).toMatchObject({ status: 400, body: { message: expect.stringContaining('sentAt') } });
    const msgs = await eventually(async () => {
      const m = (await getJson<{ items: { id: string; chatterId: string; sender: string }[] }>(url, '/api/messages?chatId=123')).body.items;
      return m.length > 0 ? m : undefined;
    }, 20_000, 'connector message');
    expect(msgs).toEqual([expect.objectContaining({ id: '5550001', chatterId: 'zoe', sender: 'human' })]);
  });

  it('the connector names the chatter of a reply the webhook recorded first, and the session credits her', async () => {
    const { url } = await start();
    const accountId = 'acct_0c0000000000000000000000000000c2';
    const fan = messageWebhook({ accountId, fanId: '456', messageId: '5560001', createdAt: '2026-06-10T10:00:00Z', text: 'hello?', direction: 'received' });
    const reply = messageWebhook({ accountId, fanId: '456', messageId: '5560002', createdAt: '2026-06-10T10:02:00Z', text: 'hi!', direction: 'sent' });
    expect((await postWebhook(url, fan, { key: 'evt_conn_fan' })).status).toBe(200);
    expect((await postWebhook(url, reply, { key: 'evt_conn_reply' })).status).toBe(200);
    const copy = { accountId, messages: [{ chatId: '456', messageId: '5560002', text: 'hi!', sentAt: '2026-06-10T10:02:00Z', chatterId: 'maya' }] };
    expect(await post(url, '/api/connector/ingest', copy, auth(CONNECTOR))).toMatchObject({ status: 200 });
    const session = await eventually(async () => {
      const items = (await getJson<{ items: { chatId: string; firstResponderId: string | null; messageCount: number }[] }>(url, '/api/sessions')).body.items;
      const s = items.find((i) => i.chatId === '456');
      return s?.firstResponderId ? s : undefined;
    }, 20_000, 'attributed session');
    expect(session).toMatchObject({ firstResponderId: 'maya', messageCount: 2 });
    const msgs = (await getJson<{ items: { id: string; chatterId: string | null }[] }>(url, '/api/messages?chatId=456')).body.items;
    expect(msgs.find((m) => m.id === '5560002')).toMatchObject({ chatterId: 'maya' });
    expect(msgs).toHaveLength(2);
  });
});
