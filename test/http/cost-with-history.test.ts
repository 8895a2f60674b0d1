// "A count is a fold, not a scan, and costs the same however much history or backlog there is"
// (issue 53), in the lowest tier that can prove it: what each aggregate route reads, counted in
// the documents the embedded store examines to answer it (DocumentStore.documentsExamined),
// not in milliseconds. A day's traffic is read; then months of closed chats and a backlog of
// fans unanswered for thirty hours arrive at once (a platform redelivering after an outage),
// and every route must read exactly what it read before once the next tick has said the
// backlog lapsed, and again once the lateness has let the log close it. Before that tick the
// same routes read more (the readers correct what lapsed), which shows the meter sees a scan.
// The indexes these reads use are the ones MongoDB gets (each projection declares them).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageWebhook, transactionWebhook } from '../../src/demo/platform-bodies.js';
import { startHarness, type Harness } from '../support/app-harness.js';

const ACCOUNTS = ['acct_c057000000000000000000000000000a', 'acct_c057000000000000000000000000000b'];
const ADMIN = 'admin-token-for-cost-with-history';
const MIN = 60_000;
const DAY = 86_400_000;
const LATE_SEC = 120;

describe('the aggregate routes read as much with months of history and a said backlog as without (embedded store)', () => {
  let h: Harness;
  let n = 0;
  const now = Date.now();
  const iso = (at: number): string => new Date(at).toISOString();
  const message = (account: string, fanId: string, at: number, direction: 'received' | 'sent') =>
    ({ key: `evt_cost_${++n}`, body: messageWebhook({ accountId: account, fanId, messageId: String(710_000 + n), createdAt: iso(at), text: 'hi', direction }) });
  const tip = (account: string, fanId: string, at: number) =>
    ({ key: `evt_cost_${++n}`, body: transactionWebhook({ accountId: account, fanId, transactionId: `c057${String(++n).padStart(28, '0')}`, createdAt: iso(at), type: 'tip', amountDollars: 12 }) });

  // Off the hour edges, so the window's partial hours are read from sessions.
  const since = iso(now - 2 * 3_600_000 - 17 * MIN);
  const ROUTES = [
    '/api/overview', '/api/stats', '/api/sla', '/api/chatters/scorecard', '/api/floor', '/api/alerts', '/api/accounts', '/api/conversion',
    `/api/overview?from=${since}`, `/api/sla?from=${since}`, `/api/accounts?from=${since}`, `/api/chatters/scorecard?from=${since}`,
    `/api/conversion?from=${since}`, `/api/sla?clock=business&from=${since}`, '/api/stats?clock=business', `/api/sla?accountId=${ACCOUNTS[0]}&from=${since}`,
  ];

  /** Documents examined per route: each read once, alone (the harness is driven: nothing else reads). */
  const costs = async (): Promise<Record<string, number>> => {
    const examined = h.store.documentsExamined;
    if (!examined) throw new Error('the embedded store counts the documents it examines');
    // The definitions versions are read at most every two seconds whatever the history (a
    // handful of documents): left out, so when that read falls does not move a route's count.
    const total = (): number => [...examined.call(h.store)].filter(([name]) => name !== 'definitions').reduce((a, [, b]) => a + b, 0);
    const out: Record<string, number> = {};
    for (const url of ROUTES) {
      // The third of three reads: report readers keep what they worked out from documents that
      // have not changed (an hour's edge is kept after it was seen unchanged twice).
      for (let i = 0; i < 3; i++) {
        const before = total();
        const res = await h.call('GET', url, { token: ADMIN });
        expect(res.status, `${url}: ${res.text}`).toBe(200);
        out[url] = total() - before;
      }
    }
    return out;
  };

  beforeAll(async () => {
    h = await startHarness({ ADMIN_TOKEN: ADMIN, ALLOWED_LATENESS_SEC: String(LATE_SEC) }, { driven: true });
    // Today: fans answered an hour ago, fans waiting now, a tip, and chats answered three
    // hours ago (past the idle gap: said lapsed by the tick below).
    const today = ACCOUNTS.flatMap((a, i) => [
      ...['1', '2', '3'].flatMap((f) => [message(a, `9${i}0${f}`, now - 60 * MIN, 'received'), message(a, `9${i}0${f}`, now - 58 * MIN, 'sent')]),
      tip(a, `9${i}01`, now - 50 * MIN),
      ...['4', '5'].map((f) => message(a, `9${i}0${f}`, now - (5 + Number(f)) * MIN, 'received')),
      ...['6', '7'].flatMap((f) => [message(a, `9${i}0${f}`, now - 180 * MIN, 'received'), message(a, `9${i}0${f}`, now - 178 * MIN, 'sent')]),
    ]);
    await h.deliver(today);
    await h.settled();
    await h.tick(Date.now());
    await h.settled();
  }, 120_000);
  afterAll(async () => { await h?.stop(); });

  it('reads the same documents per route after the backlog is said lapsed, and after the log closes it', async () => {
    const base = await costs();
    // Every route reads something (a meter that counts nothing proves nothing).
    for (const [url, c] of Object.entries(base)) expect(c, url).toBeGreaterThan(0);

    // Months of answered chats with tips, and fans unanswered for thirty hours, all at once.
    const history = ACCOUNTS.flatMap((a, i) => Array.from({ length: 60 }, (_, k) => {
      const at = now - (3 + (k % 90)) * DAY - k * 7 * MIN;
      return [message(a, `8${i}${k}`, at, 'received'), message(a, `8${i}${k}`, at + 40_000, 'sent'), tip(a, `8${i}${k}`, at + 60_000)];
    }).flat());
    const backlog = ACCOUNTS.flatMap((a, i) => Array.from({ length: 40 }, (_, k) => message(a, `7${i}${k}`, now - 30 * 60 * MIN - k * MIN, 'received')));
    await h.deliver([...history, ...backlog]);
    await h.settled();

    // Not said yet: readers correct each lapsed session, so the live figures read them all.
    const unsaid = await costs();
    expect(unsaid['/api/overview'], 'an overview before the tick reads the lapsed backlog').toBeGreaterThan((base['/api/overview'] ?? 0) + 80);

    // All-time conversion counts distinct fans chatted, which the all-time bucket does not keep:
    // it reads the fan sets of the calendar buckets the history spans (a figures and a fans
    // document per month), never a document per session or per message.
    const months = new Set(history.map((d) => (JSON.parse(d.body) as { payload: { createdAt?: string; created_at?: string } }).payload).map((p) => (p.createdAt ?? p.created_at ?? '').slice(0, 7))).size;
    const spanBound = (c: Record<string, number>): Record<string, number> => {
      const { '/api/conversion': conversion = 0, ...rest } = c;
      expect(conversion, 'all-time conversion: the calendar buckets the history spans').toBeLessThanOrEqual((base['/api/conversion'] ?? 0) + 2 * months);
      return rest;
    };
    const { '/api/conversion': _, ...same } = base;

    // The next tick says the backlog lapsed: the reads cost what they cost before it came.
    await h.tick(Date.now());
    await h.settled();
    expect(spanBound(await costs())).toEqual(same);

    // Past the lateness the log closes it: still the same.
    await h.tick(Date.now() + (LATE_SEC + 1) * 1000);
    await h.settled();
    expect(spanBound(await costs())).toEqual(same);
  }, 180_000);
});
