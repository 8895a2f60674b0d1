// The shift rules through the real stages (driven harness): a fan waiting on an account whose
// chatter is planned but not clocked in raises shift.no-show and coverage.gap in GET /api/alerts;
// clocking her in clears both.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageWebhook } from '../../src/demo/platform-bodies.js';
import { startHarness, type Harness } from '../support/app-harness.js';

const S = 'acct_cover';
const ADMIN = 'admin-token-for-coverage-000000';
const CONNECTOR = 'connector-token-coverage-00000';

interface Alerts { items: { ruleId: string; accountId: string | null; chatterId: string | null; reason: string }[] }

describe('coverage and no-show alerts', () => {
  let h: Harness;
  const shiftAlerts = async () => (await h.call<Alerts>('GET', `/api/alerts?accountId=${S}`)).body.items.filter((a) => a.ruleId === 'coverage.gap' || a.ruleId === 'shift.no-show');

  beforeAll(async () => {
    h = await startHarness({ ADMIN_TOKEN: ADMIN, CONNECTOR_TOKEN: CONNECTOR, COVERAGE_GAP_SEC: '60', SHIFT_NO_SHOW_GRACE_SEC: '300' }, { driven: true });
    const now = Date.now();
    const at = (minAgo: number) => new Date(Math.floor((now - minAgo * 60_000) / 1000) * 1000).toISOString();
    // ann worked here earlier; a fan has waited four minutes now.
    await h.webhook(messageWebhook({ accountId: S, fanId: '801', messageId: '8801', createdAt: at(50), text: 'hi', direction: 'received' }), { key: 'evt_cover_1' });
    expect((await h.call('POST', '/api/connector/ingest', { token: CONNECTOR, body: { accountId: S, messages: [{ chatId: '801', messageId: '8802', text: 'hey', sentAt: at(49), chatterId: 'ann' }] } })).status).toBe(200);
    await h.webhook(messageWebhook({ accountId: S, fanId: '802', messageId: '8803', createdAt: at(4), text: 'hello?', direction: 'received' }), { key: 'evt_cover_2' });
    // Her shift began twenty minutes ago.
    const put = await h.call('PUT', '/api/admin/chatters/ann/roster', { token: ADMIN, body: { timezone: 'UTC', weekly: [], oneOff: [{ accountId: S, start: new Date(now - 20 * 60_000).toISOString(), end: new Date(now + 60 * 60_000).toISOString() }] } });
    expect(put.status, put.text).toBe(200);
    await h.settled();
  });
  afterAll(async () => { await h?.stop(); });

  it('raises shift.no-show for the chatter and coverage.gap for the account', async () => {
    const alerts = await shiftAlerts();
    expect(alerts).toEqual(expect.arrayContaining([
      expect.objectContaining({ ruleId: 'shift.no-show', accountId: S, chatterId: 'ann', reason: expect.stringMatching(/ann has not clocked in on acct_cover/) }),
      expect.objectContaining({ ruleId: 'coverage.gap', accountId: S, chatterId: null, reason: expect.stringMatching(/1 fan is waiting on acct_cover and nobody has been clocked in on it for 4m \d\ds/) }),
    ]));
    expect(alerts).toHaveLength(2);
  });

  it('clears both once she clocks in', async () => {
    expect((await h.call('POST', '/api/admin/chatters/ann/clock', { token: ADMIN, body: { accountId: S, action: 'in' } })).status).toBe(202);
    await h.settled();
    // The shift rules' findings are kept five seconds (the floor asks every second).
    await expect.poll(shiftAlerts, { timeout: 10_000, interval: 500 }).toEqual([]);
  });
});
