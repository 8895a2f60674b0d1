// The attribution models side by side (docs/api.md, "Money") over real webhook and connector
// bodies through the real stages: bob sends a PPV, the session closes, the fan comes back and ann
// chats; the fan buys bob's PPV in ann's session, then tips after that session has closed. The
// session model credits ann and then nobody, the sender model bob and then ann, the converter
// model ann twice; the scorecard, the conversion report and the payments export agree.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageWebhook, ppvUnlockedWebhook, transactionWebhook } from '../../src/demo/platform-bodies.js';
import { startHarness, type Harness } from '../support/app-harness.js';

const A = 'acct_models';
const CONNECTOR = 'connector-token-models-000000';
const PPV_TX = 'c'.repeat(32);
const TIP_TX = 'd'.repeat(32);
const at = (min: number): string => new Date(Date.UTC(2026, 5, 12, 9, 0) + min * 60_000).toISOString();

interface Card { items: { chatterId: string; revenueCents: number; paymentCount: number }[]; model: string; unattributed: { revenueCents: number } }
interface Conversion { chatters: { chatterId: string | null; revenueCents: number }[]; model: string }

describe('attribution models', () => {
  let h: Harness;
  let n = 0;
  const send = (body: string) => h.webhook(body, { key: `evt_models_${++n}` });
  const connector = (messageId: string, chatterId: string, minute: number) => h.call('POST', '/api/connector/ingest', {
    token: CONNECTOR, body: { accountId: A, messages: [{ chatId: '601', messageId, text: 'for you', sentAt: at(minute), chatterId }] },
  });

  beforeAll(async () => {
    h = await startHarness({ CONNECTOR_TOKEN: CONNECTOR }, { driven: true });
    await send(messageWebhook({ accountId: A, fanId: '601', messageId: '8601', createdAt: at(0), text: 'hi', direction: 'received' }));
    // bob's $15 PPV: his connector copy names him, the webhook's copy prices it.
    expect((await connector('8602', 'bob', 1)).status).toBe(200);
    await send(messageWebhook({ accountId: A, fanId: '601', messageId: '8602', createdAt: at(1), text: 'for you', direction: 'sent', priceDollars: 15 }));
    // Two hours on, a new session: ann chats; the fan buys bob's PPV (the unlock names it) in her session.
    await send(messageWebhook({ accountId: A, fanId: '601', messageId: '8603', createdAt: at(120), text: 'back', direction: 'received' }));
    expect((await connector('8604', 'ann', 121)).status).toBe(200);
    await send(ppvUnlockedWebhook({ accountId: A, fanId: '601', notificationId: '7601', createdAt: at(125), amountDollars: 15, ppvMessageId: '8602' }));
    await send(transactionWebhook({ accountId: A, fanId: '601', transactionId: PPV_TX, createdAt: at(125), type: 'message', amountDollars: 15 }));
    // A tip long after ann's session closed: the session model has nobody to credit.
    await send(transactionWebhook({ accountId: A, fanId: '601', transactionId: TIP_TX, createdAt: at(300), type: 'tip', amountDollars: 10 }));
    await h.settled();
  });
  afterAll(async () => { await h?.stop(); });

  const revenue = async (model: string) => {
    const card = await h.call<Card>('GET', `/api/chatters/scorecard?accountId=${A}&model=${model}`);
    expect(card.status, card.text).toBe(200);
    expect(card.body.model).toBe(model);
    const conv = await h.call<Conversion>('GET', `/api/conversion?accountId=${A}&model=${model}`);
    expect(conv.body.model).toBe(model);
    const of = (id: string) => card.body.items.find((c) => c.chatterId === id)?.revenueCents ?? 0;
    // The conversion report credits the same revenue to the chatters with direct work.
    for (const c of conv.body.chatters) if (c.chatterId !== null) expect(c.revenueCents, `${model} ${c.chatterId}`).toBe(of(c.chatterId));
    return { ann: of('ann'), bob: of('bob'), nobody: card.body.unattributed.revenueCents };
  };

  it('credits each payment as its model says, the same revenue in total', async () => {
    expect(await revenue('session')).toEqual({ ann: 1500, bob: 0, nobody: 1000 });
    expect(await revenue('sender')).toEqual({ ann: 1000, bob: 1500, nobody: 0 });
    expect(await revenue('converter')).toEqual({ ann: 2500, bob: 0, nobody: 0 });
  });

  it('says in the payments export whom each model credited and why', async () => {
    const csv = await h.call('GET', `/api/exports/payments.csv?accountId=${A}`);
    expect(csv.status, csv.text).toBe(200);
    const rows = csv.text.trim().split('\r\n');
    expect(rows[0]).toMatch(/,chatterId,reassigned,late,senderChatterId,senderRule,converterChatterId,converterRule$/);
    expect(rows.find((r) => r.startsWith(PPV_TX))).toMatch(/,ann,false,false,bob,ppv-sender,ann,last-message$/);
    expect(rows.find((r) => r.startsWith(TIP_TX))).toMatch(/,false,false,ann,last-message,ann,last-message$/);
  });
});
