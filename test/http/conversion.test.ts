// GET /api/conversion over real webhook bodies through the real stages (driven harness): PPV
// sends, their unlocks in either order and twice, campaigns, and the unlocks convops cannot link.
// The figures' definitions are docs/api.md's "Money"; the property test (test/properties/
// conversion.test.ts) checks them against the reference model over random histories.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageWebhook, ppvUnlockedWebhook, transactionWebhook } from '../../src/demo/platform-bodies.js';
import { startHarness, type Harness } from '../support/app-harness.js';

const A = 'acct_conv';
const QA = 'acct_conv_qa';
const ADMIN = 'admin-token-for-conversion-0000';
const at = (min: number): string => new Date(Date.UTC(2026, 5, 10, 12, min)).toISOString();

interface Row { [k: string]: unknown }
interface Conversion { chatters: Row[]; accounts: Row[]; campaigns: Row[]; model: string; window: Row }

describe('GET /api/conversion', () => {
  let h: Harness;
  let n = 0;
  const send = (body: string) => h.webhook(body, { key: `evt_conv_${++n}` });

  beforeAll(async () => {
    h = await startHarness({ ADMIN_TOKEN: ADMIN }, { driven: true });
    // Fan 1: a chat with two direct sends, one a $12 PPV, unlocked 3 minutes later (the unlock first, and twice).
    await send(messageWebhook({ accountId: A, fanId: '101', messageId: '9001', createdAt: at(0), text: 'hi', direction: 'received' }));
    await send(ppvUnlockedWebhook({ accountId: A, fanId: '101', notificationId: '7001', createdAt: at(4), amountDollars: 12, ppvMessageId: '9003' }));
    await send(messageWebhook({ accountId: A, fanId: '101', messageId: '9002', createdAt: at(1), text: 'hello', direction: 'sent' }));
    await send(messageWebhook({ accountId: A, fanId: '101', messageId: '9003', createdAt: at(1), text: 'look', direction: 'sent', priceDollars: 12 }));
    await send(ppvUnlockedWebhook({ accountId: A, fanId: '101', notificationId: '7002', createdAt: at(4), amountDollars: 12, ppvMessageId: '9003' }));
    await send(transactionWebhook({ accountId: A, fanId: '101', transactionId: 'a'.repeat(32), createdAt: at(4), type: 'message', amountDollars: 12 }));
    // A mass message (queue 555) to two fans, a $5 PPV: one buys.
    await send(messageWebhook({ accountId: A, fanId: '102', messageId: '9101', createdAt: at(10), text: 'mass', direction: 'sent', fromQueue: true, queueId: '555', priceDollars: 5 }));
    await send(messageWebhook({ accountId: A, fanId: '103', messageId: '9102', createdAt: at(10), text: 'mass', direction: 'sent', fromQueue: true, queueId: '555', priceDollars: 5 }));
    await send(ppvUnlockedWebhook({ accountId: A, fanId: '103', notificationId: '7003', createdAt: at(20), amountDollars: 5, ppvMessageId: '9102' }));
    // Unlocks convops cannot link: no link; a link into another fan's chat; a PPV never seen sent.
    await send(ppvUnlockedWebhook({ accountId: A, fanId: '104', notificationId: '7004', createdAt: at(30), amountDollars: 9 }));
    await send(ppvUnlockedWebhook({ accountId: A, fanId: '104', notificationId: '7005', createdAt: at(30), amountDollars: 9, ppvMessageId: '9999', linkFanId: '105' }));
    await send(ppvUnlockedWebhook({ accountId: A, fanId: '104', notificationId: '7006', createdAt: at(31), amountDollars: 7, ppvMessageId: '9998' }));
    // Another account: a reply that leads the fan off the platform and names a payment app.
    await send(messageWebhook({ accountId: QA, fanId: '201', messageId: '9501', createdAt: at(0), text: 'hi', direction: 'received' }));
    await send(messageWebhook({ accountId: QA, fanId: '201', messageId: '9502', createdAt: at(1), text: 'add me on Telegram and pay with cash app', direction: 'sent' }));
    await send(messageWebhook({ accountId: QA, fanId: '201', messageId: '9503', createdAt: at(2), text: 'thank you babe', direction: 'sent' }));
    await h.settled();
  });
  afterAll(async () => { await h?.stop(); });

  it('reports the chatters\' direct work, the account and the campaign', async () => {
    const r = await h.call<Conversion>('GET', `/api/conversion?accountId=${A}`);
    expect(r.status, r.text).toBe(200);
    expect(r.body.model).toBe('session');
    // Webhooks name no chatter: the direct work is the unattributed row's.
    expect(r.body.chatters).toEqual([{
      chatterId: null, directMessages: 2, fansChatted: 1, directPpvsSent: 1, goldenRatioPct: 50, ppvsUnlocked: 1, unlockRatioPct: 100,
      ppvRevenueCents: 1200, revenueCents: 0, revenuePerDirectMessageCents: 0, medianPpvPriceCents: 1200, medianMinutesToUnlock: 3,
      qaFlags: { offPlatformContact: 0, offPlatformPayment: 0, bannedPhrase: 0 },
    }]);
    expect(r.body.accounts).toEqual([expect.objectContaining({
      accountId: A, directMessages: 2, fansChatted: 1, directPpvsSent: 1, ppvsUnlocked: 1, ppvRevenueCents: 1200, revenueCents: 1200,
      revenuePerDirectMessageCents: 600, unlinkedUnlocks: 2, unseenSendUnlocks: 1,
    })]);
    expect(r.body.campaigns).toEqual([{ accountId: A, campaignId: '555', fansReached: 2, ppvsSent: 2, unlocks: 1, unlockRatePct: 50, revenueCents: 500 }]);
  });

  it('counts the quality rules per chatter and lists them in the session\'s analysis', async () => {
    const r = await h.call<Conversion>('GET', `/api/conversion?accountId=${QA}`);
    expect(r.body.chatters).toEqual([expect.objectContaining({ chatterId: null, directMessages: 2, qaFlags: { offPlatformContact: 1, offPlatformPayment: 1, bannedPhrase: 0 } })]);
    const analysis = await h.call<{ qaFlags: Row[] }>('GET', `/api/sessions/${encodeURIComponent(`${QA}:201:1`)}/analysis`);
    expect(analysis.status, analysis.text).toBe(200);
    expect(analysis.body.qaFlags).toEqual([
      { messageId: '9502', sentAt: at(1), chatterId: null, rule: 'off-platform-contact', match: 'Telegram' },
      { messageId: '9502', sentAt: at(1), chatterId: null, rule: 'off-platform-payment', match: 'cash app' },
    ]);
  });

  it('places sends and unlocks by their own times', async () => {
    // Sends before minute 2, the direct unlock at minute 4: a window ending at minute 2 has the send and not the unlock.
    const r = await h.call<Conversion>('GET', `/api/conversion?accountId=${A}&to=${encodeURIComponent(at(2))}`);
    expect(r.body.chatters[0]).toMatchObject({ directMessages: 2, fansChatted: 1, directPpvsSent: 1, ppvsUnlocked: 0, unlockRatioPct: 0, medianMinutesToUnlock: null });
    const later = await h.call<Conversion>('GET', `/api/conversion?accountId=${A}&from=${encodeURIComponent(at(2))}`);
    expect(later.body.chatters[0]).toMatchObject({ directMessages: 0, fansChatted: 0, directPpvsSent: 0, ppvsUnlocked: 1, unlockRatioPct: null, goldenRatioPct: null });
  });

  it('exports the report as conversion.csv and campaigns.csv, and as JSON lines', async () => {
    const csv = await h.call('GET', `/api/exports/conversion.csv?accountId=${A}`);
    expect(csv.status).toBe(200);
    expect(csv.headers['content-disposition']).toMatch(/conversion-beginning-now\.csv/);
    const lines = csv.text.trim().split('\r\n');
    expect(lines[0]).toBe('level,accountId,chatterId,directMessages,fansChatted,directPpvsSent,goldenRatioPct,ppvsUnlocked,unlockRatioPct,ppvRevenueCents,revenueCents,revenuePerDirectMessageCents,medianPpvPriceCents,medianMinutesToUnlock,qaOffPlatformContact,qaOffPlatformPayment,qaBannedPhrase,unlinkedUnlocks,unseenSendUnlocks');
    expect(lines.slice(1)).toEqual([`account,${A},,2,1,1,50,1,100,1200,1200,600,1200,3,,,,2,1`, 'chatter,,,2,1,1,50,1,100,1200,0,0,1200,3,0,0,0,,']);
    const ndjson = await h.call('GET', `/api/exports/campaigns.csv?accountId=${A}`, { headers: { accept: 'application/x-ndjson' } });
    expect(ndjson.text.trim().split('\n').map((l) => JSON.parse(l) as unknown)).toEqual([{ accountId: A, campaignId: '555', fansReached: 2, ppvsSent: 2, unlocks: 1, unlockRatePct: 50, revenueCents: 500 }]);
  });

  it('is covered by verify: the money figures of the documents and of the buckets agree, and a tampered bucket is named', async () => {
    type Verify = { ok: boolean; differences: { figure: string; source: string; documents: number; found: number }[] };
    expect((await h.call<Verify>('GET', '/api/admin/verify', { token: ADMIN })).body).toMatchObject({ ok: true, differences: [] });
    const buckets = h.store.collection((await h.store.listCollections()).find((c) => c.startsWith('report_buckets_v')) ?? '');
    const month = (await buckets.find({ _id: { $gte: 'm|', $lt: 'm}' }, accountId: A }, { limit: 1 }))[0];
    await buckets.updateOne({ _id: month?._id }, { $inc: { 'camp.qNTU1.unlocked': 1 } });
    const damaged = await h.call<Verify>('GET', `/api/admin/verify?accountId=${A}`, { token: ADMIN });
    expect(damaged.body.differences).toEqual([{ accountId: A, figure: 'ppvsUnlocked', source: 'buckets', documents: 5, found: 6 }]);
    await buckets.updateOne({ _id: month?._id }, { $inc: { 'camp.qNTU1.unlocked': -1 } });
    expect((await h.call<Verify>('GET', '/api/admin/verify', { token: ADMIN })).body.ok).toBe(true);
  });

  it('gives the figures per local day for the chart, days without activity included, and refuses more than a quarter', async () => {
    const r = await h.call<{ days: Row[]; timezone: string }>('GET', `/api/conversion/daily?accountId=${A}&from=2026-06-09&to=2026-06-12`);
    expect(r.status, r.text).toBe(200);
    expect(r.body.days.map((d) => d.day)).toEqual(['2026-06-09', '2026-06-10', '2026-06-11']);
    expect(r.body.days[1]).toEqual({
      day: '2026-06-10', from: '2026-06-10T00:00:00.000Z', to: '2026-06-11T00:00:00.000Z', directMessages: 2, directPpvsSent: 1, ppvsUnlocked: 1, ppvRevenueCents: 1200,
      campaignUnlocks: 1, campaignRevenueCents: 500, revenueCents: 1200,
    });
    expect(r.body.days[0]).toMatchObject({ directMessages: 0, ppvsUnlocked: 0, revenueCents: 0 });
    const long = await h.call('GET', '/api/conversion/daily?from=2026-01-01&to=2026-06-12');
    expect(long.status).toBe(400);
    expect(long.text).toMatch(/from: the daily series spans at most 92 days/);
  });

  it('keeps to the key\'s accounts and refuses a bad window', async () => {
    expect((await h.call<Conversion>('GET', '/api/conversion?accountId=acct_other')).body).toMatchObject({ chatters: [], accounts: [], campaigns: [] });
    const bad = await h.call<{ error: { message: string } }>('GET', '/api/conversion?from=yesterday');
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/from/);
    // The credit models (test/http/attribution-models.test.ts); `shift` needs a bounded window (test/http/chatters.test.ts).
    expect((await h.call<Conversion>('GET', `/api/conversion?accountId=${A}&model=converter`)).body.model).toBe('converter');
    for (const path of ['/api/conversion?model=shift', '/api/chatters/scorecard?model=Sender', '/api/exports/conversion.csv?model=shift', '/api/conversion/daily?model=']) {
      const r = await h.call('GET', path);
      expect(r.status, path).toBe(400);
      expect(r.text, path).toMatch(/model/);
    }
  });
});
