// The connector feed (POST /api/connector/ingest) through inject(): its own credential, a 400
// naming the field, and outbound messages recorded with their chatter.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageWebhook } from '../../src/demo/platform-bodies.js';
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
});
