// Issue 28, "A chat state that knows where it stands" and "One id, one content". Real log and
// store on both deployments, the whole service in-process (api, processor, projector).
// 1. The store loses acknowledged writes (mongo-java-server's file mode on kill -9): simulated by
//    writing back, directly in the store, a chat state older than the one the processor stored
//    and holds in its cache. More records for that chat follow. The processor must recognise the
//    rollback, re-derive the chat from `inbound` instead of numbering its events again: no event
//    id in `session-events` with two contents, figures equal to what was sent, the rollback
//    logged, counted in /metrics and reported by GET /api/admin/verify.
// 2. An event whose id repeats an earlier one with other content, appended directly to
//    `session-events`: the projector sets it aside (stage 'conflict') with both digests, raises
//    the pipeline alert, folds nothing of it; an identical copy (a redelivery) is not a fault.
import { afterAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../src/app.js';
import { createStore } from '../../src/adapters/index.js';
import { loadConfig } from '../../src/config.js';
import { messageWebhook } from '../../src/demo/platform-bodies.js';
import { inboundRecord } from '../../src/domain/inbound-record.js';
import { APPLIED_MARKS_COLLECTION, type AppliedMarkDoc } from '../../src/processor/rollback.js';
import { tickRecords } from '../../src/processor/ticker.js';
import { SET_ASIDE_ALERT_ID } from '../../src/pipeline/set-aside-alert.js';
import { CHAT_STATE_COLLECTION, type ChatStateDoc } from '../../src/processor/session-processor.js';
import { SET_ASIDE_COLLECTION, type SetAsideDoc } from '../../src/pipeline/set-aside.js';
import { ReadModelSet } from '../../src/read-models/read-model-set.js';
import { topology, type Topology } from '../../src/topology.js';
import { DEPLOYMENTS, deploymentEnv, removeDataDirs, startWithEnv } from '../support/deployments.js';
import { parsePrometheus, total } from '../support/prometheus.js';
import { allRecords, contentsById } from '../support/event-log.js';
import { eventually } from '../support/wait.js';

const TOKEN = 'state-rollback-admin-token-0123456789';
const ACCOUNT = 'acct_000000000000000000000000000b0118';
const FAN = '6660001';
const KEY = `${ACCOUNT}:${FAN}`;
const T0 = Date.parse('2026-06-11T10:00:00Z');
const auth = { authorization: `Bearer ${TOKEN}` };

function message(id: number, fan = FAN, atMs = T0 + id * 1_000) {
  const body = Buffer.from(messageWebhook({ accountId: ACCOUNT, fanId: fan, messageId: String(id), createdAt: new Date(atMs).toISOString(), text: `m${id}`, direction: id % 3 === 0 ? 'sent' : 'received' }));
  return inboundRecord({ source: 'webhook', event: id % 3 === 0 ? 'messages.sent' : 'messages.received', accountId: ACCOUNT, chatId: fan, dedupeKey: `evt_rollback_${fan}_${id}`, receivedAt: atMs }, body);
}
const messages = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => message(from + i));

async function call(app: RunningApp, method: 'GET' | 'POST', url: string) {
  const res = await app.server?.inject({ method, url, headers: auth });
  if (!res) throw new Error('no API in this app');
  return { status: res.statusCode, body: res.headers['content-type']?.toString().includes('json') ? res.json() as Record<string, unknown> : res.body };
}

async function messageIds(app: RunningApp, key = KEY): Promise<string[]> {
  const rm = await new ReadModelSet(app.store).active();
  return (await rm.messages.find({ chatKey: key }, { sort: { sentAt: 1 } })).map((m) => String(m.messageId));
}

async function figures(app: RunningApp) {
  const rm = await new ReadModelSet(app.store).active();
  const stats = await rm.account_stats.find({ accountId: ACCOUNT });
  const chat = await rm.chats.findOne({ _id: KEY });
  return {
    messages: stats.reduce((n, d) => n + d.messages, 0),
    fanMessages: stats.reduce((n, d) => n + d.fanMessages, 0),
    chatMessages: chat?.messageCount ?? null,
  };
}

