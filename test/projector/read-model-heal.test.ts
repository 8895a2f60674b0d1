// Issue 53, "Read models that heal". The store loses the projector's last rounds while the log
// and the consumer group's committed offsets keep them (MongoDB after a failover with a weak
// write concern, mongo-java-server's file mode after kill -9): simulated by putting every
// read-model collection and the projector's applied marks back as they were three records ago,
// with the service stopped. After a restart the partition's first round finds its mark behind
// where the consumer resumed and folds the events in between again from `session-events`: the
// read models equal what was sent, with nothing done by hand, and GET /api/admin/verify reports
// the heal, recovered, with `ok: true`.
import { afterAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../src/app.js';
import { createStore } from '../../src/adapters/index.js';
import type { Doc } from '../../src/adapters/store/store.js';
import { loadConfig } from '../../src/config.js';
import { messageWebhook } from '../../src/demo/platform-bodies.js';
import { inboundRecord } from '../../src/domain/inbound-record.js';
import { PROJECTOR_MARKS_COLLECTION } from '../../src/projector/applied-marks.js';
import { ReadModelSet } from '../../src/read-models/read-model-set.js';
import { topology } from '../../src/topology.js';
import { DEPLOYMENTS, deploymentEnv, removeDataDirs, startWithEnv } from '../support/deployments.js';
import { eventually } from '../support/wait.js';

const TOKEN = 'read-model-heal-admin-token-0123456789';
const ACCOUNT = 'acct_000000000000000000000000000b0153';
const FAN = '5530001';
const KEY = `${ACCOUNT}:${FAN}`;
const T0 = Date.parse('2026-06-11T10:00:00Z');

function message(id: number) {
  const atMs = T0 + id * 1_000;
  const direction = id % 3 === 0 ? 'sent' : 'received';
  const body = Buffer.from(messageWebhook({ accountId: ACCOUNT, fanId: FAN, messageId: String(id), createdAt: new Date(atMs).toISOString(), text: `m${id}`, direction }));
  return inboundRecord({ source: 'webhook', event: `messages.${direction}`, accountId: ACCOUNT, chatId: FAN, dedupeKey: `evt_heal_${id}`, receivedAt: atMs }, body);
}
const messages = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => message(from + i));

async function messageIds(app: RunningApp): Promise<string[]> {
  const rm = await new ReadModelSet(app.store).active();
  return (await rm.messages.find({ chatKey: KEY }, { sort: { sentAt: 1 } })).map((m) => String(m.messageId));
}

async function verify(app: RunningApp) {
  const res = await app.server?.inject({ method: 'GET', url: '/api/admin/verify', headers: { authorization: `Bearer ${TOKEN}` } });
  return { status: res?.statusCode, body: res?.json() as Record<string, unknown> };
}

describe.each(DEPLOYMENTS)('read models that heal, on %s', (kind) => {
  const running: RunningApp[] = [];
  afterAll(async () => {
    for (const a of running.splice(0)) await a.stop();
    removeDataDirs();
  });

  it('a store that lost the projector\'s last rounds is folded again from the log up to where the consumer resumed', async () => {
    const env = await deploymentEnv(kind, { ADMIN_TOKEN: TOKEN, ROLES: 'api,processor,projector', EVENT_DIGESTS: 'on' });
    const topo = topology(loadConfig(env).topicPrefix);
    let app = await startWithEnv(env);
    running.push(app);
    await app.log.append(topo.inbound, messages(1, 3));
    await eventually(async () => ((await messageIds(app)).length === 3 ? true : undefined), 30_000, 'messages 1-3');

    // What the store will fall back to: every read-model document and the projector's marks.
    const models = new ReadModelSet(app.store);
    const names = [...await models.allCollections(), PROJECTOR_MARKS_COLLECTION];
    const snapshot = new Map<string, Doc[]>();
    for (const name of names) snapshot.set(name, await app.store.collection(name).find({}));
    expect(snapshot.get(PROJECTOR_MARKS_COLLECTION)?.length).toBeGreaterThan(0);

    // The rounds the store will lose.
    for (const [from, to] of [[4, 6], [7, 9]] as const) {
      await app.log.append(topo.inbound, messages(from, to));
      await eventually(async () => ((await messageIds(app)).length === to ? true : undefined), 30_000, `messages ${from}-${to}`);
    }
    const whole = (await verify(app)).body;
    expect(whole).toMatchObject({ ok: true, readModelHeals: { count: 0 } });
    const rm = await models.active();
    const stats = async (r = rm) => (await r.account_stats.find({ accountId: ACCOUNT })).reduce((n, d) => ({ messages: n.messages + d.messages, fanMessages: n.fanMessages + d.fanMessages }), { messages: 0, fanMessages: 0 });
    expect(await stats()).toEqual({ messages: 9, fanMessages: 6 });

    // Stopped with every round committed; then the store loses every read-model write since the snapshot.
    await app.stop();
    running.splice(running.indexOf(app), 1);
    const lossy = await createStore(loadConfig(env));
    for (const [name, docs] of snapshot) {
      const c = lossy.collection(name);
      await c.deleteMany({});
      if (docs.length > 0) await c.bulkWrite(docs.map((document) => ({ insertOne: { document } })));
    }
    await lossy.close();
    app = await startWithEnv(env);
    running.push(app);
    expect(await messageIds(app)).toEqual(['1', '2', '3']);

    // The chat's next record: its partition's first round finds the mark behind and folds 4-9 again first.
    await app.log.append(topo.inbound, messages(10, 10));
    await eventually(async () => ((await messageIds(app)).length === 10 ? true : undefined), 60_000, 'messages 4-10 after the loss');
    expect(await messageIds(app)).toEqual(Array.from({ length: 10 }, (_, i) => String(i + 1)));
    expect(await stats(await new ReadModelSet(app.store).active())).toEqual({ messages: 10, fanMessages: 7 });
    const v = await verify(app);
    expect(v).toMatchObject({
      status: 200,
      body: { ok: true, differences: [], readModelHeals: { count: 1, unrecovered: 0, incomplete: 0, items: [{ eventsMissing: 0, recoveredAt: expect.any(String) }] } },
    });
    const heal = (v.body.readModelHeals as { items: { from: number; to: number }[] }).items[0];
    expect((heal?.to ?? 0) - (heal?.from ?? 0)).toBeGreaterThan(0);
  });
});
