// An admin retries a set-aside record (POST /api/admin/set-aside/:id/retry): its original is read
// from the log and appended again as new work. While the cause is still there, the copy is set
// aside again under its own position, naming the one it retried; once the cause is gone (the app
// started again without the failpoint), the copy is processed exactly once: the message is in
// the read models once, the totals count it once, figures verify, and a redelivery of the whole
// log changes nothing. On the way, /metrics counts the decisions and the records kept, and the
// pipeline alert opens while any is kept and resolves when none is. Real log and store on both
// deployments; the throw is the test-only failpoint CONVOPS_FAILPOINT_THROW_ON_TEXT.
import { afterAll, describe, expect, it } from 'vitest';
import { createLog } from '../../src/adapters/index.js';
import type { RunningApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { messageWebhook } from '../../src/demo/platform-bodies.js';
import { H, inboundRecord } from '../../src/domain/inbound-record.js';
import { inputHeaders } from '../../src/domain/normalise.js';
import { routeWebhookBytes } from '../../src/domain/webhook-route.js';
import { SET_ASIDE_ALERT_ID } from '../../src/pipeline/set-aside-alert.js';
import { RETRY_OF_HEADER, SET_ASIDE_COLLECTION, type SetAsideDoc } from '../../src/pipeline/set-aside.js';
import { ReadModelSet } from '../../src/read-models/read-model-set.js';
import { createLogger } from '../../src/support/logger.js';
import { topology } from '../../src/topology.js';
import { DEPLOYMENTS, deploymentEnv, removeDataDirs, startWithEnv } from '../support/deployments.js';
import { parsePrometheus, total } from '../support/prometheus.js';
import { eventually } from '../support/wait.js';

const MARKER = 'zz-retry-failpoint-zz';
const TOKEN = 'set-aside-retry-admin-token-0123456789';
const ACCOUNT = 'acct_000000000000000000000000005e7a52';
const FAN = '8890001';
const KEY = `${ACCOUNT}:${FAN}`;
const T0 = Date.parse('2026-06-10T10:00:00Z');
const auth = { authorization: `Bearer ${TOKEN}` };

afterAll(() => { delete process.env.CONVOPS_FAILPOINT_THROW_ON_TEXT; });

function message(id: number, atMs: number, text: string) {
  const body = Buffer.from(messageWebhook({ accountId: ACCOUNT, fanId: FAN, messageId: String(id), createdAt: new Date(atMs).toISOString(), text, direction: 'received' }));
  // As the webhook route writes it: with the input the door normalised it to.
  const routed = routeWebhookBytes(body, `evt_retry_${id}`, atMs);
  if (!routed.ok) throw new Error(`the door refuses the test message: ${routed.field} ${routed.reason}`);
  const { input, ...meta } = routed.route;
  return inboundRecord({ source: 'webhook', ...meta }, body, inputHeaders(input, body.length));
}

async function call(app: RunningApp, method: 'GET' | 'POST' | 'DELETE', url: string, headers: Record<string, string> = auth) {
  const res = await app.server?.inject({ method, url, headers });
  if (!res) throw new Error('no API in this app');
  return { status: res.statusCode, body: res.headers['content-type']?.toString().includes('json') ? res.json() as Record<string, unknown> : res.body };
}

async function metrics(app: RunningApp) {
  const res = await call(app, 'GET', '/metrics');
  expect(res.status).toBe(200);
  const samples = parsePrometheus(String(res.body));
  return {
    decided: (stage: string) => total(samples, 'convops_set_aside_total', { stage }),
    stored: (stage: string) => total(samples, 'convops_set_aside_stored', { stage }),
  };
}

async function setAsideAlert(app: RunningApp) {
  const res = await call(app, 'GET', '/api/alerts?status=all&limit=500');
  expect(res.status).toBe(200);
  return (res.body as { items: Record<string, unknown>[] }).items.find((a) => a.id === SET_ASIDE_ALERT_ID);
}

async function messageIds(app: RunningApp): Promise<string[]> {
  const rm = await new ReadModelSet(app.store).active();
  return (await rm.messages.find({ chatKey: KEY }, { sort: { sentAt: 1 } })).map((m) => String(m.messageId));
}

async function accountMessages(app: RunningApp): Promise<number> {
  const rm = await new ReadModelSet(app.store).active();
  return (await rm.account_stats.find({ accountId: ACCOUNT })).reduce((n, d) => n + d.messages, 0);
}

describe.each(DEPLOYMENTS)('retrying a set-aside record, on %s', (kind) => {
  const running: RunningApp[] = [];
  afterAll(async () => {
    for (const a of running.splice(0)) await a.stop();
    removeDataDirs();
  });

  it('is set aside again while its cause remains, then processed exactly once when it is gone; metrics and the alert follow', async () => {
    // Read by src/app.ts when the app starts: on for the first start, off after the "fix".
    process.env.CONVOPS_FAILPOINT_THROW_ON_TEXT = MARKER;
    const env = await deploymentEnv(kind, { ADMIN_TOKEN: TOKEN, ROLES: 'api,processor,projector' });
    const config = loadConfig(env);
    const topo = topology(config.topicPrefix);
    const start = async () => {
      const app = await startWithEnv(env);
      running.push(app);
      return app;
    };
    const stop = async (app: RunningApp) => {
      running.splice(running.indexOf(app), 1);
      await app.stop();
    };
    const docs = (app: RunningApp) => app.store.collection<SetAsideDoc>(SET_ASIDE_COLLECTION);

    let app = await start();
    const appended = await app.log.append(topo.inbound, [message(1, T0, 'hello'), message(2, T0 + 1_000, `this one ${MARKER} throws`), message(3, T0 + 2_000, 'still here')]);
    const bad = appended[1];
    if (!bad) throw new Error('nothing appended');
    const firstId = `${topo.inbound}:${bad.partition}:${bad.offset}`;
    await eventually(async () => ((await messageIds(app)).length === 2 ? true : undefined), 30_000, 'the good records in the read models');
    expect(await messageIds(app)).toEqual(['1', '3']);
    expect(await docs(app).findOne({ _id: firstId })).toMatchObject({ stage: 'step', chatKey: KEY });

    // Counted once, kept once, and the alert is open where operators see alerts.
    // Both follow the processor's round write, a moment after the read models show its events.
    let m = await eventually(async () => { const now = await metrics(app); return now.decided('step') === 1 ? now : undefined; }, 10_000, 'the decision counted');
    expect([m.decided('step'), m.stored('step'), m.decided('normalise'), m.stored('fold')]).toEqual([1, 1, 0, 0]);
    expect(await eventually(() => setAsideAlert(app), 10_000, 'the set-aside alert')).toMatchObject({
      status: 'open', severity: 'warning', ruleId: SET_ASIDE_ALERT_ID, accountId: null, sessionId: null, reason: expect.stringContaining('1 record is set aside'),
    });
    // The alert gauge is read on a scrape that /metrics keeps for a second: it follows within a few.
    await eventually(async () => (total(parsePrometheus(String((await call(app, 'GET', '/metrics')).body)), 'convops_alerts_open', { severity: 'warning' }) >= 1 ? true : undefined), 10_000, 'the open alert in /metrics');

    // What a retry refuses: no credential, an unknown id, a clock tick, a session event, a record the log no longer holds.
    expect((await call(app, 'POST', `/api/admin/set-aside/${encodeURIComponent(firstId)}/retry`, {})).status).toBe(401);
    const unknown = await call(app, 'POST', '/api/admin/set-aside/nope%3A0%3A0/retry');
    expect(unknown).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    const template = await docs(app).findOne({ _id: firstId });
    if (!template) throw new Error('the set-aside record went missing');
    const { _id: _unused, ...rest } = template;
    const fakes = {
      tick: { ...rest, _id: `${topo.inbound}:${bad.partition}:0|${KEY}` },
      event: { ...rest, _id: `${topo.sessionEvents}:0:0`, topic: topo.sessionEvents, stage: 'fold' as const },
      gone: { ...rest, _id: `${topo.inbound}:${bad.partition}:999999`, offset: 999_999 },
    };
    for (const f of Object.values(fakes)) await docs(app).insertOne(f);
    const refused = async (id: string) => call(app, 'POST', `/api/admin/set-aside/${encodeURIComponent(id)}/retry`);
    expect(await refused(fakes.tick._id)).toMatchObject({ status: 409, body: { code: 'CONFLICT', message: expect.stringContaining('a tick is not retried') } });
    expect(await refused(fakes.event._id)).toMatchObject({ status: 409, body: { code: 'CONFLICT', message: expect.stringContaining('POST /api/admin/replay') } });
    expect(await refused(fakes.gone._id)).toMatchObject({ status: 409, body: { code: 'CONFLICT', message: expect.stringContaining('the log no longer holds') } });
    expect(await setAsideAlert(app)).toMatchObject({ status: 'open' });
    for (const f of Object.values(fakes)) expect((await call(app, 'DELETE', `/api/admin/set-aside/${encodeURIComponent(f._id)}`)).status).toBe(200);
    expect(await docs(app).countDocuments()).toBe(1);

    // A retry while the cause is still there: the copy is set aside again under its own position, naming the first.
    const again = await call(app, 'POST', `/api/admin/set-aside/${encodeURIComponent(firstId)}/retry`);
    expect(again.status).toBe(202);
    const copy = again.body as { retried: string; topic: string; partition: number; offset: number; id: string };
    expect(copy).toMatchObject({ retried: firstId, topic: topo.inbound, partition: bad.partition });
    expect(copy.offset).toBeGreaterThan(bad.offset);
    expect(copy.id).toBe(`${topo.inbound}:${copy.partition}:${copy.offset}`);
    const secondId = copy.id;
    const second = await eventually(() => docs(app).findOne({ _id: secondId }).then((d) => d ?? undefined), 30_000, 'the copy to be set aside again');
    expect(second).toMatchObject({ stage: 'step', retryOf: firstId, chatKey: KEY, receivedAt: T0 + 1_000 });
    expect(await docs(app).findOne({ _id: firstId })).toBeNull();
    expect((await call(app, 'GET', `/api/admin/set-aside/${encodeURIComponent(secondId)}`)).body).toMatchObject({ id: secondId, retryOf: firstId });
    // Counted once the round's write is done, a moment after the document shows.
    m = await eventually(async () => { const now = await metrics(app); return now.decided('step') === 2 ? now : undefined; }, 10_000, 'the second decision counted');
    expect([m.decided('step'), m.stored('step')]).toEqual([2, 1]);
    // The retry took the only record: the alert may have resolved for that moment; the copy set aside opens it again.
    await eventually(async () => ((await setAsideAlert(app))?.status === 'open' ? true : undefined), 10_000, 'the alert open again');
    expect(await messageIds(app)).toEqual(['1', '3']);

    // The cause is dealt with (the app runs again without the failpoint): the retry is processed, once.
    await stop(app);
    delete process.env.CONVOPS_FAILPOINT_THROW_ON_TEXT;
    app = await start();
    const retried = await call(app, 'POST', `/api/admin/set-aside/${encodeURIComponent(secondId)}/retry`);
    expect(retried).toMatchObject({ status: 202, body: { retried: secondId, partition: bad.partition } });
    // The copy is normalised from its bytes by the code that runs now, not stepped as the door read it then.
    expect((await app.log.readRecord(topo.inbound, bad.partition, bad.offset))?.headers[H.input]).toBeDefined();
    const copied = await app.log.readRecord(topo.inbound, bad.partition, (retried.body as { offset: number }).offset);
    expect(copied?.headers).toMatchObject({ [H.dedupe]: 'evt_retry_2', [RETRY_OF_HEADER]: secondId });
    expect(copied?.headers[H.input]).toBeUndefined();
    await eventually(async () => ((await messageIds(app)).length === 3 ? true : undefined), 30_000, 'the retried message in the read models');
    expect(await messageIds(app)).toEqual(['1', '2', '3']);
    expect(await accountMessages(app)).toBe(3);
    expect(await docs(app).countDocuments()).toBe(0);
    const verified = await call(app, 'GET', `/api/admin/verify?accountId=${ACCOUNT}`);
    expect(verified).toMatchObject({ status: 200, body: { ok: true, differences: [] } });
    m = await metrics(app);
    expect([m.decided('step'), m.stored('step')]).toEqual([0, 0]);
    expect(await setAsideAlert(app)).toMatchObject({ status: 'resolved', resolvedAt: expect.any(String) });
    expect((await call(app, 'GET', '/api/health')).body).toMatchObject({ status: 'ok', problems: [] });
    expect((await call(app, 'POST', `/api/admin/set-aside/${encodeURIComponent(secondId)}/retry`)).status).toBe(404);

    // Every record delivered again (the two originals' neighbours, the record, both copies): nothing changes.
    await stop(app);
    const log = createLog(config, createLogger('silent'));
    try {
      await log.setGroupPosition(topo.processorGroup, topo.inbound, { kind: 'earliest' });
    } finally {
      await log.close();
    }
    app = await start();
    await eventually(async () => {
      const h = (await call(app, 'GET', '/api/health')).body as { counters: { processor: { recordsSkippedAsApplied: number } } };
      return h.counters.processor.recordsSkippedAsApplied >= 5 ? true : undefined;
    }, 30_000, 'the redelivered records');
    expect(((await call(app, 'GET', '/api/health')).body as { counters: { processor: Record<string, number> } }).counters.processor).toMatchObject({ recordsApplied: 0, recordsSetAside: 0, recordsDuplicate: 0 });
    expect(await messageIds(app)).toEqual(['1', '2', '3']);
    expect(await accountMessages(app)).toBe(3);
    expect(await docs(app).countDocuments()).toBe(0);
  });
});
