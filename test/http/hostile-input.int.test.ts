// 10,000 hostile requests against every ingest and admin route (bodies to the write routes,
// query strings and ids to the admin reads): each gets a 4xx with the error
// shape (through inject(): the app, the pipeline and this test share one heap), the app keeps serving, its heap does not grow with the requests, and nothing
// from a rejected request reaches the log or the store.
import { createHash } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { topology } from '../../src/topology.js';
import { startHarness, type Harness } from '../support/app-harness.js';
import { faultDeliveries } from '../support/fault-input.js';
import { ADMIN_READ_ROUTES, hostileRequests, WRITE_ROUTE_TEMPLATES, type HostileRequest } from '../support/hostile-input.js';
import { sample } from '../support/platform.js';

const COUNT = Number(process.env.HOSTILE_COUNT ?? 10_000);
const BODY_LIMIT = 64 * 1024;
const SECRET = 'whsec_hostile_test';
const ADMIN_TOKEN = 'admin-token-for-hostile-input-0001';
const CONNECTOR_TOKEN = 'connector-token-for-hostile-input-01';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

let app: Harness;
beforeAll(async () => {
  app = await startHarness({
    ADMIN_TOKEN, CONNECTOR_TOKEN, PLATFORMAPI_WEBHOOK_SECRET: SECRET, BODY_LIMIT_BYTES: String(BODY_LIMIT), ALERT_SWEEP_SEC: '0',
    // Every refusal family must be seen here; rate limits and refusal counting have their own tests.
    RATE_LIMIT_MAX: '1000000', REFUSAL_LIMIT_MAX: '1000000',
  });
  // Something already stored, so "unchanged" compares real state, not two empty stores.
  await app.deliver(faultDeliveries(40, 3).deliveries, { secret: SECRET });
  await app.settled();
});
afterAll(async () => {
  await app?.stop();
});

/** Everything a request could have written: log ends and every collection's documents. */
async function footprint(): Promise<string> {
  const t = topology('');
  const parts: unknown[] = [await app.log.endOffsets(t.inbound), await app.log.endOffsets(t.sessionEvents)];
  for (const name of (await app.store.listCollections()).sort()) {
    parts.push(name, await app.store.collection(name).find({}, { sort: { _id: 1 } }));
  }
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

async function send(r: HostileRequest): Promise<{ status: number; body: string }> {
  try {
    const payload = r.body ? Buffer.from(r.body.buffer, r.body.byteOffset, r.body.byteLength) : undefined;
    const res = await app.inject({ method: r.method, url: r.path, headers: r.headers, payload });
    return { status: res.statusCode, body: res.body };
  } catch (err) {
    return { status: 0, body: String(err) };
  }
}

describe('hostile input', () => {
  it('the generator covers every write route and every admin route the service registers', async () => {
    const catalogue = (await app.call<{ routes: Record<string, string> }>('GET', '/api')).body;
    const writes = Object.keys(catalogue.routes).filter((r) => !r.startsWith('GET ') && !r.startsWith('HEAD '));
    expect(writes.sort()).toEqual(Object.keys(WRITE_ROUTE_TEMPLATES).sort());
    const adminReads = Object.keys(catalogue.routes).filter((r) => r.startsWith('GET /api/admin'));
    expect(adminReads.sort()).toEqual([...ADMIN_READ_ROUTES].sort());
  });

  it(`${COUNT} generated hostile requests: only 4xx, no crash, heap flat, nothing stored`, async () => {
    const requests = hostileRequests(COUNT, {
      adminToken: ADMIN_TOKEN, connectorToken: CONNECTOR_TOKEN, webhookSecret: SECRET, bodyLimitBytes: BODY_LIMIT,
      webhookBody: sample('messages_received.json') as never,
    });
    const before = await footprint();
    const unexpected: { kind: string; path: string; status: number; body: string }[] = [];
    const byStatus = new Map<number, number>();
    const heap: number[] = [];
    let next = 0;
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (next < requests.length) {
        const i = next++;
        const r = requests[i] as HostileRequest;
        const res = await send(r);
        byStatus.set(res.status, (byStatus.get(res.status) ?? 0) + 1);
        const shaped = res.body.includes('"code"') && res.body.includes('"message"');
        // The classes with one right answer get that answer, whatever else is wrong with them.
        const wrongClass = (r.kind === 'content-encoding' && res.status !== 415)
          || (/^(webhook:)?duplicate-key$/.test(r.kind) && !(res.status === 400 && res.body.includes('is given more than once')))
          || (/^webhook:(date|amount)$/.test(r.kind) && !(res.status === 400 && /payload\.(createdAt|price): must be/.test(res.body)));
        if (res.status < 400 || res.status >= 500 || !shaped || wrongClass) unexpected.push({ kind: r.kind, path: r.path, status: res.status, body: res.body.slice(0, 200) });
        if (i % 2000 === 0 || i === COUNT - 1) heap.push(heapAfterGc());
      }
    }));
    if (unexpected.length > 0) console.error(unexpected.slice(0, 20));
    expect(unexpected).toEqual([]);
    // Every family of refusal showed up, not just one that short-circuits the rest (each at
    // least 50 times: how many of each depends on how many routes the generator spreads over).
    for (const status of [400, 401, 404, 413, 415]) expect(byStatus.get(status) ?? 0, `answers with ${status}`).toBeGreaterThan(50);
    // Heap (after a full GC) from request 2,000 to the last: within a few MiB (no retained bodies).
    const [early = 0, late = 0] = [heap[1], heap[heap.length - 1]];
    expect(late - early).toBeLessThan(16 * 1024 * 1024);
    expect(await footprint()).toBe(before);
    expect((await app.call('GET', '/api/health')).status).toBe(200);
  }, 300_000);
});
