// One signed webhook along the real path, HTTP -> inbound -> machine -> session-events ->
// projector -> read models -> API, on both deployments.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../src/app.js';
import { DEPLOYMENTS, deploymentEnv, removeDataDirs, startWithEnv } from '../support/deployments.js';
import { getJson, messageBody, postWebhook, sample } from '../support/platform.js';
import { eventually } from '../support/wait.js';

const SECRET = 'whsec_test_secret';
const ACCOUNT = 'acct_01000000000000000000000000000000';

interface SessionItem { id: string; chatId: string; awaiting: boolean; messageCount: number; firstResponseSec: number | null; waitingSince: string | null }
interface MessageItem { id: string; chatId: string; sender: string; text: string; sessionId: string | null }
interface List<T> { items: T[] }

describe.each(DEPLOYMENTS)('pipeline end to end on %s', (kind) => {
  let app: RunningApp;
  let url: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    env = await deploymentEnv(kind, { PLATFORMAPI_WEBHOOK_SECRET: SECRET });
    app = await startWithEnv(env);
    url = app.url ?? '';
  });
  afterAll(async () => {
    await app?.stop();
    removeDataDirs();
  });

  const messagesOf = async (chatId: string) => (await getJson<List<MessageItem>>(url, `/api/messages?chatId=${chatId}`)).body.items;
  const sessionsOf = async (chatId: string) => (await getJson<List<SessionItem>>(url, '/api/sessions?limit=500')).body.items.filter((s) => s.chatId === chatId);

  it('a signed messages.received sample shows up in sessions and messages', async () => {
    const raw = JSON.stringify(sample('messages_received.json'));
    const res = await postWebhook(url, raw, { secret: SECRET, key: 'evt_' + 'a'.repeat(40) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ accepted: true, chatId: '1000005', accountId: ACCOUNT });
    const msgs = await eventually(async () => { const m = await messagesOf('1000005'); return m.length > 0 ? m : undefined; }, 20_000, 'message in read model');
    expect(msgs).toEqual([expect.objectContaining({ id: '1000006', sender: 'fan', text: 'Sample fan message text used in anonymized fixtures.' })]);
    const sessions = await eventually(async () => { const s = await sessionsOf('1000005'); return s.length > 0 ? s : undefined; }, 20_000, 'session');
    expect(sessions).toEqual([expect.objectContaining({ awaiting: true, messageCount: 1, waitingSince: '2026-06-10T18:35:30.000Z' })]);
  });

  it('a wrong or missing signature gets 401 and changes nothing', async () => {
    const raw = messageBody({ accountId: ACCOUNT, fanId: 777001, messageId: 9100001, createdAt: '2026-06-10T19:00:00+00:00', direction: 'received' });
    const bad = await postWebhook(url, raw, { signature: 'ab'.repeat(32), key: 'evt_bad_1' });
    expect(bad.status).toBe(401);
    expect(bad.body).toMatchObject({ statusCode: 401, code: 'UNAUTHORIZED' });
    const missing = await postWebhook(url, raw, { key: 'evt_bad_2' });
    expect(missing.status).toBe(401);
    // A valid delivery to the same chat afterwards is the only thing recorded.
    const good = messageBody({ accountId: ACCOUNT, fanId: 777001, messageId: 9100002, createdAt: '2026-06-10T19:00:05+00:00', direction: 'received' });
    expect((await postWebhook(url, good, { secret: SECRET, key: 'evt_good_1' })).status).toBe(200);
    const msgs = await eventually(async () => { const m = await messagesOf('777001'); return m.length > 0 ? m : undefined; }, 20_000, 'good message');
    expect(msgs.map((m) => m.id)).toEqual(['9100002']);
  });

  it('the same delivery repeated, and the same message redelivered under a new key, is recorded once', async () => {
    const raw = messageBody({ accountId: ACCOUNT, fanId: 777002, messageId: 9200001, createdAt: '2026-06-10T19:10:00+00:00', direction: 'received' });
    for (let i = 0; i < 3; i++) expect((await postWebhook(url, raw, { secret: SECRET, key: 'evt_dup_1' })).status).toBe(200);
    expect((await postWebhook(url, raw, { secret: SECRET, key: 'evt_dup_2' })).status).toBe(200);
    const marker = messageBody({ accountId: ACCOUNT, fanId: 777002, messageId: 9200002, createdAt: '2026-06-10T19:10:30+00:00', direction: 'received' });
    expect((await postWebhook(url, marker, { secret: SECRET, key: 'evt_dup_3' })).status).toBe(200);
    const msgs = await eventually(async () => { const m = await messagesOf('777002'); return m.length >= 2 ? m : undefined; }, 20_000, 'both messages');
    expect(msgs.map((m) => m.id)).toEqual(['9200001', '9200002']);
    // The session document is written just after the messages, so wait for it too.
    const sessions = await eventually(async () => { const s = await sessionsOf('777002'); return s[0]?.messageCount === 2 ? s : undefined; }, 20_000, 'session with both messages');
    expect(sessions).toHaveLength(1);
  });

  it('a fan message and a human reply give a session with its first response time; ids beyond 2^53 stay exact', async () => {
    const fan = '123456789012345678901';
    const m1 = messageBody({ accountId: ACCOUNT, fanId: fan, messageId: '900719925474099312345', createdAt: '2026-06-10T20:00:00+00:00', direction: 'received', text: 'hi there' });
    const m2 = messageBody({ accountId: ACCOUNT, fanId: fan, messageId: '900719925474099312346', createdAt: '2026-06-10T20:02:05+00:00', direction: 'sent', text: 'hello!' });
    expect((await postWebhook(url, m1, { secret: SECRET, key: 'evt_c1' })).status).toBe(200);
    expect((await postWebhook(url, m2, { secret: SECRET, key: 'evt_c2' })).status).toBe(200);
    const session = await eventually(async () => {
      const s = (await sessionsOf(fan))[0];
      return s && s.firstResponseSec !== null ? s : undefined;
    }, 20_000, 'answered session');
    expect(session).toMatchObject({ awaiting: false, firstResponseSec: 125, messageCount: 2 });
    const msgs = await messagesOf(fan);
    expect(msgs.map((m) => [m.id, m.sender, m.text])).toEqual([
      ['900719925474099312345', 'fan', 'hi there'],
      ['900719925474099312346', 'human', 'hello!'],
    ]);
  });

  it('bad input gets a 4xx naming the field', async () => {
    const noKey = await postWebhook(url, JSON.stringify(sample('messages_received.json')), { secret: SECRET });
    expect(noKey).toMatchObject({ status: 400, body: { code: 'INVALID_INPUT', message: 'x-ofapi-idempotency-key: header is required for messages.received' } });
    const notJson = await postWebhook(url, '{"event":', { secret: SECRET, key: 'evt_x' });
    expect(notJson).toMatchObject({ status: 400, body: { message: 'body: is not valid JSON' } });
    const noAccount = await postWebhook(url, '{"event":"messages.received","payload":{}}', { secret: SECRET, key: 'evt_y' });
    expect(noAccount).toMatchObject({ status: 400, body: { message: expect.stringContaining('account_id') } });
    const badLimit = await getJson(url, '/api/sessions?limit=100000');
    expect(badLimit).toMatchObject({ status: 400, body: { code: 'INVALID_INPUT', message: expect.stringContaining('limit') } });
    const badSort = await getJson(url, '/api/sessions?sort=sideways');
    expect(badSort.status).toBe(400);
  });

  it('health reports every component ready with no secret in it', async () => {
    const res = await fetch(`${url}/api/health`);
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(text).not.toContain(SECRET);
    const body = JSON.parse(text) as { ready: boolean; components: Record<string, { ok?: boolean; kind?: string }> };
    expect(body.ready).toBe(true);
    expect(body.components.log).toMatchObject({ ok: true, kind: kind === 'embedded' ? 'embedded' : 'kafka' });
    expect(body.components.store).toMatchObject({ ok: true, kind: kind === 'embedded' ? 'embedded' : 'mongo' });
  });

  it('a restart keeps everything and processes new records after it', async () => {
    await app.stop();
    app = await startWithEnv(env);
    url = app.url ?? '';
    expect((await messagesOf('1000005')).map((m) => m.id)).toEqual(['1000006']);
    const next = messageBody({ accountId: ACCOUNT, fanId: 1000005, messageId: 1000099, createdAt: '2026-06-10T18:36:00+00:00', direction: 'sent' });
    expect((await postWebhook(url, next, { secret: SECRET, key: 'evt_after_restart' })).status).toBe(200);
    const s = await eventually(async () => { const x = (await sessionsOf('1000005'))[0]; return x && x.messageCount === 2 ? x : undefined; }, 30_000, 'session after restart');
    expect(s).toMatchObject({ awaiting: false, firstResponseSec: 30 });
  });
});

