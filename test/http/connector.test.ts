// The connector feed (POST /api/connector/ingest) through inject(): its own credential, a 400
// naming the field, and outbound messages recorded with their chatter.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageWebhook } from '../../src/demo/platform-bodies.js';
import { ConnectorRefused, parseLines, sendReplies } from '../../scripts/connector-client.js';
import { startHarness, type Harness } from '../support/app-harness.js';
import { eventually } from '../support/wait.js';

const ADMIN = 'admin-token-for-connector-tests-0';
const CONNECTOR = 'connector-token-for-tests-000000';

describe('connector ingest', () => {
  let h: Harness;
  beforeAll(async () => { h = await startHarness({ ADMIN_TOKEN: ADMIN, CONNECTOR_TOKEN: CONNECTOR }); });
  afterAll(async () => { await h?.stop(); });
  const ingest = (body: unknown, token?: string) => h.call('POST', '/api/connector/ingest', { body, token });

  it('needs CONNECTOR_TOKEN (an admin credential does not open it), names a bad field, and records outbound messages with their chatter', async () => {
    const body = { accountId: 'acct_0c0000000000000000000000000000c1', messages: [{ chatId: '123', messageId: '5550001', text: 'hi from the connector', sentAt: '2026-06-10T10:00:00Z', chatterId: 'zoe' }] };
    expect(await ingest(body)).toMatchObject({ status: 401 });
    expect(await ingest(body, ADMIN)).toMatchObject({ status: 401 });
    expect(await ingest({ ...body, messages: [{ ...body.messages[0], sentAt: 'yesterday' }] }, CONNECTOR)).toMatchObject({ status: 400, body: { code: 'INVALID_INPUT', message: expect.stringContaining('sentAt') } });
    expect(await ingest(body, CONNECTOR)).toMatchObject({ status: 200, body: { accepted: 1 } });
    const msgs = await eventually(async () => {
      const m = (await h.call<{ items: { id: string; chatterId: string; sender: string }[] }>('GET', '/api/messages?chatId=123')).body.items;
      return m.length > 0 ? m : undefined;
    }, 20_000, 'connector message');
    expect(msgs).toEqual([expect.objectContaining({ id: '5550001', chatterId: 'zoe', sender: 'human' })]);
  });

  it('names the chatter of a reply the webhook recorded first, and the session credits her', async () => {
    const accountId = 'acct_0c0000000000000000000000000000c2';
    const fan = messageWebhook({ accountId, fanId: '456', messageId: '5560001', createdAt: '2026-06-10T10:00:00Z', text: 'hello?', direction: 'received' });
    const reply = messageWebhook({ accountId, fanId: '456', messageId: '5560002', createdAt: '2026-06-10T10:02:00Z', text: 'hi!', direction: 'sent' });
    expect((await h.webhook(fan, { key: 'evt_conn_fan' })).status).toBe(200);
    expect((await h.webhook(reply, { key: 'evt_conn_reply' })).status).toBe(200);
    const copy = { accountId, messages: [{ chatId: '456', messageId: '5560002', text: 'hi!', sentAt: '2026-06-10T10:02:00Z', chatterId: 'maya' }] };
    expect(await ingest(copy, CONNECTOR)).toMatchObject({ status: 200 });
    const session = await eventually(async () => {
      const items = (await h.call<{ items: { chatId: string; firstResponderId: string | null; messageCount: number }[] }>('GET', '/api/sessions')).body.items;
      const s = items.find((i) => i.chatId === '456');
      return s?.firstResponderId ? s : undefined;
    }, 20_000, 'attributed session');
    expect(session).toMatchObject({ firstResponderId: 'maya', messageCount: 2 });
    const msgs = (await h.call<{ items: { id: string; chatterId: string | null }[] }>('GET', '/api/messages?chatId=456')).body.items;
    expect(msgs.find((m) => m.id === '5560002')).toMatchObject({ chatterId: 'maya' });
    expect(msgs).toHaveLength(2);
  });

  it('the reference client (scripts/connector-client.ts) names who answered: the scorecard\'s unattributed share falls to nothing', async () => {
    const accountId = 'acct_0c0000000000000000000000000000c3';
    const at = (min: number) => new Date(Date.now() - (60 - min) * 60_000).toISOString();
    // Two fans answered through the platform's webhooks, which carry no chatter.
    for (const [fanId, id] of [['701', 5570001], ['702', 5570003]] as const) {
      expect((await h.webhook(messageWebhook({ accountId, fanId, messageId: String(id), createdAt: at(0), text: 'hey', direction: 'received' }), { key: `evt_cc_${id}` })).status).toBe(200);
      expect((await h.webhook(messageWebhook({ accountId, fanId, messageId: String(id + 1), createdAt: at(2), text: 'hi!', direction: 'sent' }), { key: `evt_cc_${id + 1}` })).status).toBe(200);
    }
    const unattributed = async () => (await h.call<{ unattributed: { sessions: number; sessionsPct: number | null } }>('GET', `/api/chatters/scorecard?accountId=${accountId}`)).body.unattributed;
    await eventually(async () => ((await unattributed()).sessions === 2 ? true : undefined), 20_000, 'two unattributed sessions');
    expect(await unattributed()).toMatchObject({ sessions: 2, sessionsPct: 100 });

    // The agency's own tool knows who sent them: one JSON line per reply, through the client.
    const lines = [
      JSON.stringify({ chatId: '701', messageId: '5570002', text: 'hi!', sentAt: at(2), chatterId: 'ann' }),
      '',
      JSON.stringify({ chatId: '702', messageId: '5570004', text: 'hi!', sentAt: at(2), chatterId: 'bo' }),
    ];
    const viaApp = (url: string, init: { method: string; headers: Record<string, string>; body: string }) => h.fetch(new URL(url).pathname, init);
    expect(await sendReplies(parseLines(lines), { url: 'http://convops.test', token: CONNECTOR, accountId, fetch: viaApp, batchSize: 1 })).toBe(2);
    await eventually(async () => ((await unattributed()).sessions === 0 ? true : undefined), 20_000, 'every session attributed');
    expect(await unattributed()).toMatchObject({ sessions: 0, sessionsPct: 0 });
    const cards = (await h.call<{ items: { chatterId: string; sessions: number }[] }>('GET', `/api/chatters/scorecard?accountId=${accountId}`)).body.items;
    expect(cards.map((c) => [c.chatterId, c.sessions])).toEqual([['ann', 1], ['bo', 1]]);

    // A refusal is not retried: it names the field.
    const refused = sendReplies([{ chatId: 'x', messageId: '1', text: '', sentAt: at(3), chatterId: 'ann' }], { url: 'http://convops.test', token: CONNECTOR, accountId, fetch: viaApp });
    await expect(refused).rejects.toBeInstanceOf(ConnectorRefused);
    await expect(refused).rejects.toThrow(/400 .*chatId/);
    expect(() => parseLines(['{"chatId":"1"}'])).toThrow(/line 1: messageId: must be a string/);
    expect(() => parseLines(['', '{"chatId":"1","messageId":12345678901234567890,"text":"","sentAt":"x","chatterId":"a"}'])).toThrow(/line 2: messageId: must be a string/);
    expect(parseLines(['{"chatId":"1","messageId":"2","text":"t","sentAt":"s","chatterId":"a","extra":1}'])).toEqual([{ chatId: '1', messageId: '2', text: 't', sentAt: 's', chatterId: 'a' }]);
  });
});