describe.each(DEPLOYMENTS)('lost writes, on %s', (kind) => {
  const running: RunningApp[] = [];
  afterAll(async () => {
    for (const a of running.splice(0)) await a.stop();
    removeDataDirs();
  });
  let app: RunningApp;
  let topo: Topology;
  let lastEnv: Record<string, string>;

  it('a chat state rolled back behind the processor is re-derived from inbound: no event id reused, figures exact, the rollback logged, counted and verified', async () => {
    // A short unanswered limit: the tick two hours on below closes a waiting fan's session too.
    const env = await deploymentEnv(kind, { ADMIN_TOKEN: TOKEN, ROLES: 'api,processor,projector', EVENT_DIGESTS: 'on', UNANSWERED_CLOSE_SEC: '60' });
    topo = topology(loadConfig(env).topicPrefix);
    lastEnv = env;
    app = await startWithEnv(env);
    running.push(app);
    const states = app.store.collection<ChatStateDoc>(CHAT_STATE_COLLECTION);

    await app.log.append(topo.inbound, messages(1, 3));
    await eventually(async () => ((await messageIds(app)).length === 3 ? true : undefined), 30_000, 'messages 1-3');
    const older = await states.findOne({ _id: KEY });
    if (!older) throw new Error('no chat state stored');
    for (const [from, to] of [[4, 6], [7, 9]] as const) {
      await app.log.append(topo.inbound, messages(from, to));
      await eventually(async () => ((await messageIds(app)).length === to ? true : undefined), 30_000, `messages ${from}-${to}`);
    }
    const newer = await states.findOne({ _id: KEY });
    expect(newer?.offset).toBeGreaterThan(older.offset);
    expect(newer?.state.context.seq).toBeGreaterThan(older.state.context.seq);

    // The lost write: the store hands back the state of three records ago, which the processor's cache is past.
    await states.replaceOne({ _id: KEY }, older);
    await app.log.append(topo.inbound, messages(10, 12));
    await eventually(async () => ((await messageIds(app)).length === 12 ? true : undefined), 60_000, 'messages 10-12 after the rollback');

    // One id, one content, in the whole log.
    const events = await allRecords(app.log, topo.sessionEvents);
    const reused = [...contentsById(events)].filter(([, c]) => c.size > 1).map(([id]) => id);
    expect(reused, 'event ids appended with two contents').toEqual([]);
    // Figures equal what was sent: 12 messages, 8 of them the fan's (ids not divisible by 3).
    expect(await messageIds(app)).toEqual(Array.from({ length: 12 }, (_, i) => String(i + 1)));
    expect(await figures(app)).toEqual({ messages: 12, fanMessages: 8, chatMessages: 12 });
    // The state stands where the records put it: past the last one, numbering on from the lost state's sequence.
    const after = await states.findOne({ _id: KEY });
    expect(after?.state.context.seq).toBeGreaterThan(newer?.state.context.seq ?? Infinity);

    const health = (await call(app, 'GET', '/api/health')).body as { counters: { processor: Record<string, number> } };
    expect(health.counters.processor).toMatchObject({ stateRollbacks: 1, recordsRederived: 6 });
    const samples = parsePrometheus(String((await call(app, 'GET', '/metrics')).body));
    expect(total(samples, 'convops_chat_state_rollbacks_total')).toBe(1);
    expect(total(samples, 'convops_records_rederived_total')).toBe(6);

    const verified = await eventually(async () => {
      const v = await call(app, 'GET', '/api/admin/verify');
      return (v.body as { stateRollbacks?: { items: { recoveredAt: string | null }[] } }).stateRollbacks?.items[0]?.recoveredAt ? v : undefined;
    }, 10_000, 'the rollback marked recovered');
    expect(verified).toMatchObject({
      status: 200,
      body: {
        ok: true, differences: [], eventConflicts: { count: 0, items: [] },
        stateRollbacks: {
          count: 1, unrecovered: 0,
          items: [{ chatKey: KEY, storedOffset: older.offset, storedSeq: older.state.context.seq, cachedOffset: newer?.offset, cachedSeq: newer?.state.context.seq, recordsRederived: 6, recoveredAt: expect.any(String) }],
        },
      },
    });
  });

  it('an event id that comes back with other content is set aside with both digests, raises the alert, and is never folded', async () => {
    const events = await allRecords(app.log, topo.sessionEvents);
    const original = events.find((r) => (JSON.parse(r.value.toString('utf8')) as { type: string; data: { messageId?: string } }).data.messageId === '2');
    if (!original) throw new Error('no event for message 2');
    const parsed = JSON.parse(original.value.toString('utf8')) as { id: string; data: Record<string, unknown> };
    const before = await figures(app);
    const setAsideBefore = await app.store.collection(SET_ASIDE_COLLECTION).countDocuments();

    // A redelivery (identical content) is no fault; the same id with another message is.
    const forged = { ...parsed, data: { ...parsed.data, messageId: '99', text: 'forged', sender: 'fan' } };
    const [, at] = await app.log.append(topo.sessionEvents, [
      { key: original.key, value: original.value, headers: original.headers },
      { key: original.key, value: JSON.stringify(forged), headers: original.headers },
    ]);
    if (!at) throw new Error('nothing appended');
    const id = `${topo.sessionEvents}:${at.partition}:${at.offset}`;
    const doc = await eventually(() => app.store.collection<SetAsideDoc>(SET_ASIDE_COLLECTION).findOne({ _id: id }).then((d) => d ?? undefined), 30_000, 'the conflicting event set aside');
    expect(doc).toMatchObject({
      stage: 'conflict', chatKey: KEY, event: 'MessageRecorded',
      conflict: { eventId: parsed.id, firstPartition: original.partition, firstOffset: original.offset, digest: expect.any(String), firstDigest: expect.any(String) },
      body: { prefix: expect.stringContaining('forged') },
    });
    expect(doc.conflict?.digest).not.toBe(doc.conflict?.firstDigest);
    expect(doc.error).toContain(`first at ${topo.sessionEvents}:${original.partition}:${original.offset}`);
    // Only the forged one.
    expect(await app.store.collection(SET_ASIDE_COLLECTION).countDocuments()).toBe(setAsideBefore + 1);

    const alert = await eventually(async () => {
      const res = await call(app, 'GET', '/api/alerts?status=all&limit=500');
      return (res.body as { items: Record<string, unknown>[] }).items.find((a) => a.id === SET_ASIDE_ALERT_ID && a.status === 'open');
    }, 10_000, 'the set-aside alert');
    expect(alert).toMatchObject({ severity: 'warning', status: 'open' });
    const samples = await eventually(async () => {
      const s = parsePrometheus(String((await call(app, 'GET', '/metrics')).body));
      return total(s, 'convops_set_aside_total', { stage: 'conflict' }) === 1 ? s : undefined;
    }, 10_000, 'the conflict counted');
    expect(total(samples, 'convops_set_aside_total', { stage: 'conflict' })).toBe(1);

    // Nothing folded: no message 99, nothing counted twice.
    expect(await messageIds(app)).not.toContain('99');
    expect(await figures(app)).toEqual(before);
    const verified = await call(app, 'GET', '/api/admin/verify');
    expect(verified).toMatchObject({ status: 200, body: { ok: false, differences: [], eventConflicts: { count: 1, items: [{ id, eventId: parsed.id, chatKey: KEY }] } } });
  });

  it('writes lost while no processor ran are found after a restart, behind the applied mark: only chats the lost rounds changed are re-derived, no event id reused', async () => {
    const FAN2 = '6660002';
    const FAN3 = '6660003';
    const key2 = `${ACCOUNT}:${FAN2}`;
    const key3 = `${ACCOUNT}:${FAN3}`;
    const states = app.store.collection<ChatStateDoc>(CHAT_STATE_COLLECTION);
    const marks = app.store.collection<AppliedMarkDoc>(APPLIED_MARKS_COLLECTION);
    // The previous test forged one.
    const reusedBefore = [...contentsById(await allRecords(app.log, topo.sessionEvents))].filter(([, c]) => c.size > 1).map(([id]) => id);
    await app.log.append(topo.inbound, [...[101, 102, 103].map((i) => message(i, FAN2)), message(201, FAN3)]);
    await eventually(async () => ((await messageIds(app, key2)).length === 3 && (await messageIds(app, key3)).length === 1 ? true : undefined), 30_000, 'the first records of both chats').catch(async (e: unknown) => {
      console.log('DEBUG', await messageIds(app, key2), await messageIds(app, key3), JSON.stringify(await app.store.collection(CHAT_STATE_COLLECTION).find({})).slice(0, 3000));
      throw e;
    });

    // What the store will fall back to: every chat state and applied mark as they are now.
    const snapshot = { states: await states.find({}), marks: await marks.find({}) };
    const partitionOf = (key: string): number => {
      const d = snapshot.states.find((x) => x._id === key);
      if (!d) throw new Error(`no state for ${key}`);
      return d.partition;
    };
    expect(snapshot.marks.length).toBeGreaterThan(0);

    // The rounds the store will lose: three new records of one chat, a redelivery that changes
    // nothing (a duplicate of the other chat's message), and a clock tick two hours on that
    // closes every session of the first chat's partition.
    await app.log.append(topo.inbound, [...[104, 105, 106].map((i) => message(i, FAN2)), message(201, FAN3)]);
    const count = await app.log.partitionCount(topo.inbound);
    const tick = tickRecords(count, T0 + 2 * 3_600_000)[partitionOf(key2)];
    if (!tick) throw new Error('no tick record');
    await app.log.append(topo.inbound, [tick]);
    await eventually(async () => ((await messageIds(app, key2)).length === 6 ? true : undefined), 30_000, 'messages 4-6');
    const tickOffset = await eventually(async () => {
      const d = await states.findOne({ _id: key2 });
      return d && d.state.context.session === null ? d.offset : undefined;
    }, 30_000, 'the tick closing the session');
    const beforeLoss = new Map((await states.find({})).map((d) => [d._id, d]));
    const changed = [...beforeLoss.values()].filter((d) => JSON.stringify(d) !== JSON.stringify(snapshot.states.find((x) => x._id === d._id))).map((d) => d._id).sort();
    expect(changed).toContain(key2);
    expect(changed).not.toContain(key3);
    const eventsBefore = (await allRecords(app.log, topo.sessionEvents)).length;

    type VerifyRollbacks = { stateRollbacks: { items: { chatKey: string; recoveredAt: string | null; storedOffset: number; cachedOffset: number }[] } };
    const itemId = (i: VerifyRollbacks['stateRollbacks']['items'][number]): string => `${i.chatKey}@${i.storedOffset}<${i.cachedOffset}`;
    const earlier = new Set(((await call(app, 'GET', '/api/admin/verify')).body as VerifyRollbacks).stateRollbacks.items.map(itemId));

    // Stopped with everything committed; then the store loses every write since the snapshot.
    await app.stop();
    running.splice(running.indexOf(app), 1);
    const lossy = await createStore(loadConfig(lastEnv));
    for (const d of beforeLoss.values()) {
      const old = snapshot.states.find((x) => x._id === d._id);
      if (old) await lossy.collection<ChatStateDoc>(CHAT_STATE_COLLECTION).replaceOne({ _id: d._id }, old);
      else await lossy.collection<ChatStateDoc>(CHAT_STATE_COLLECTION).deleteMany({ _id: d._id });
    }
    for (const m of snapshot.marks) await lossy.collection<AppliedMarkDoc>(APPLIED_MARKS_COLLECTION).replaceOne({ _id: m._id }, m);
    await lossy.close();
    const restarted = await startWithEnv(lastEnv);
    running.push(restarted);
    app = restarted;
    const st = app.store.collection<ChatStateDoc>(CHAT_STATE_COLLECTION);

    // More records for both chats; their partitions' first rounds find the mark behind.
    const later = T0 + 3 * 3_600_000;
    await app.log.append(topo.inbound, [...[107, 108, 109].map((i) => message(i, FAN2, later + i * 1_000)), message(202, FAN3, later)]);
    await eventually(async () => ((await messageIds(app, key2)).length === 9 && (await messageIds(app, key3)).length === 2 ? true : undefined), 60_000, 'the records after the restart');

    const events = await allRecords(app.log, topo.sessionEvents);
    expect([...contentsById(events)].filter(([, c]) => c.size > 1).map(([id]) => id), 'event ids appended with two contents').toEqual(reusedBefore);
    expect(events.length).toBeGreaterThan(eventsBefore);
    expect(await messageIds(app, key2)).toEqual(['101', '102', '103', '104', '105', '106', '107', '108', '109']);
    expect(await messageIds(app, key3)).toEqual(['201', '202']);
    // Every chat the lost rounds changed is whole again, as the records and the tick left it
    // (those the new records moved on, past it).
    for (const k of changed) {
      const now = await st.findOne({ _id: k });
      expect(now?.offset, k).toBeGreaterThanOrEqual(beforeLoss.get(k)?.offset ?? Infinity);
      if (k !== key2) expect(now, k).toEqual(beforeLoss.get(k));
    }
    expect((await st.findOne({ _id: key2 }))?.offset).toBeGreaterThan(tickOffset);

    // Found, counted and verified: exactly the changed chats, not the one whose lost record was a duplicate.
    const health = (await call(app, 'GET', '/api/health')).body as { counters: { processor: Record<string, number> } };
    expect(health.counters.processor.stateRollbacks).toBe(changed.length);
    const v = await call(app, 'GET', '/api/admin/verify');
    const found = (v.body as VerifyRollbacks).stateRollbacks.items.filter((i) => !earlier.has(itemId(i)));
    expect(found.map((i) => i.chatKey).sort()).toEqual(changed);
    expect(found.every((i) => i.recoveredAt !== null)).toBe(true);
  });
});
