// The typed example client (examples/inbox-client.ts) works against the service: types
// generated from docs/openapi.json, openapi-fetch, and the app's own fetch (through inject(),
// so every answer is also held to the contract). It lists the inbox, reads the SLA report and
// force-closes the fan who has waited longest, and the session closes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convopsClient, triage, type ConvopsClient } from '../../examples/inbox-client.js';
import { startHarness, type Harness } from '../support/app-harness.js';
import { messageBody } from '../support/platform.js';

const ADMIN = 'admin-token-for-example-client-0';
const ACCOUNT = 'acct_0000000000000000000000000000ex00';
const MIN = 60_000;

describe('the typed example client', () => {
  let app: Harness;
  let client: ConvopsClient;
  beforeAll(async () => {
    const now = Date.now();
    app = await startHarness({ ADMIN_TOKEN: ADMIN, ALERT_SWEEP_SEC: '0' }, { driven: true });
    const fan = (fanId: number, messageId: number, agoMs: number) => messageBody({ accountId: ACCOUNT, fanId, messageId, createdAt: new Date(now - agoMs).toISOString(), direction: 'received', text: 'hello?' });
    await app.deliver([{ key: 'evt_ex_1', body: fan(301, 9_300_001, 10 * MIN) }, { key: 'evt_ex_2', body: fan(302, 9_300_002, 40 * MIN) }]);
    await app.settled();
    // The app's fetch: openapi-fetch hands it a Request.
    client = convopsClient('http://convops.test', ADMIN, async (request) => {
      const url = new URL(request.url);
      const body = request.method === 'GET' ? undefined : await request.text();
      return app.fetch(`${url.pathname}${url.search}`, { method: request.method, headers: Object.fromEntries(request.headers), ...(body ? { body } : {}) });
    });
  }, 60_000);
  afterAll(async () => { await app?.stop(); });

  it('lists the inbox, reads the SLA report and force-closes the longest wait', async () => {
    // Read-only unless asked.
    const looked = await triage(client, { thresholdSec: 300 });
    expect(looked.closed).toBeNull();
    expect(looked.waiting).toHaveLength(2);
    const result = await triage(client, { thresholdSec: 300, close: true });
    expect(result.waiting.map((w) => w.sessionId)).toEqual([`${ACCOUNT}:302:1`, `${ACCOUNT}:301:1`]);
    expect(result.waiting[0]?.waitSec).toBeGreaterThanOrEqual(40 * 60);
    expect(result.slaWithinPct).toBe(0);
    expect(result.closed).toEqual({ sessionId: `${ACCOUNT}:302:1`, status: 'close-requested' });
    await app.settled();
    const after = await client.GET('/api/sessions', { params: { query: { accountId: ACCOUNT, status: 'closed' } } });
    expect(after.data?.items.map((s) => [s.id, s.closeReason])).toEqual([[`${ACCOUNT}:302:1`, 'forced']]);
  });

  it('turns a misspelt route or field into a type error and a refused call into a typed error', async () => {
    // @ts-expect-error: no such route in the document.
    await client.GET('/api/sesions', {});
    // @ts-expect-error: `limit` is a number.
    const refused = await client.GET('/api/sessions', { params: { query: { limit: 'ten' } } });
    expect(refused.response.status).toBe(400);
    expect(refused.error).toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('limit') });
  });
});