describe('roles split across processes on kafka+mongo', () => {
  it('an api-only process ingests and a processor+projector process builds the read models', async () => {
    const env = await deploymentEnv('kafka+mongo', { PLATFORMAPI_WEBHOOK_SECRET: SECRET });
    const workers = await startWithEnv({ ...env, ROLES: 'processor,projector' });
    const api = await startWithEnv({ ...env, ROLES: 'api' });
    try {
      expect(workers.url).toBeNull();
      const url = api.url ?? '';
      const raw = messageBody({ accountId: ACCOUNT, fanId: 555001, messageId: 9300001, createdAt: '2026-06-10T21:00:00+00:00', direction: 'received' });
      expect((await postWebhook(url, raw, { secret: SECRET, key: 'evt_roles_1' })).status).toBe(200);
      const msgs = await eventually(async () => {
        const m = (await getJson<List<MessageItem>>(url, '/api/messages?chatId=555001')).body.items;
        return m.length > 0 ? m : undefined;
      }, 30_000, 'message built by the worker process');
      expect(msgs.map((m) => m.id)).toEqual(['9300001']);
      const health = (await getJson<{ components: { processor: { enabled: boolean } } }>(url, '/api/health')).body;
      expect(health.components.processor.enabled).toBe(false);
    } finally {
      await api.stop();
      await workers.stop();
    }
  });
});
