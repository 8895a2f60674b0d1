// Reassigning a sale: a manager moves a payment's credit with a reason through the log; the
// scorecard and the payments export credit the chatter named, the list says who, when, from,
// to and why, an undo puts the model's credit back, and bad requests are refused naming the field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageWebhook, transactionWebhook } from '../../src/demo/platform-bodies.js';
import { startHarness, type Harness } from '../support/app-harness.js';

const A = 'acct_reassign';
const OTHER = 'acct_reassign_other';
const ADMIN = 'admin-token-for-reassign-00000';
const TX = 'b'.repeat(32);
const at = (min: number): string => new Date(Date.UTC(2026, 5, 11, 9, min)).toISOString();

interface Card { items: { chatterId: string; revenueCents: number }[] }
interface Listed { items: { paymentId: string; from: string | null; to: string | null; undo: boolean; by: string; reason: string; grossCents: number }[] }

describe('POST /api/admin/reassignments', () => {
  let h: Harness;
  let n = 0;
  const send = (body: string) => h.webhook(body, { key: `evt_ra_${++n}` });
  const connector = (messageId: string, chatterId: string, minute: number) => h.call('POST', '/api/connector/ingest', {
    token: 'connector-token-reassign-0000', body: { accountId: A, messages: [{ chatId: '401', messageId, text: 'hi there', sentAt: at(minute), chatterId }] },
  });
  const revenueOf = async (chatterId: string) => (await h.call<Card>('GET', `/api/chatters/scorecard?accountId=${A}`)).body.items.find((c) => c.chatterId === chatterId)?.revenueCents ?? 0;

  beforeAll(async () => {
    h = await startHarness({ ADMIN_TOKEN: ADMIN, CONNECTOR_TOKEN: 'connector-token-reassign-0000' }, { driven: true });
    // ann answers fan 401 and the fan pays in that session: the session model credits ann. bob works the account too.
    await send(messageWebhook({ accountId: A, fanId: '401', messageId: '7701', createdAt: at(0), text: 'hey', direction: 'received' }));
    expect((await connector('7702', 'ann', 1)).status).toBe(200);
    await send(transactionWebhook({ accountId: A, fanId: '401', transactionId: TX, createdAt: at(2), type: 'tip', amountDollars: 20 }));
    await send(messageWebhook({ accountId: A, fanId: '402', messageId: '7711', createdAt: at(5), text: 'yo', direction: 'received' }));
    expect((await h.call('POST', '/api/connector/ingest', { token: 'connector-token-reassign-0000', body: { accountId: A, messages: [{ chatId: '402', messageId: '7712', text: 'hello', sentAt: at(6), chatterId: 'bob' }] } })).status).toBe(200);
    await send(messageWebhook({ accountId: OTHER, fanId: '499', messageId: '7799', createdAt: at(0), text: 'hey', direction: 'received' }));
    await h.settled();
  });
  afterAll(async () => { await h?.stop(); });

  it('moves the credit through the log: the scorecard credits bob, the list says who, from, to and why', async () => {
    expect(await revenueOf('ann')).toBe(2000);
    const r = await h.call('POST', '/api/admin/reassignments', { token: ADMIN, body: { accountId: A, paymentId: TX, toChatterId: 'bob', reason: 'bob closed the sale in a DM' } });
    expect(r.status, r.text).toBe(202);
    expect(r.body).toMatchObject({ status: 'reassign-requested', from: 'ann', toChatterId: 'bob' });
    // Nothing changes until the processor has the command.
    expect(await revenueOf('bob')).toBe(0);
    await h.settled();
    expect(await revenueOf('bob')).toBe(2000);
    expect(await revenueOf('ann')).toBe(0);
    const list = await h.call<Listed>('GET', `/api/admin/reassignments?accountId=${A}`, { token: ADMIN });
    expect(list.body.items).toEqual([expect.objectContaining({ paymentId: TX, from: 'ann', to: 'bob', undo: false, by: 'ADMIN_TOKEN', reason: 'bob closed the sale in a DM', grossCents: 2000 })]);
    const csv = await h.call('GET', `/api/exports/payments.csv?accountId=${A}`);
    expect(csv.text).toContain(`${TX},${A},401,tip,2000`);
    // Every model honours the reassignment; the rules still say what the models themselves found.
    expect(csv.text.split('\r\n')[1]).toMatch(/,bob,true,false,bob,last-message,bob,last-message$/);
  });

  it('undoes it: back to the model\'s credit, listed as an undo; a second undo is a conflict', async () => {
    const r = await h.call('POST', '/api/admin/reassignments', { token: ADMIN, body: { accountId: A, paymentId: TX, toChatterId: null, reason: 'checked the DMs again' } });
    expect(r.status, r.text).toBe(202);
    await h.settled();
    expect(await revenueOf('ann')).toBe(2000);
    expect(await revenueOf('bob')).toBe(0);
    const list = await h.call<Listed>('GET', `/api/admin/reassignments?paymentId=${TX}`, { token: ADMIN });
    expect(list.body.items.map((i) => [i.from, i.to, i.undo])).toEqual([['bob', 'ann', true], ['ann', 'bob', false]]);
    expect((await h.call('POST', '/api/admin/reassignments', { token: ADMIN, body: { accountId: A, paymentId: TX, toChatterId: null, reason: 'again' } })).status).toBe(409);
  });

  it('refuses an unknown chatter, another account\'s payment, a missing reason, and callers below manager', async () => {
    const bad = async (body: unknown, status: number, pattern: RegExp) => {
      const r = await h.call('POST', '/api/admin/reassignments', { token: ADMIN, body });
      expect(r.status, r.text).toBe(status);
      expect(r.text).toMatch(pattern);
    };
    await bad({ accountId: A, paymentId: TX, toChatterId: 'zed', reason: 'x' }, 400, /toChatterId: no chatter zed has worked for account acct_reassign/);
    await bad({ accountId: OTHER, paymentId: TX, toChatterId: 'bob', reason: 'x' }, 400, /paymentId: no payment b+ in account acct_reassign_other/);
    await bad({ accountId: A, paymentId: TX, toChatterId: 'bob', reason: '' }, 400, /reason/);
    await bad({ accountId: A, paymentId: TX, toChatterId: 'bob' }, 400, /reason/);
    expect((await h.call('POST', '/api/admin/reassignments', { body: { accountId: A, paymentId: TX, toChatterId: 'bob', reason: 'x' } })).status).toBe(401);
  });
});
