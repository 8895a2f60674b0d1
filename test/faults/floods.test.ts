// Slow clients and floods: a client that dribbles its request is cut off at the request
// timeout while others are served; the floor's rate limit holds under a burst; admin routes
// keep answering through a webhook flood, and the flood itself is accepted, not throttled.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../src/app.js';
import { signBody } from '../../src/ingest/signature.js';
import { deploymentEnv, removeDataDirs, startWithEnv } from '../support/deployments.js';
import { messageBody } from '../support/platform.js';

const SECRET = 'whsec_flood_test';
const ADMIN_TOKEN = 'admin-token-for-the-flood-test-0001';
const REQUEST_TIMEOUT_MS = 2000;
const FLOOR_MAX = 25;

let app: RunningApp;
let port = 0;
beforeAll(async () => {
  app = await startWithEnv(await deploymentEnv('embedded', {
    ADMIN_TOKEN, PLATFORMAPI_WEBHOOK_SECRET: SECRET, REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    FLOOR_RATE_LIMIT_MAX: String(FLOOR_MAX), FLOOR_RATE_LIMIT_WINDOW_SEC: '600', ALERT_SWEEP_SEC: '0',
  }));
  port = Number(new URL(app.url ?? '').port);
});
afterAll(async () => {
  await app?.stop();
  removeDataDirs();
});

/** Sends a request's head, then one body byte every `everyMs`; resolves when the server ends the connection. */
function slowClient(everyMs: number): { closed: Promise<{ afterMs: number; response: string }>; socket: Socket } {
  const socket = connect(port, '127.0.0.1');
  const started = Date.now();
  let response = '';
  let timer: NodeJS.Timeout | undefined;
  socket.on('connect', () => {
    socket.write('POST /webhooks/platform HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n');
    timer = setInterval(() => { if (!socket.destroyed) socket.write('{'); }, everyMs);
  });
  socket.on('data', (c: Buffer) => { response += c.toString(); });
  const closed = new Promise<{ afterMs: number; response: string }>((resolve) => {
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ afterMs: Date.now() - started, response });
    });
    socket.on('error', () => undefined);
  });
  return { closed, socket };
}

function signedWebhook(n: number): { body: string; headers: Record<string, string> } {
  const body = messageBody({ accountId: 'acct_flood', fanId: 500_000 + (n % 300), messageId: 8_000_000_000 + n, createdAt: new Date(Date.UTC(2026, 5, 10) + n * 1000).toISOString(), direction: n % 2 ? 'sent' : 'received' });
  return { body, headers: { 'content-type': 'application/json', signature: signBody(SECRET, body), 'x-ofapi-idempotency-key': `evt_flood_${n}` } };
}

describe('slow clients and floods', () => {
  it('clients that dribble their requests are cut off at the request timeout, and others are served meanwhile', async () => {
    const slow = Array.from({ length: 50 }, () => slowClient(200));
    // While 50 connections dribble, ordinary requests go through.
    for (let i = 0; i < 5; i++) expect((await fetch(`${app.url}/api/health`)).status).toBe(200);
    const outcomes = await Promise.all(slow.map((s) => s.closed));
    for (const o of outcomes) {
      // Cut by the server (408), not left open until the client gave up: the client never stops.
      expect(o.response).toMatch(/^HTTP\/1\.1 408/);
      expect(o.afterMs).toBeLessThan(REQUEST_TIMEOUT_MS * 5);
    }
  });

  it(`the floor's rate limit holds under a burst: ${FLOOR_MAX} answers, the rest 429 with Retry-After`, async () => {
    const answers = await Promise.all(Array.from({ length: 300 }, () => fetch(`${app.url}/api/floor`).then(async (r) => ({ status: r.status, retryAfter: r.headers.get('retry-after'), body: await r.text() }))));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(FLOOR_MAX);
    const limited = answers.filter((a) => a.status === 429);
    expect(limited).toHaveLength(300 - FLOOR_MAX);
    for (const a of limited) {
      expect(Number(a.retryAfter)).toBeGreaterThan(0);
      expect(JSON.parse(a.body)).toMatchObject({ code: 'RATE_LIMITED' });
    }
  });

  it('admin routes answer through a webhook flood, and every flooded webhook is accepted', async () => {
    let flooding = true;
    let sent = 0;
    const webhookStatuses = new Map<number, number>();
    const flood = Promise.all(Array.from({ length: 48 }, async () => {
      while (flooding) {
        const w = signedWebhook(sent++);
        const status = await fetch(`${app.url}/webhooks/platform`, { method: 'POST', headers: w.headers, body: w.body }).then(async (r) => { await r.arrayBuffer(); return r.status; }, () => 0);
        webhookStatuses.set(status, (webhookStatuses.get(status) ?? 0) + 1);
      }
    }));
    const admin: number[] = [];
    const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const adminCalls: (() => Promise<Response>)[] = [
      () => fetch(`${app.url}/api/admin/replay`, { headers: auth }),
      () => fetch(`${app.url}/api/admin/backfill`, { headers: auth }),
      () => fetch(`${app.url}/api/admin/accounts`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ id: `acct_${'0'.repeat(31)}2`, displayName: 'Flood test' }) }),
    ];
    // Let the flood build up before the admin calls start.
    await new Promise((r) => setTimeout(r, 500));
    for (let i = 0; i < 60; i++) {
      const res = await (adminCalls[i % adminCalls.length] as () => Promise<Response>)();
      await res.arrayBuffer();
      admin.push(res.status);
    }
    flooding = false;
    await flood;
    expect(sent).toBeGreaterThan(500);
    expect(admin.every((s) => s === 200 || s === 201)).toBe(true);
    expect([...webhookStatuses.keys()]).toEqual([200]);
  });
});
