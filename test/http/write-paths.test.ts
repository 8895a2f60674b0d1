// The write paths an outsider could reach: demo ingest and the connector refuse forged and
// unauthenticated writes, and nothing they refused reaches the log; demo data stays out of
// production and away from the public default secret; health says plainly when reads are open.
import { afterAll, describe, expect, it } from 'vitest';
import type { DemoRecord } from '../../src/demo/demo-records.js';
import { loadDemoRecords } from '../../src/demo/fixtures.js';
import { DEFAULT_DEMO_SECRET, loadConfig } from '../../src/config.js';
import { messageWebhook } from '../../src/demo/platform-bodies.js';
import { signBody } from '../../src/ingest/signature.js';
import { topology } from '../../src/topology.js';
import { startHarness, type Harness } from '../support/app-harness.js';

const ADMIN = 'admin-token-for-write-paths-00001';
const CONNECTOR = 'connector-token-for-write-paths-01';

async function call(app: Harness, method: string, path: string, token: string | null, body?: unknown, raw?: string) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await app.fetch(`${path}`, { method, headers, body: raw ?? (body === undefined ? undefined : JSON.stringify(body)) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> & { message?: string } };
}

/** The end offsets of inbound: any record that got in moves them. */
const inboundEnds = async (app: Harness) => JSON.stringify(await app.log.endOffsets(topology('').inbound));

/** A demo record with a forged payment, signed with `secret`. */
function forgedPayment(secret: string, n: number): DemoRecord {
  const body = JSON.stringify({
    event: 'transactions.new', account_id: 'acct_0000000000000000000000000000de01',
    payload: { id: 77_000_000 + n, amount: 99_999.99, net: 79_999.99, fee: 20_000, type: 'tip', createdAt: new Date().toISOString(), user: { id: 123 } },
  });
  return { body, signature: signBody(secret, body), idempotencyKey: `evt_forged_${n}`, chatterId: 'invented-chatter' };
}

