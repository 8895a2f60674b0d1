// "Nobody" is not an id: the sessions first answered without a named chatter (a webhook reply
// carries none) are a row of their own with no chatterId, and a real chatter whose id reads like
// a sentinel ("unattributed") keeps its own row, in the SLA report and in sla.csv.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageWebhook } from '../../src/demo/platform-bodies.js';
import { startHarness, type Harness } from '../support/app-harness.js';

const A = 'acct_0n0b0dy0000000000000000000000001';
const CONNECTOR = 'connector-token-nobody-000000000';
const at = (min: number): string => new Date(Date.UTC(2026, 5, 13, 9, 0) + min * 60_000).toISOString();

describe('replies credited to nobody', () => {
  let h: Harness;
  let n = 0;
  const fan = (fanId: string, messageId: string, minute: number) => h.webhook(messageWebhook({ accountId: A, fanId, messageId, createdAt: at(minute), text: 'hi', direction: 'received' }), { key: `evt_nb_${++n}` });
  beforeAll(async () => {
    h = await startHarness({ CONNECTOR_TOKEN: CONNECTOR }, { driven: true });
    // Fan 601 is answered in 2 minutes by a chatter whose id is "unattributed" (through the connector).
    await fan('601', '6001', 0);
    const named = await h.call('POST', '/api/connector/ingest', { token: CONNECTOR, body: { accountId: A, messages: [{ chatId: '601', messageId: '6002', text: 'hey', sentAt: at(2), chatterId: 'unattributed' }] } });
    expect(named.status, named.text).toBe(200);
    // Fan 602 is answered in 9 minutes by a webhook reply: no chatter named.
    await fan('602', '6101', 10);
    expect((await h.webhook(messageWebhook({ accountId: A, fanId: '602', messageId: '6102', createdAt: at(19), text: 'sorry', direction: 'sent' }), { key: `evt_nb_${++n}` })).status).toBe(200);
    await h.settled();
  });
  afterAll(async () => { await h?.stop(); });

  it('keeps a chatter named "unattributed" apart from the replies nobody is named for', async () => {
    const sla = await h.call<{ byChatter: { chatterId: string | null; responded: number; medianFirstResponseSec: number }[] }>('GET', `/api/sla?accountId=${A}&from=2026-06-01&thresholdSec=300`);
    expect(sla.status, sla.text).toBe(200);
    expect(sla.body.byChatter.map((c) => [c.chatterId, c.responded, c.medianFirstResponseSec])).toEqual([['unattributed', 1, 120], [null, 1, 540]]);
    const csv = await h.call<string>('GET', `/api/exports/sla.csv?accountId=${A}&from=2026-06-01&thresholdSec=300`);
    const chatterRows = csv.text.trim().split('\n').filter((l) => l.startsWith('chatter,'));
    expect(chatterRows).toHaveLength(2);
    expect(chatterRows[0]).toMatch(/^chatter,,unattributed,/);
    expect(chatterRows[1]).toMatch(/^chatter,,,/);
  });
});
