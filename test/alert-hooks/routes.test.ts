// The alert hook routes through inject(), on the embedded store and on the Mongo-wire server:
// what an admin may register (and what is refused, naming the field), that the secret is shown
// once, that deliveries are visible (route and /metrics), and that a restart between an alert's
// change and its delivery sends it exactly once.
import { rmSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reconcileSetAsideAlert, SET_ASIDE_ALERT_ID } from '../../src/pipeline/set-aside-alert.js';
import { bodyPrefix, setAsideWrite } from '../../src/pipeline/set-aside.js';
import { mongoStoreEnv, startHarness, type Harness } from '../support/app-harness.js';
import { startReceiver, type Receiver } from '../support/hook-receiver.js';
import { parsePrometheus, total } from '../support/prometheus.js';
import { eventually } from '../support/wait.js';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { AlertEventSchema } from '../../src/http/alert-hook-document.js';
import { withServers } from '../support/test-servers.js';
import { tempDir } from '../support/temp-dirs.js';

const ajv = new Ajv({ strict: false });
addFormats.default(ajv);

const ADMIN = 'admin-token-for-alert-hooks-0000';
const dirs: string[] = [];
afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });

const STORES: readonly (readonly [string, () => Promise<Record<string, string>>])[] = [
  ['embedded', async () => {
    const dir = tempDir('convops-hook-routes-');
    dirs.push(dir);
    return { DATA_DIR: dir };
  }],
  ...withServers([['mongodb wire', mongoStoreEnv] as const]),
];

interface Hook { id: string; url: string; status: string; secret?: string; lastDelivery: { id: string; status: string; attempts: number } | null }

async function openSetAsideAlert(h: Harness): Promise<void> {
  const now = Date.now();
  await h.store.bulkWriteMany([setAsideWrite([{
    _id: `inbound:0:${now}`, stage: 'step', topic: 'inbound', partition: 0, offset: now, chatKey: 'acct_x:1', event: 'messages.received',
    error: 'Error: boom', receivedAt: null, setAsideAt: now, body: bodyPrefix('{}'),
  }])]);
  expect(await reconcileSetAsideAlert(h.store, now)).toBe('open');
}

