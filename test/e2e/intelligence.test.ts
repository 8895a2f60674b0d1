// Intelligence end to end on the demo dataset: live and stored alerts and their lifecycle,
// the admin run with its cap, the model provider behind a local fake, the floor's rate limit,
// scorecards, analysis, and proof that ingest makes no model call and no intelligence write.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../src/app.js';
import { ALERTS_COLLECTION, ANALYSES_COLLECTION } from '../../src/intelligence/intelligence.js';
import { loadDemoRecords } from '../../src/demo/fixtures.js';
import { deploymentEnv, removeDataDirs, startWithEnv } from '../support/deployments.js';
import { oracle } from '../support/oracle.js';
import { messageBody, postWebhook } from '../support/platform.js';
import { settledHash } from '../support/read-models.js';
import { eventually } from '../support/wait.js';

const ADMIN = 'admin-token-for-intelligence-000';
const admin = { authorization: `Bearer ${ADMIN}` };

interface Alert { id: string; ruleId: string; severity: string; status: string; reason: string; sessionId: string | null; origin: string; ackedAt: string | null; ackedBy: string | null; resolvedAt: string | null }

function fakeModel(): Promise<{ server: Server; url: string; calls: () => number }> {
  let calls = 0;
  const server = createServer((req, res) => {
    calls++;
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ choices: [{ message: { content: JSON.stringify({ labels: [{ label: 'upsell-opportunity', confidence: 0.7 }], summary: 'Engaged fan.', recommendations: ['Offer a bundle.'] }) } }] }));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    const a = server.address();
    resolve({ server, url: `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}/v1`, calls: () => calls });
  }));
}

