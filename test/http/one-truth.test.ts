// Issue 53, "One rule for closed": a backlog redelivered at once, read at the same instant.
// Chats answered three hours ago (past their idle gap), fans who wrote thirty hours ago and were
// never answered (past the unanswered limit) and a fan waiting ten minutes, with no clock tick
// yet to close the lapsed ones in the store. Every route counts a session past its deadline as
// closed, so open, closed and awaiting agree between the overview, the accounts, the stats and
// the floor, and the SLA report counts the lapsed unanswered ones as missed (and breaches, never
// pending).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageWebhook } from '../../src/demo/platform-bodies.js';
import { startHarness, type Harness } from '../support/app-harness.js';

const A = 'acct_0ne7ruth000000000000000000000001';
const MIN = 60_000;

describe('one truth at one instant, with sessions past their deadline not yet closed', () => {
  let h: Harness;
  let n = 0;
  const now = Date.now();
  const post = (fanId: string, minutesAgo: number, direction: 'received' | 'sent') =>
    h.webhook(messageWebhook({ accountId: A, fanId, messageId: String(700_000 + ++n), createdAt: new Date(now - minutesAgo * MIN).toISOString(), text: 'hi', direction }), { key: `evt_truth_${n}` });
  beforeAll(async () => {
    h = await startHarness({}, { driven: true });
    for (const fan of ['7001', '7002', '7003']) {
      expect((await post(fan, 180, 'received')).status).toBe(200);
      expect((await post(fan, 178, 'sent')).status).toBe(200);
    }
    for (const fan of ['7101', '7102']) expect((await post(fan, 30 * 60, 'received')).status).toBe(200);
    expect((await post('7201', 10, 'received')).status).toBe(200);
    await h.settled();
  });
  afterAll(async () => { await h?.stop(); });

  it('gives the same open, closed and awaiting on every route, and the lapsed unanswered as missed', async () => {
    const get = async <T>(url: string): Promise<T> => {
      const res = await h.call<T>('GET', url);
      expect(res.status, `${url}: ${res.text}`).toBe(200);
      return res.body;
    };
    // The store still holds them open: no tick has closed them.
    const [overview, accounts, stats, floor, sla] = await Promise.all([
      get<{ sessions: { total: number; open: number; closed: number; awaiting: number } }>(`/api/overview?accountId=${A}`),
      get<{ items: { id: string; openSessions: number; awaiting: number }[] }>(`/api/accounts?accountId=${A}`),
      get<{ openSessions: number; awaitingReply: number }>('/api/stats?thresholdSec=3600'),
      get<{ totals: { open: number; awaiting: number }; accounts: { id: string; open: number }[] }>('/api/floor'),
      get<{ sessions: number; responded: number; breaches: number; missed: number; pending: number }>(`/api/sla?accountId=${A}&from=${new Date(now - 2 * 86_400_000).toISOString()}&thresholdSec=3600`),
    ]);
    expect(overview.sessions).toEqual({ total: 6, open: 1, closed: 5, awaiting: 1 });
    // Over a window too (the sessions opened in it).
    const since = new Date(now - 2 * 86_400_000).toISOString();
    expect((await get<typeof overview>(`/api/overview?accountId=${A}&from=${since}`)).sessions).toEqual({ total: 6, open: 1, closed: 5, awaiting: 1 });
    expect((await get<typeof accounts>(`/api/accounts?accountId=${A}&from=${since}`)).items.find((a) => a.id === A)).toMatchObject({ openSessions: 1, awaiting: 1 });
    expect(accounts.items.find((a) => a.id === A)).toMatchObject({ openSessions: 1, awaiting: 1 });
    expect(stats).toMatchObject({ openSessions: 1, awaitingReply: 1 });
    expect(floor.totals).toMatchObject({ open: 1, awaiting: 1 });
    expect(floor.accounts.find((a) => a.id === A)).toMatchObject({ open: 1 });
    // Three answered within the hour; two closed at the unanswered limit (missed, so breaches);
    // the fan waiting ten minutes is the one pending.
    expect(sla).toMatchObject({ sessions: 6, responded: 3, breaches: 2, missed: 2, pending: 1 });
  });
});
