// The door's rules through the routes (issue 54): content encodings, the JSON every route reads
// (duplicate keys, prototype keys), and the sources beside the webhook (demo records, the
// connector) held to the webhook's rules for times and chatter ids. Through inject() on the
// embedded default; the door is the same code on every deployment.
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_DEMO_SECRET } from '../../src/config.js';
import { messageWebhook } from '../../src/demo/platform-bodies.js';
import { signBody } from '../../src/ingest/signature.js';
import { startHarness, type Harness } from '../support/app-harness.js';

const ADMIN = 'admin-token-for-door-rules-000000';
const CONNECTOR = 'connector-token-for-door-rules-00';
const ACCOUNT = 'acct_door_rules';

describe('the door, on every route', () => {
  let h: Harness;
  beforeAll(async () => { h = await startHarness({ ADMIN_TOKEN: ADMIN, CONNECTOR_TOKEN: CONNECTOR }, { driven: true }); });
  afterAll(async () => { await h?.stop(); });

  const webhookBody = (n: number) => messageWebhook({ accountId: ACCOUNT, fanId: '1001', messageId: String(7_000_000 + n), createdAt: new Date(Date.now() - 60_000).toISOString(), text: 'hi', direction: 'received' });
  const post = (url: string, payload: string | Buffer, headers: Record<string, string> = {}) =>
    h.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/json', ...headers } });

  it('takes a body as sent: any content encoding but identity gets 415 naming it, compressed or merely labelled so', async () => {
    const body = webhookBody(1);
    const key = { 'x-ofapi-idempotency-key': 'evt_door_rules_gzip_0000000001' };
    for (const [payload, coding] of [[gzipSync(body), 'gzip'], [Buffer.from(body), 'gzip'], [Buffer.from(body), 'br'], [Buffer.from(body), 'deflate, identity']] as const) {
      const res = await post('/webhooks/platform', payload, { ...key, 'content-encoding': coding });
      expect(res.statusCode, coding).toBe(415);
      expect(res.json()).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', message: expect.stringMatching(/^content-encoding: .* is not accepted; send the body uncompressed/) });
    }
    const admin = await post('/api/admin/close-session', gzipSync('{"sessionId":"s1"}'), { authorization: `Bearer ${ADMIN}`, 'content-encoding': 'gzip' });
    expect(admin.statusCode).toBe(415);
    // Identity is a body as sent; a read that carries the header (some clients set it on every request) still reads.
    expect((await post('/webhooks/platform', body, { ...key, 'content-encoding': 'identity' })).statusCode).toBe(200);
    expect((await h.inject({ method: 'GET', url: '/api/health', headers: { 'content-encoding': 'gzip' } })).statusCode).toBe(200);
  });

  it('reads every route\'s JSON with the webhook\'s checks: a duplicate key named, a prototype key called what it is', async () => {
    const admin = { authorization: `Bearer ${ADMIN}` };
    const hours = `/api/admin/accounts/${ACCOUNT}/business-hours`;
    const dup = await post(hours, '{"timezone":"Europe/Berlin","weekly":{"mon":[["09:00","17:00"]]},"weekly":{}}', admin);
    expect(dup.statusCode).toBe(400);
    expect(dup.json().message).toBe('body.weekly: is given more than once (a duplicate JSON key; JSON parsers disagree on which one counts)');
    const nested = await post(hours, '{"timezone":"Europe/Berlin","weekly":{"mon":[["09:00","17:00"]],"mon":[]}}', admin);
    expect(nested.json().message).toMatch(/^body\.weekly\.mon: is given more than once/);
    const proto = await post(hours, '{"timezone":"Europe/Berlin","__proto__":{"admin":true},"weekly":{}}', admin);
    expect(proto.statusCode).toBe(400);
    expect(proto.json().message).toBe('body: must not contain a "__proto__" key');
    expect((await post(hours, '{"timezone":', admin)).json().message).toBe('body: is not valid JSON');
    // Named where it sits, and never echoed at length: a key goes back to the sender and into the logs.
    const long = 'k'.repeat(5000);
    const echoed = await post(hours, `{"${long}":1,"${long}":2}`, admin);
    expect(echoed.json().message).toBe(`body.${'k'.repeat(64)}…: is given more than once (a duplicate JSON key; JSON parsers disagree on which one counts)`);
    expect((await post('/api/admin/close-session', '[{"a":1,"a":2}]', admin)).json().message).toMatch(/^body\[0\]\.a: is given more than once/);
    // PUT is the route's method; the parser is the same for every method that takes a body.
    const put = await h.inject({ method: 'PUT', url: hours, payload: '{"timezone":"UTC","timezone":"Europe/Berlin","weekly":{}}', headers: { 'content-type': 'application/json', ...admin } });
    expect(put.json()).toMatchObject({ code: 'INVALID_INPUT', message: expect.stringMatching(/^body\.timezone: is given more than once/) });
    // A webhook's duplicate names the key where it sits, signed or not.
    const hook = await post('/webhooks/platform', webhookBody(2).replace('"text":', '"text":"a","text":'), { 'x-ofapi-idempotency-key': 'evt_door_rules_dup_000000000002' });
    expect(hook.json()).toMatchObject({ code: 'INVALID_INPUT', message: expect.stringMatching(/^payload\.text: is given more than once/) });
  });

  it('holds demo records and the connector to the webhook\'s rules for chatter ids and times', async () => {
    const body = webhookBody(3);
    const record = { body, signature: signBody(DEFAULT_DEMO_SECRET, body), idempotencyKey: 'evt_door_rules_demo_00000000003', chatterId: '=1+2' };
    const demo = await post('/api/demo/ingest', JSON.stringify({ records: [record] }), { authorization: `Bearer ${ADMIN}` });
    expect(demo.statusCode).toBe(400);
    expect(demo.json().message).toMatch(/^body\.records\.0\.chatterId: must match pattern/);
    const connector = (sentAt: string) => post('/api/connector/ingest', JSON.stringify({ accountId: ACCOUNT, messages: [{ chatId: '1001', messageId: '88', text: 'hi', sentAt, chatterId: 'ann' }] }), { authorization: `Bearer ${CONNECTOR}` });
    for (const sentAt of ['Feb 30 2026', '2026/02/30', 'Nov 28 2026 10:00', '2026-11-28T10:00:00', '2026-02-30T10:00:00Z']) {
      const res = await connector(sentAt);
      expect(res.statusCode, sentAt).toBe(400);
      expect(res.json().message, sentAt).toMatch(/^(body\.)?messages(\.0|\[0\])\.sentAt: must/);
    }
    expect((await connector(new Date(Date.now() - 60_000).toISOString().replace('Z', '+00:00'))).statusCode).toBe(200);
  });
});