async function call<T = Record<string, unknown>>(url: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}${path}`, {
    method, headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as T };
}

describe('intelligence', () => {
  let model: Awaited<ReturnType<typeof fakeModel>>;
  const apps: RunningApp[] = [];
  beforeAll(async () => { model = await fakeModel(); });
  afterAll(async () => {
    await Promise.all(apps.map((a) => a.stop()));
    model.server.close();
    removeDataDirs();
  });
  const modelEnv = () => ({ MODEL_BASE_URL: model.url, MODEL_API_KEY: 'sk-fake', MODEL_NAME: 'fake-1', ALERT_SWEEP_SEC: '0', ADMIN_TOKEN: ADMIN });

  it('ingest, processing and projection make no model call and no intelligence write: only the intelligence role does', async () => {
    const app = await startWithEnv(await deploymentEnv('embedded', { ...modelEnv(), ROLES: 'api,processor,projector' }));
    apps.push(app);
    const url = app.url ?? '';
    const before = model.calls();
    for (let i = 0; i < 40; i++) {
      const body = messageBody({ accountId: 'acct_quiet', fanId: 500 + (i % 5), messageId: 8_800_000 + i, createdAt: new Date(Date.UTC(2026, 5, 1, 10, 0, i)).toISOString(), direction: i % 2 ? 'sent' : 'received', text: 'hi there' });
      expect((await postWebhook(url, body, { key: `evt_quiet_${i}` })).status).toBe(200);
    }
    await settledHash(url, app.store);
    expect(model.calls()).toBe(before);
    expect(await app.store.collection(ALERTS_COLLECTION).countDocuments()).toBe(0);
    expect(await app.store.collection(ANALYSES_COLLECTION).countDocuments()).toBe(0);
    const health = await call<{ components: { intelligence: { model: { enabled: boolean } } } }>(url, 'GET', '/api/health');
    expect(health.body.components.intelligence.model).toEqual({ enabled: true, model: 'fake-1' });
  });

  it('its own consumer analyses a session when it closes, with the model, after the webhook was answered', async () => {
    const app = await startWithEnv(await deploymentEnv('embedded', modelEnv()));
    apps.push(app);
    const url = app.url ?? '';
    // Two minutes ago: an old message's session would be past its deadline, closed to the rules.
    const body = messageBody({ accountId: 'acct_consumer', fanId: 777, messageId: 8_900_001, createdAt: new Date(Date.now() - 2 * 60_000).toISOString(), direction: 'received', text: 'I am bored, I will unsubscribe' });
    const before = model.calls();
    expect((await postWebhook(url, body, { key: 'evt_consumer_1' })).status).toBe(200);
    const sessionId = 'acct_consumer:777:1';
    // The fan's churn language is analysed by the rules (no model call) once projected.
    const churn = await eventually(async () => {
      const a = await call<{ alerts: Alert[] }>(url, 'GET', `/api/sessions/${encodeURIComponent(sessionId)}/analysis`);
      return a.status === 200 && a.body.alerts.some((x) => x.ruleId === 'language.churn-risk' && x.origin === 'stored') ? a.body : undefined;
    }, 20_000, 'churn alert stored');
    expect(churn.alerts.find((x) => x.ruleId === 'language.churn-risk')?.reason).toContain('"bored"');
    expect(model.calls()).toBe(before);
    expect((await call(url, 'POST', '/api/admin/close-session', { sessionId }, admin)).status).toBe(202);
    const closed = await eventually(async () => {
      const a = await call<{ labels: { label: string; source: string; model?: string; promptVersion?: string }[] }>(url, 'GET', `/api/sessions/${encodeURIComponent(sessionId)}/analysis`);
      return a.body.labels.some((l) => l.source === 'model') ? a.body : undefined;
    }, 20_000, 'model labels after close');
    expect(closed.labels).toEqual(expect.arrayContaining([{ label: 'upsell-opportunity', source: 'model', confidence: 0.7, model: 'fake-1', promptVersion: 'session-labels-v1' }]));
    expect(model.calls()).toBe(before + 1);
  });

  describe('on the demo dataset', () => {
    let app: RunningApp;
    let url = '';
    let seededAt = 0;
    let shiftMs = 0;
    beforeAll(async () => {
      // No intelligence role here: the admin run is the only thing that calls the model.
      app = await startWithEnv(await deploymentEnv('embedded', { ...modelEnv(), ROLES: 'api,processor,projector', FLOOR_RATE_LIMIT_MAX: '3', FLOOR_RATE_LIMIT_WINDOW_SEC: '60' }));
      apps.push(app);
      url = app.url ?? '';
      // The recent timeline: seeded history closes what is long past, the live part stays open.
      seededAt = Date.now();
      const seeded = await call<{ shiftedBySec: number }>(url, 'POST', '/api/admin/seed-demo', {}, admin);
      expect(seeded.status).toBe(200);
      shiftMs = seeded.body.shiftedBySec * 1000;
      await settledHash(url, app.store);
    }, 120_000);

    it('shows live alerts for waiting fans with reasons a manager can read', async () => {
      const { body } = await call<{ items: Alert[]; status: string }>(url, 'GET', '/api/alerts');
      expect(body.status).toBe('open');
      const waiting = body.items.filter((a) => a.ruleId === 'sla.fan-waiting');
      expect(waiting.filter((a) => a.severity === 'critical').length).toBeGreaterThan(0);
      for (const a of waiting) {
        expect(a).toMatchObject({ status: 'open', origin: 'live' });
        // Past the SLA, critical; close to it (the demo's live part has a fan at about 4.5 minutes), a warning.
        if (a.severity === 'critical') expect(a.reason).toMatch(/^Fan \d+ has waited .+ for a reply, past the 5m 00s SLA\.$/);
        else expect(a).toMatchObject({ severity: 'warning', reason: expect.stringMatching(/^Fan \d+ has waited .+; the 5m 00s SLA is close\.$/) });
      }
      // Nothing of the months-old part: no wait longer than a day.
      const longest = (await call<{ totals: { longestWaitSec: number } }>(url, 'GET', '/api/floor')).body.totals.longestWaitSec;
      expect(longest).toBeGreaterThan(0);
      expect(longest).toBeLessThan(86_400);
      expect((await call(url, 'GET', '/api/alerts?status=bogus')).status).toBe(400);
    });

    it('runs for at most 20 open sessions, with model labels recorded with their versions', async () => {
      expect((await call(url, 'POST', '/api/admin/intelligence/run', { limit: 21 }, admin)).status).toBe(400);
      expect((await call(url, 'POST', '/api/admin/intelligence/run', { limit: '3' }, admin)).status).toBe(400);
      expect((await call(url, 'POST', '/api/admin/intelligence/run', { sessionId: 'acct_x:1:1' }, admin)).status).toBe(404);
      expect((await call(url, 'POST', '/api/admin/intelligence/run', {})).status).toBe(401);
      const before = model.calls();
      const run = await call<{ analysed: number; sessions: { sessionId: string; alerts: string[]; model: { model: string; promptVersion: string } | null }[] }>(url, 'POST', '/api/admin/intelligence/run', {}, admin);
      expect(run.status).toBe(200);
      const open = (await call<{ items: unknown[] }>(url, 'GET', '/api/sessions?status=open&limit=500')).body.items.length;
      expect(open).toBeGreaterThan(0);
      expect(run.body.analysed).toBe(Math.min(20, open));
      expect(model.calls() - before).toBe(Math.min(20, open));
      expect(run.body.sessions[0]?.model).toMatchObject({ model: 'fake-1', promptVersion: 'session-labels-v1' });

      const first = run.body.sessions[0];
      const analysis = await call<{ alerts: Alert[]; labels: { label: string; source: string; model?: string }[]; recommendations: string[] }>(url, 'GET', `/api/sessions/${encodeURIComponent(first?.sessionId ?? '')}/analysis`);
      expect(analysis.body.labels).toEqual(expect.arrayContaining([expect.objectContaining({ label: 'upsell-opportunity', source: 'model', model: 'fake-1' })]));
      expect(analysis.body.recommendations).toContain('Offer a bundle.');
      expect(analysis.body.alerts.length).toBeGreaterThan(0);
    });

    it('merges stored and live alerts on their ids (stored wins), acks durably and idempotently, and resolves when the condition clears', async () => {
      const all = (await call<{ items: Alert[] }>(url, 'GET', '/api/alerts?status=all&limit=500')).body.items;
      expect(new Set(all.map((a) => a.id)).size).toBe(all.length);
      const target = all.find((a) => a.ruleId === 'sla.fan-waiting' && a.origin === 'stored');
      expect(target).toBeDefined();
      const id = encodeURIComponent(target?.id ?? '');
      expect((await call(url, 'POST', `/api/alerts/${id}/ack`)).status).toBe(401);
      expect((await call(url, 'POST', '/api/alerts/nope/ack', undefined, admin))).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
      const acked = await call<Alert>(url, 'POST', `/api/alerts/${id}/ack`, undefined, admin);
      expect(acked.body).toMatchObject({ status: 'acked', ackedBy: 'ADMIN_TOKEN' });
      const again = await call<Alert>(url, 'POST', `/api/alerts/${id}/ack`, undefined, admin);
      expect(again.body.ackedAt).toBe(acked.body.ackedAt);
      const open = (await call<{ items: Alert[] }>(url, 'GET', '/api/alerts?limit=500')).body.items;
      expect(open.map((a) => a.id)).not.toContain(target?.id);
      expect((await call<{ items: Alert[] }>(url, 'GET', '/api/alerts?status=acked&limit=500')).body.items.map((a) => a.id)).toContain(target?.id);

      // A live alert can be acknowledged too: it becomes a stored record.
      const live = open.find((a) => a.origin === 'live');
      if (live) expect((await call<Alert>(url, 'POST', `/api/alerts/${encodeURIComponent(live.id)}/ack`, undefined, admin)).body).toMatchObject({ status: 'acked', origin: 'stored' });

      // Closing the session clears the condition; the next run resolves the alert durably.
      expect((await call(url, 'POST', '/api/admin/close-session', { sessionId: target?.sessionId }, admin)).status).toBe(202);
      await eventually(async () => {
        const s = await call<{ session: { status: string } }>(url, 'GET', `/api/sessions/${encodeURIComponent(target?.sessionId ?? '')}/analysis`);
        return s.body.session.status === 'closed' ? true : undefined;
      }, 20_000, 'forced close');
      await call(url, 'POST', '/api/admin/intelligence/run', { sessionId: target?.sessionId }, admin);
      const resolved = (await call<{ items: Alert[] }>(url, 'GET', '/api/alerts?status=resolved&limit=500')).body.items.find((a) => a.id === target?.id);
      expect(resolved).toMatchObject({ status: 'resolved', ackedBy: 'ADMIN_TOKEN' });
      expect(resolved?.resolvedAt).not.toBeNull();
    });

    it('scorecards carry alerts and coachPriority, with SLA and revenue equal to the oracle', async () => {
      const o = oracle(loadDemoRecords(), 300, Date.now(), seededAt, shiftMs);
      const cards = (await call<{ items: { chatterId: string; revenueCents: number; openAlerts: number; coachPriority: number; sla: { sessions: number; withinThresholdPct: number | null; medianFirstResponseSec: number | null; p90FirstResponseSec: number | null } }[] }>(url, 'GET', '/api/chatters/scorecard')).body.items;
      expect(Object.fromEntries(cards.map((c) => [c.chatterId, c.revenueCents]))).toEqual(o.revenueByChatter);
      for (const c of cards) {
        expect({ pct: c.sla.withinThresholdPct, median: c.sla.medianFirstResponseSec, p90: c.sla.p90FirstResponseSec })
          .toEqual({ pct: o.slaByChatter[c.chatterId]?.pct, median: o.slaByChatter[c.chatterId]?.median, p90: o.slaByChatter[c.chatterId]?.p90 });
        expect(c.coachPriority).toBeGreaterThanOrEqual(0);
        expect(c.coachPriority).toBeLessThanOrEqual(100);
      }
      expect(cards.reduce((n, c) => n + c.openAlerts, 0)).toBeGreaterThan(0);
      const sorted = [...cards].sort((a, b) => b.coachPriority - a.coachPriority);
      expect(cards.map((c) => c.coachPriority)).toEqual(sorted.map((c) => c.coachPriority));
    });

    it('serves the floor publicly until its rate limit, then 429 with Retry-After; admin routes are unaffected', async () => {
      const floor = await call<{ totals: { open: number; awaiting: number; severity: Record<string, number> }; accounts: unknown[]; chatters: unknown[]; topAlerts: Alert[] }>(url, 'GET', '/api/floor');
      expect(floor.status).toBe(200);
      expect(floor.headers.get('x-ratelimit-limit')).toBe('3');
      expect(floor.body.totals.open).toBeGreaterThan(0);
      expect(floor.body.accounts).toHaveLength(3);
      expect(floor.body.chatters.length).toBeGreaterThan(0);
      expect(floor.body.topAlerts.length).toBeGreaterThan(0);
      await call(url, 'GET', '/api/floor');
      await call(url, 'GET', '/api/floor');
      const limited = await call<{ code: string; message: string }>(url, 'GET', '/api/floor');
      expect(limited.status).toBe(429);
      expect(limited.body.code).toBe('RATE_LIMITED');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await call(url, 'GET', '/api/admin/replay', undefined, admin)).status).toBe(200);
    });
  });
});
