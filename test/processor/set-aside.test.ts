// A record that makes a step throw is set aside (stored, counted, listed) and processing goes
// on: the rest of its batch, its own chat's later records and other chats. Real log and store
// on both deployments; the throw comes from the test-only failpoint
// CONVOPS_FAILPOINT_THROW_ON_TEXT (the real normaliser and machine do not throw on any input we
// know of). A session event the projector cannot fold is set aside the same way.
import Fastify, { type FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { afterAll, describe, expect, it } from 'vitest';
import { createLog, createStore } from '../../src/adapters/index.js';
import type { AppendResult } from '../../src/adapters/log/log.js';
import type { RunningApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { messageWebhook } from '../../src/demo/platform-bodies.js';
import { inboundRecord } from '../../src/domain/inbound-record.js';
import { ApiError, installErrorHandling } from '../../src/http/errors.js';
import { adminSetAsideRoutes } from '../../src/http/routes/admin-set-aside.js';
import { SetAsideRecords } from '../../src/pipeline/set-aside-records.js';
import { CHAT_STATE_COLLECTION } from '../../src/processor/session-processor.js';
import { bodyPrefix, errorMessage, SET_ASIDE_BODY_PREFIX_BYTES, SET_ASIDE_COLLECTION, type SetAsideDoc } from '../../src/pipeline/set-aside.js';
import { ReadModelSet } from '../../src/read-models/read-model-set.js';
import { createLogger } from '../../src/support/logger.js';
import { topology } from '../../src/topology.js';
import { DEPLOYMENTS, deploymentEnv, removeDataDirs, startWithEnv } from '../support/deployments.js';
import { eventually } from '../support/wait.js';

const MARKER = 'zz-failpoint-throw-zz';
const TOKEN = 'set-aside-test-admin-token-0123456789';
const ACCOUNT = 'acct_000000000000000000000000005e7a51';
const FAN_A = '8880001';
const FAN_B = '8880002';
const KEY_A = `${ACCOUNT}:${FAN_A}`;
const KEY_B = `${ACCOUNT}:${FAN_B}`;
const T0 = Date.parse('2026-06-10T10:00:00Z');

// Read when an app starts (src/composition.ts); files share a worker, so it is removed after this one.
process.env.CONVOPS_FAILPOINT_THROW_ON_TEXT = MARKER;
afterAll(() => { delete process.env.CONVOPS_FAILPOINT_THROW_ON_TEXT; });

function message(fan: string, id: number, atMs: number, text: string) {
  const body = Buffer.from(messageWebhook({ accountId: ACCOUNT, fanId: fan, messageId: String(id), createdAt: new Date(atMs).toISOString(), text, direction: 'received' }));
  return inboundRecord({ source: 'webhook', event: 'messages.received', accountId: ACCOUNT, chatId: fan, dedupeKey: `evt_sa_${id}`, receivedAt: atMs }, body);
}

async function health(app: RunningApp) {
  const res = await app.server?.inject({ method: 'GET', url: '/api/health', headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res?.statusCode).toBe(200);
  return res?.json() as { status: string; ready: boolean; problems: { component: string; reason: string }[]; counters: { processor: Record<string, number>; projector: Record<string, number>; setAside: { stored: number | null } } };
}

async function messageIds(app: RunningApp, chatKey: string): Promise<string[]> {
  const rm = await new ReadModelSet(app.store).active();
  return (await rm.messages.find({ chatKey }, { sort: { sentAt: 1 } })).map((m) => String(m.messageId));
}

describe.each(DEPLOYMENTS)('a record that makes a step throw, on %s', (kind) => {
  const running: RunningApp[] = [];
  afterAll(async () => {
    for (const a of running.splice(0)) await a.stop();
    removeDataDirs();
  });

  it('is set aside once (also when redelivered), counted in health, listed by the admin route, and everything else is processed', async () => {
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
    /** Moves the processor back to the start of inbound, so a restart redelivers every record. */
    const rewindProcessor = async () => {
      const log = createLog(config, createLogger('silent'));
      try {
        await log.setGroupPosition(topo.processorGroup, topo.inbound, { kind: 'earliest' });
      } finally {
        await log.close();
      }
    };

    let app = await start();
    // Chat A: a good message, the bad one, a good one after it, in one append (one partition,
    // consecutive offsets); chat B: a good one.
    const appended: AppendResult[] = await app.log.append(topo.inbound, [
      message(FAN_A, 1, T0, 'hello'),
      message(FAN_A, 2, T0 + 1_000, `this one ${MARKER} throws`),
      message(FAN_A, 3, T0 + 2_000, 'still here'),
      message(FAN_B, 4, T0 + 3_000, 'another chat'),
    ]);
    const bad = appended[1];
    if (!bad) throw new Error('nothing appended');
    const badId = `${topo.inbound}:${bad.partition}:${bad.offset}`;

    await eventually(async () => {
      const [a, b] = await Promise.all([messageIds(app, KEY_A), messageIds(app, KEY_B)]);
      return a.length === 2 && b.length === 1 ? true : undefined;
    }, 30_000, 'the good records in the read models');
    expect(await messageIds(app, KEY_A)).toEqual(['1', '3']);
    expect(await messageIds(app, KEY_B)).toEqual(['4']);

    const docs = await app.store.collection<SetAsideDoc>(SET_ASIDE_COLLECTION).find({});
    expect(docs).toHaveLength(1);
    const doc = docs[0] as SetAsideDoc;
    expect(doc).toMatchObject({
      _id: badId, stage: 'step', topic: topo.inbound, partition: bad.partition, offset: bad.offset, chatKey: KEY_A,
      event: 'messages.received', receivedAt: T0 + 1_000, body: { encoding: 'utf8', truncated: false },
    });
    expect(doc.error).toContain('failpoint');
    expect(doc.error).not.toContain('    at ');
    expect(doc.body.prefix).toContain(MARKER);
    // The chat's state moved past the record without taking it in.
    const stateA = await app.store.collection<{ _id: string; offset: number; state: { context: { seq: number } } }>(CHAT_STATE_COLLECTION).findOne({ _id: KEY_A });
    expect(stateA?.offset).toBe(appended[2]?.offset);

    const h1 = await health(app);
    expect(h1.counters.processor).toMatchObject({ recordsSetAside: 1, recordsApplied: 3, batchesFenced: 0 });
    expect(h1.counters.processor.slowSteps).toBeGreaterThanOrEqual(0);
    expect(h1.counters.setAside.stored).toBe(1);
    // Health says so: degraded, naming what and where to look, while it stays ready.
    expect(h1).toMatchObject({ status: 'degraded', ready: true, problems: [{ component: 'set-aside', reason: expect.stringContaining('1 record is set aside') }] });

    // The admin route lists it, newest first, behind the admin guard.
    const admin = Fastify().withTypeProvider<TypeBoxTypeProvider>();
    installErrorHandling(admin);
    const adminGuard = async (request: FastifyRequest): Promise<void> => {
      if (request.headers.authorization !== `Bearer ${TOKEN}`) throw new ApiError('UNAUTHORIZED', 'authorization: not the admin token');
    };
    await admin.register(adminSetAsideRoutes, { setAside: new SetAsideRecords(app.store), log: app.log, topology: topo, adminGuard });
    try {
      expect((await admin.inject({ method: 'GET', url: '/api/admin/set-aside' })).statusCode).toBe(401);
      expect((await admin.inject({ method: 'GET', url: '/api/admin/set-aside?limit=501', headers: { authorization: `Bearer ${TOKEN}` } })).statusCode).toBe(400);
      const listed = await admin.inject({ method: 'GET', url: '/api/admin/set-aside?limit=10', headers: { authorization: `Bearer ${TOKEN}` } });
      expect(listed.statusCode).toBe(200);
      const body = listed.json() as { items: Record<string, unknown>[]; count: number; total: number; limit: number };
      expect(body).toMatchObject({ count: 1, total: 1, limit: 10 });
      expect(body.items[0]).toMatchObject({ id: badId, stage: 'step', chatKey: KEY_A, offset: bad.offset, receivedAt: new Date(T0 + 1_000).toISOString() });
      expect(String((body.items[0]?.body as { prefix: string }).prefix)).toContain(MARKER);
    } finally {
      await admin.close();
    }

    // Redelivery after a restart: every record again. The states already include them.
    await stop(app);
    await rewindProcessor();
    app = await start();
    await eventually(async () => (((await health(app)).counters.processor.recordsSkippedAsApplied ?? 0) >= 4 ? true : undefined), 30_000, 'the redelivered records');
    expect((await health(app)).counters.processor).toMatchObject({ recordsSetAside: 0, recordsApplied: 0 });
    expect(await app.store.collection<SetAsideDoc>(SET_ASIDE_COLLECTION).find({})).toEqual([doc]);

    // A crash after the set-aside write and before chat A's state write (MongoDB runs them one
    // after the other): the record is decided again, the same way, into the same document.
    await stop(app);
    const store = await createStore(config);
    try {
      await store.collection(CHAT_STATE_COLLECTION).deleteMany({ _id: KEY_A });
    } finally {
      await store.close();
    }
    await rewindProcessor();
    app = await start();
    await eventually(async () => (((await health(app)).counters.processor.recordsSetAside ?? 0) >= 1 ? true : undefined), 30_000, 'the record to be decided again');
    const h3 = await health(app);
    expect(h3.counters.processor).toMatchObject({ recordsSetAside: 1, recordsApplied: 2, batchesFenced: 0 });
    expect(h3.counters.setAside.stored).toBe(1);
    expect(await app.store.collection<SetAsideDoc>(SET_ASIDE_COLLECTION).find({})).toEqual([doc]);
    expect(await messageIds(app, KEY_A)).toEqual(['1', '3']);

    // The projector: a session event no fold can take is set aside, and the events after it
    // in its partition are applied.
    const [poison] = await app.log.append(topo.sessionEvents, [{
      key: KEY_B,
      value: JSON.stringify({ type: 'MessageRecorded', id: `${KEY_B}:999`, accountId: ACCOUNT, chatId: FAN_B, chatKey: KEY_B, seq: 999, at: T0 }),
    }]);
    if (!poison) throw new Error('nothing appended');
    await app.log.append(topo.inbound, [message(FAN_B, 5, T0 + 4_000, 'after the poison')]);
    await eventually(async () => ((await messageIds(app, KEY_B)).length === 2 ? true : undefined), 30_000, 'the projector to go on');
    const h4 = await health(app);
    expect(h4.counters.projector).toMatchObject({ eventsSetAside: 1 });
    expect(h4.counters.setAside.stored).toBe(2);
    const folded = await app.store.collection<SetAsideDoc>(SET_ASIDE_COLLECTION).findOne({ _id: `${topo.sessionEvents}:${poison.partition}:${poison.offset}` });
    expect(folded).toMatchObject({ stage: 'fold', chatKey: KEY_B, event: 'MessageRecorded', receivedAt: null });
    expect(folded?.error).toContain('TypeError');

    // An operator inspects one and drops them; health is ok again once none is kept.
    const auth = { authorization: `Bearer ${TOKEN}` };
    const one = await app.server?.inject({ method: 'GET', url: `/api/admin/set-aside/${encodeURIComponent(folded?._id ?? '')}`, headers: auth });
    expect(one?.json()).toMatchObject({ id: folded?._id, stage: 'fold' });
    expect((await app.server?.inject({ method: 'GET', url: '/api/admin/set-aside/nope:0:0', headers: auth }))?.statusCode).toBe(404);
    expect((await app.server?.inject({ method: 'DELETE', url: `/api/admin/set-aside/${encodeURIComponent(folded?._id ?? '')}` }))?.statusCode).toBe(401);
    for (const d of await app.store.collection<SetAsideDoc>(SET_ASIDE_COLLECTION).find({})) {
      expect((await app.server?.inject({ method: 'DELETE', url: `/api/admin/set-aside/${encodeURIComponent(d._id)}`, headers: auth }))?.json()).toEqual({ dropped: d._id });
    }
    expect(await health(app)).toMatchObject({ status: 'ok', problems: [] });
  });
});

describe('what a set-aside document keeps', () => {
  it('a bounded body prefix: text cut on a whole character, binary as base64', () => {
    const text = bodyPrefix(Buffer.from(`${'a'.repeat(SET_ASIDE_BODY_PREFIX_BYTES - 1)}€ and more`));
    expect(text).toMatchObject({ encoding: 'utf8', truncated: true, bytes: SET_ASIDE_BODY_PREFIX_BYTES + 11 });
    expect(text.prefix).toBe('a'.repeat(SET_ASIDE_BODY_PREFIX_BYTES - 1));
    const binary = bodyPrefix(Buffer.from([0xff, 0xfe, 0x00, 0x01]));
    expect(binary).toEqual({ encoding: 'base64', prefix: Buffer.from([0xff, 0xfe, 0x00, 0x01]).toString('base64'), bytes: 4, truncated: false });
    expect(bodyPrefix('{"a":1}')).toEqual({ encoding: 'utf8', prefix: '{"a":1}', bytes: 7, truncated: false });
  });

  it('the error message, bounded, without its stack', () => {
    const err = new TypeError('boom');
    expect(errorMessage(err)).toBe('TypeError: boom');
    expect(errorMessage(new Error('x'.repeat(5000))).length).toBeLessThanOrEqual(1001);
    expect(errorMessage(42)).toBe('a non-error value was thrown');
  });
});
