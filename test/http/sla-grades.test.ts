// The API sends the grade of every wait it shows, so the pages compute none: the inbox's items
// (with the seconds from which each grade holds, for the console's running timers), the floor's
// totals and rows (declared in its schema: a field it does not declare never reaches a caller)
// and /api/stats. Three fans wait, one in each grade, with minutes of margin on either side of
// each boundary so a slow machine cannot move a fan across one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageWebhook } from '../../src/demo/platform-bodies.js';
import { startHarness, type Harness } from '../support/app-harness.js';

const A = 'acct_0000000000000000000000000000gr01';
const B = 'acct_0000000000000000000000000000gr02';
const HOUR = 3600;
const NOW = Date.now();

// Against a one-hour threshold: at risk from 48 minutes, breached past 60.
const FANS = [
  { account: A, fan: '7200001', agoSec: 10 * 60, grade: 'ok' },
  { account: B, fan: '7200002', agoSec: 54 * 60, grade: 'at-risk' },
  { account: A, fan: '7200003', agoSec: 2 * HOUR, grade: 'breached' },
] as const;

interface Item { chatId: string; waitSec: number; grade: string | null }

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ SLA_THRESHOLD_SEC: String(HOUR) }, { driven: true });
  await h.deliver(FANS.map((f, i) => ({
    key: `evt_grades_${i}`,
    body: messageWebhook({ accountId: f.account, fanId: f.fan, messageId: String(5_100_000_000 + i), createdAt: new Date(NOW - f.agoSec * 1000).toISOString(), text: 'still there?', direction: 'received' }),
  })));
  await h.settled();
}, 300_000);
afterAll(async () => { await h?.stop(); });

describe('grades in the answers', () => {
  it('the inbox: each waiting fan with their wait and its grade, and the seconds from which each grade holds', async () => {
    const r = await h.call<{ items: Item[]; thresholdSec: number; gradeSteps: unknown }>('GET', '/api/sessions?sort=priority&awaiting=1');
    expect(r.status).toBe(200);
    expect(r.body.thresholdSec).toBe(HOUR);
    expect(r.body.gradeSteps).toEqual([{ grade: 'at-risk', fromSec: 2880 }, { grade: 'breached', fromSec: 3601 }]);
    const byChat = new Map(r.body.items.map((s) => [s.chatId, s]));
    for (const f of FANS) {
      const item = byChat.get(f.fan);
      expect(item?.grade, f.fan).toBe(f.grade);
      expect(Number.isInteger(item?.waitSec), 'whole seconds').toBe(true);
    }
    // Another threshold asked for, other grades: the fan waiting 54 minutes is over 50.
    const strict = await h.call<{ items: Item[] }>('GET', '/api/sessions?sort=priority&awaiting=1&thresholdSec=3000');
    expect(strict.body.items.find((s) => s.chatId === '7200002')?.grade).toBe('breached');
  });

  it('a session that nobody waits on has no grade', async () => {
    const r = await h.call<{ items: Item[] }>('GET', '/api/sessions?sort=opened&awaiting=0');
    expect(r.status).toBe(200);
    for (const s of r.body.items) expect(s.grade).toBeNull();
  });

  it('the floor: totals and every account row carry the grades of what they show', async () => {
    const r = await h.call('GET', '/api/floor');
    expect(r.status).toBe(200);
    expect(r.body.totals).toMatchObject({ breached: 1, breachedGrade: 'some', longestWaitGrade: 'breached', alertGrade: 'critical' });
    expect(r.body.totals.longestWaitSec).toBeGreaterThanOrEqual(2 * HOUR);
    expect(['no-data', 'on-target', 'below', 'missed']).toContain(r.body.totals.today.withinThresholdGrade);
    const rows = new Map((r.body.accounts as { id: string }[]).map((a) => [a.id, a]));
    expect(rows.get(A)).toMatchObject({ breached: 1, breachedGrade: 'some', longestWaitGrade: 'breached' });
    expect(rows.get(B)).toMatchObject({ breached: 0, breachedGrade: 'none', longestWaitGrade: 'at-risk' });
  });

  it('stats: breached and at risk now, and the longest wait with its grade', async () => {
    const r = await h.call('GET', '/api/stats');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ awaitingReply: 3, breachedNow: 1, atRiskNow: 1, longestWaitGrade: 'breached' });
  });

  it('a bad threshold is a 400 that names it', async () => {
    const r = await h.call('GET', '/api/sessions?thresholdSec=0');
    expect(r.status).toBe(400);
    expect(r.text).toContain('thresholdSec');
  });
});