describe('write paths', () => {
  const apps: Harness[] = [];
  const start = async (extra: Record<string, string>) => {
    const app = await startHarness({ ADMIN_TOKEN: ADMIN, CONNECTOR_TOKEN: CONNECTOR, ...extra }, { driven: true });
    apps.push(app);
    return app;
  };
  afterAll(async () => {
    await Promise.all(apps.map((a) => a.stop()));
  });

  it('demo ingest needs an admin credential; forged or unauthenticated writes reach nothing', async () => {
    const app = await start({});
    const before = await inboundEnds(app);
    const forged = { records: [forgedPayment(DEFAULT_DEMO_SECRET, 1)] };
    expect((await call(app, 'POST', '/api/demo/ingest', null, forged)).status).toBe(401);
    expect((await call(app, 'POST', '/api/demo/ingest', 'Bearer-less nonsense', forged)).status).toBe(401);
    const viewer = (await call(app, 'POST', '/api/admin/keys', ADMIN, { name: 'v', role: 'viewer' })).body.secret as string;
    const manager = (await call(app, 'POST', '/api/admin/keys', ADMIN, { name: 'm', role: 'manager' })).body.secret as string;
    expect((await call(app, 'POST', '/api/demo/ingest', viewer, forged)).status).toBe(403);
    expect((await call(app, 'POST', '/api/demo/ingest', manager, forged)).status).toBe(403);
    // An admin with a record signed by another secret: refused whole, naming the record.
    const wrongSecret = await call(app, 'POST', '/api/demo/ingest', ADMIN, { records: [forgedPayment('some-other-secret', 2)] });
    expect(wrongSecret.status).toBe(401);
    expect(wrongSecret.body.message).toContain('records.0.signature');
    // The connector: only its own token.
    const connectorBody = { accountId: 'acct_x', messages: [{ chatId: '1', messageId: '2', text: 'hi', sentAt: new Date().toISOString(), chatterId: 'c' }] };
    for (const token of [null, ADMIN, viewer, `${CONNECTOR.slice(0, -1)}x`]) {
      expect((await call(app, 'POST', '/api/connector/ingest', token, connectorBody)).status).toBe(401);
    }
    expect(await inboundEnds(app)).toBe(before);
    // And the admin's correctly signed record does go in: the refusals above were not an outage.
    const ok = await call(app, 'POST', '/api/demo/ingest', ADMIN, { records: [forgedPayment(DEFAULT_DEMO_SECRET, 3)] });
    expect(ok.status).toBe(200);
    expect(await inboundEnds(app)).not.toBe(before);
  });

  it('demo ingest keeps the normal body limit and a bounded number of records a call', async () => {
    const app = await start({});
    const before = await inboundEnds(app);
    const big = 'x'.repeat(1_100_000);
    const tooBig = await call(app, 'POST', '/api/demo/ingest', ADMIN, undefined, JSON.stringify({ records: [{ body: big, signature: 'ab', idempotencyKey: 'k' }] }));
    expect(tooBig.status).toBe(413);
    const records = loadDemoRecords().slice(0, 501);
    const tooMany = await call(app, 'POST', '/api/demo/ingest', ADMIN, { records });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.message).toContain('records');
    expect(await inboundEnds(app)).toBe(before);
  });

  it('takes a signed webhook of exactly BODY_LIMIT_BYTES and refuses one a byte over with 413, before it reaches the log', async () => {
    const LIMIT = 4096;
    const SECRET = 'whsec_write_paths_body_limit_0001';
    const app = await start({ BODY_LIMIT_BYTES: String(LIMIT), PLATFORMAPI_WEBHOOK_SECRET: SECRET });
    const body = messageWebhook({ accountId: 'acct_0000000000000000000000000000b0d1', fanId: '7001', messageId: '900001', createdAt: new Date().toISOString(), text: 'hello', direction: 'received' });
    // Trailing whitespace is still the same JSON, so only the size differs between the two.
    const padded = (size: number): string => body + ' '.repeat(size - Buffer.byteLength(body));
    const before = await inboundEnds(app);
    const over = await app.webhook(padded(LIMIT + 1), { secret: SECRET, key: 'evt_body_limit_over' });
    expect(over.status).toBe(413);
    expect(await inboundEnds(app)).toBe(before);
    const atLimit = await app.webhook(padded(LIMIT), { secret: SECRET, key: 'evt_body_limit_at' });
    expect(atLimit.status).toBe(200);
    expect(await inboundEnds(app)).not.toBe(before);
  });

  it('refuses demo data in production, and with the public default secret outside development', async () => {
    // Production without a webhook secret would take unsigned webhooks from anyone: refused at start.
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/PLATFORMAPI_WEBHOOK_SECRET/);
    expect(() => loadConfig({ NODE_ENV: 'production', ROLES: 'processor,projector' })).not.toThrow();
    const production = await start({ NODE_ENV: 'production', PLATFORMAPI_WEBHOOK_SECRET: 'whsec_production_test' });
    const productionBefore = await inboundEnds(production);
    for (const path of ['/api/demo/ingest', '/api/admin/seed-demo']) {
      const r = await call(production, 'POST', path, ADMIN, path === '/api/demo/ingest' ? { records: [forgedPayment(DEFAULT_DEMO_SECRET, 4)] } : {});
      expect(r.status, path).toBe(403);
      expect(r.body.message, path).toContain('NODE_ENV');
    }
    const staging = await start({ NODE_ENV: 'staging' });
    const stagingBefore = await inboundEnds(staging);
    const refused = await call(staging, 'POST', '/api/demo/ingest', ADMIN, { records: [forgedPayment(DEFAULT_DEMO_SECRET, 5)] });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain('DEMO_SECRET');
    const own = 'a-secret-only-this-agency-knows';
    const stagingWithSecret = await start({ NODE_ENV: 'staging', DEMO_SECRET: own });
    expect((await call(stagingWithSecret, 'POST', '/api/demo/ingest', ADMIN, { records: [forgedPayment(DEFAULT_DEMO_SECRET, 6)] })).status).toBe(401);
    expect((await call(stagingWithSecret, 'POST', '/api/demo/ingest', ADMIN, { records: [forgedPayment(own, 7)] })).status).toBe(200);
    expect(await inboundEnds(production)).toBe(productionBefore);
    expect(await inboundEnds(staging)).toBe(stagingBefore);
  });

  it('health says in plain words whether reads are open', async () => {
    const open = await start({});
    const h = await call(open, 'GET', '/api/health', null);
    expect(h.body.access).toMatchObject({ reads: 'open' });
    expect(String((h.body.access as { message: string }).message)).toMatch(/anyone who can reach this port can read/);
    const closed = await start({ READ_AUTH: 'required' });
    const c = await call(closed, 'GET', '/api/health', null);
    expect(c.status).toBe(200);
    expect(c.body.access).toMatchObject({ reads: 'required' });
    expect((await call(closed, 'GET', '/api/sessions', null)).status).toBe(401);
    expect((await call(open, 'GET', '/api/sessions', null)).status).toBe(200);
  });
});