describe.each(STORES)('alert hook routes on %s', (_name, storeEnv) => {
  let receiver: Receiver;
  const harnesses: Harness[] = [];
  const start = async (env: Record<string, string>): Promise<Harness> => {
    const h = await startHarness({ ADMIN_TOKEN: ADMIN, ALERT_SWEEP_SEC: '0', ...env });
    harnesses.push(h);
    return h;
  };
  beforeEach(async () => { receiver = await startReceiver(); });
  afterEach(async () => {
    for (const h of harnesses.splice(0)) await h.stop();
    await receiver.close();
  });

  it('refuses what it cannot send to, naming the field, and keeps the secret to the create answer', async () => {
    const h = await start(await storeEnv());
    const post = (body: unknown) => h.call('POST', '/api/admin/alert-hooks', { token: ADMIN, body });
    const refused = async (body: unknown, pattern: RegExp) => {
      const res = await post(body);
      expect(res.status, res.text).toBe(400);
      expect(res.body.message).toMatch(pattern);
    };
    await refused({ url: receiver.url, events: ['opened'] }, /^body\.url: 127\.0\.0\.1 is a loopback address/);
    await refused({ url: 'http://localhost:9/x', events: ['opened'] }, /^body\.url: localhost is refused/);
    // Loopback by its form, however spelled: a trailing dot names the same host.
    await refused({ url: 'http://LOCALHOST.:9/', events: ['opened'] }, /^body\.url: localhost is refused/);
    await refused({ url: 'http://foo.localhost.:9/', events: ['opened'] }, /^body\.url: localhost is refused/);
    await refused({ url: 'http://169.254.169.254/latest', events: ['opened'] }, /body\.url: 169\.254\.169\.254 is a linkLocal address/);
    await refused({ url: 'http://[::ffff:10.0.0.1]/x', events: ['opened'] }, /body\.url: 10\.0\.0\.1 is a private address/);
    await refused({ url: 'ftp://hooks.example.com/x', events: ['opened'] }, /body\.url: ftp: is not http: or https:/);
    await refused({ url: 'https://user:pw@hooks.example.com/x', events: ['opened'] }, /body\.url: must not carry a user name/);
    await refused({ url: 'not a url', events: ['opened'] }, /body\.url: not an absolute URL/);
    await refused({ url: 'https://hooks.example.com/x', events: [] }, /events/);
    await refused({ url: 'https://hooks.example.com/x', events: ['opened', 'opened'] }, /events/);
    await refused({ url: 'https://hooks.example.com/x', events: ['closed'] }, /events/);
    await refused({ url: 'https://hooks.example.com/x', events: ['opened'], accountIds: ['bad id!'] }, /accountIds/);
    await refused({ url: 'https://hooks.example.com/x', events: ['opened'], format: 'teams' }, /format/);
    await refused({ url: 'https://hooks.example.com/x', events: ['opened'], secret: 'mine' }, /secret/);
    await refused({ url: `https://hooks.example.com/${'x'.repeat(2100)}`, events: ['opened'] }, /url/);

    const created = await post({ url: 'https://hooks.example.com/x', events: ['opened', 'resolved'], format: 'slack' });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ url: 'https://hooks.example.com/x', events: ['opened', 'resolved'], format: 'slack', accountIds: null, status: 'active', lastDelivery: null });
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const list = await h.call<{ items: Hook[]; count: number }>('GET', '/api/admin/alert-hooks', { token: ADMIN });
    expect(list.body.count).toBe(1);
    expect(list.text).not.toContain(created.body.secret.slice(6));
    expect((await h.call('GET', `/api/admin/alert-hooks/${created.body.id}`, { token: ADMIN })).text).not.toContain('whsec_');
    // Admin only; unknown ids are 404; a malformed id is 400.
    expect((await h.call('GET', '/api/admin/alert-hooks')).status).toBe(401);
    expect((await h.call('GET', '/api/admin/alert-hooks/hook_0123456789abcdef/deliveries', { token: ADMIN })).status).toBe(404);
    expect((await h.call('DELETE', '/api/admin/alert-hooks/hook_0123456789abcdef', { token: ADMIN })).status).toBe(404);
    expect((await h.call('GET', '/api/admin/alert-hooks/nope/deliveries', { token: ADMIN })).status).toBe(400);
    expect((await h.call('GET', `/api/admin/alert-hooks/${created.body.id}/deliveries?limit=501`, { token: ADMIN })).status).toBe(400);
    expect((await h.call('DELETE', `/api/admin/alert-hooks/${created.body.id}`, { token: ADMIN })).status).toBe(200);
    expect((await h.call<{ count: number }>('GET', '/api/admin/alert-hooks', { token: ADMIN })).body.count).toBe(0);
  });

  it('delivers what the API changes, signed, and shows it in the deliveries, the hook list and /metrics', async () => {
    const h = await start({ ...await storeEnv(), ALERT_HOOK_ALLOW_PRIVATE: 'true' });
    const created = await h.call<Hook>('POST', '/api/admin/alert-hooks', { token: ADMIN, body: { url: receiver.url, events: ['opened', 'acked'] } });
    expect(created.status, created.text).toBe(201);
    await openSetAsideAlert(h);
    expect((await h.call('POST', `/api/alerts/${SET_ASIDE_ALERT_ID}/ack`, { token: ADMIN })).status).toBe(200);
    await eventually(() => expect(receiver.received).toHaveLength(2));
    const verifier = new Webhook(created.body.secret ?? '');
    const types = receiver.received.map((r) => (verifier.verify(r.body, r.headers as Record<string, string>) as { type: string }).type).sort();
    expect(types).toEqual(['alert.acked', 'alert.opened']);
    // Each body is what the document's `webhooks` says receivers get.
    const documented = (await h.call<{ webhooks: { alertTransition: { post: { requestBody: { content: { 'application/json': { schema: object } } } } } } }>('GET', '/docs/json')).body;
    const conforms = ajv.compile(documented.webhooks.alertTransition.post.requestBody.content['application/json'].schema);
    for (const r of receiver.received) expect(conforms(JSON.parse(r.body)), JSON.stringify(conforms.errors)).toBe(true);
    expect(ajv.compile(AlertEventSchema)(JSON.parse(receiver.received[0]?.body ?? ''))).toBe(true);
    const deliveries = await eventually(async () => {
      const res = await h.call<{ items: { id: string; status: string; attempts: number; event: string }[] }>('GET', `/api/admin/alert-hooks/${created.body.id}/deliveries`, { token: ADMIN });
      expect(res.body.items.map((d) => d.status)).toEqual(['delivered', 'delivered']);
      return res.body.items;
    });
    expect(deliveries.map((d) => d.id).sort()).toEqual(receiver.received.map((r) => String(r.headers['webhook-id'])).sort());
    const list = await h.call<{ items: Hook[] }>('GET', '/api/admin/alert-hooks', { token: ADMIN });
    expect(list.body.items[0]?.lastDelivery).toMatchObject({ status: 'delivered', attempts: 1 });

    // A test event: signed the same way, answered at once, not stored as a delivery.
    const probe = await h.call<{ delivered: boolean; webhookId: string; httpStatus: number }>('POST', `/api/admin/alert-hooks/${created.body.id}/test`, { token: ADMIN });
    expect(probe.body).toMatchObject({ delivered: true, httpStatus: 204, error: null });
    const test = receiver.received[2];
    expect(verifier.verify(test?.body ?? '', test?.headers as Record<string, string>)).toMatchObject({ type: 'alert.test', data: { eventId: probe.body.webhookId } });
    receiver.behave(() => ({ status: 410 }));
    expect((await h.call('POST', `/api/admin/alert-hooks/${created.body.id}/test`, { token: ADMIN })).body).toMatchObject({ delivered: false, httpStatus: 410, error: 'answered 410' });
    expect((await h.call<{ count: number }>('GET', `/api/admin/alert-hooks/${created.body.id}/deliveries`, { token: ADMIN })).body.count).toBe(2);
    const samples = parsePrometheus((await h.call('GET', '/metrics', { token: ADMIN })).text);
    expect(total(samples, 'convops_alert_hook_deliveries_total', { outcome: 'delivered' })).toBe(2);
    expect(total(samples, 'convops_alert_hook_queue_depth', { kind: 'deliveries' })).toBe(0);
  });

  it('sends a transition exactly once when the process stops between the alert\'s change and the delivery', async () => {
    const env = { ...await storeEnv(), ALERT_HOOK_ALLOW_PRIVATE: 'true' };
    // No intelligence role, so nothing sends: the change is written and the process stops.
    const first = await start({ ...env, ROLES: 'api,processor,projector' });
    const created = await first.call<Hook>('POST', '/api/admin/alert-hooks', { token: ADMIN, body: { url: receiver.url, events: ['opened', 'acked', 'resolved'] } });
    await openSetAsideAlert(first);
    expect((await first.call('POST', `/api/alerts/${SET_ASIDE_ALERT_ID}/ack`, { token: ADMIN })).status).toBe(200);
    const waiting = parsePrometheus((await first.call('GET', '/metrics', { token: ADMIN })).text);
    expect(total(waiting, 'convops_alert_hook_queue_depth')).toBe(0); // not reported where no dispatcher runs
    await first.stop();
    harnesses.splice(harnesses.indexOf(first), 1);
    expect(receiver.received).toHaveLength(0);

    const second = await start(env);
    await eventually(() => expect(receiver.received).toHaveLength(2));
    // Several more rounds of the dispatcher: nothing is sent again.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(receiver.received).toHaveLength(2);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(2);
    await eventually(async () => {
      const res = await second.call<{ items: { status: string; attempts: number }[] }>('GET', `/api/admin/alert-hooks/${created.body.id}/deliveries`, { token: ADMIN });
      expect(res.body.items.map((d) => [d.status, d.attempts])).toEqual([['delivered', 1], ['delivered', 1]]);
      return true;
    });
  });
});
