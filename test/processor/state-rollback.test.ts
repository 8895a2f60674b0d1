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
import type { Log, LogRecord } from '../../src/adapters/log/log.js';
import type { RunningApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { messageWebhook } from '../../src/demo/platform-bodies.js';
import { inboundRecord } from '../../src/domain/inbound-record.js';
import { SET_ASIDE_ALERT_ID } from '../../src/pipeline/set-aside-alert.js';
import { CHAT_STATE_COLLECTION, type ChatStateDoc } from '../../src/processor/session-processor.js';
import { SET_ASIDE_COLLECTION, type SetAsideDoc } from '../../src/processor/set-aside.js';
import { ReadModelSet } from '../../src/projector/read-model-set.js';
import { topology, type Topology } from '../../src/topology.js';
import { DEPLOYMENTS, deploymentEnv, removeDataDirs, startWithEnv } from '../support/deployments.js';
import { parsePrometheus, total } from '../support/prometheus.js';
import { eventually, uniqueName } from '../support/wait.js';

const TOKEN = 'state-rollback-admin-token-0123456789';
const ACCOUNT = 'acct_000000000000000000000000000b0118';
const FAN = '6660001';
const KEY = `${ACCOUNT}:${FAN}`;
const T0 = Date.parse('2026-06-11T10:00:00Z');
const auth = { authorization: `Bearer ${TOKEN}` };

function message(id: number) {
  const atMs = T0 + id * 1_000;
  const body = Buffer.from(messageWebhook({ accountId: ACCOUNT, fanId: FAN, messageId: String(id), createdAt: new Date(atMs).toISOString(), text: `m${id}`, direction: id % 3 === 0 ? 'sent' : 'received' }));
  return inboundRecord({ source: 'webhook', event: id % 3 === 0 ? 'messages.sent' : 'messages.received', accountId: ACCOUNT, chatId: FAN, dedupeKey: `evt_rollback_${id}`, receivedAt: atMs }, body);
}
const messages = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => message(from + i));

async function call(app: RunningApp, method: 'GET' | 'POST', url: string) {
  const res = await app.server?.inject({ method, url, headers: auth });
  if (!res) throw new Error('no API in this app');
  return { status: res.statusCode, body: res.headers['content-type']?.toString().includes('json') ? res.json() as Record<string, unknown> : res.body };
}

async function messageIds(app: RunningApp): Promise<string[]> {
  const rm = await new ReadModelSet(app.store).active();
  return (await rm.messages.find({ chatKey: KEY }, { sort: { sentAt: 1 } })).map((m) => String(m.messageId));
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

/** Every record of a topic, read by a consumer group of its own from the beginning. */
async function allRecords(log: Log, topic: string): Promise<LogRecord[]> {
  const ends = await log.endOffsets(topic);
  const want = Object.values(ends).reduce((a, b) => a + b, 0);
  const seen: LogRecord[] = [];
  const consumer = await log.consumeRounds({
    groupId: uniqueName('rollback-reader'), topics: [topic], fromBeginning: true,
    onRound: async (batches) => { for (const b of batches) seen.push(...b.records); },
  });
  try {
    await eventually(() => (seen.length >= want ? true : undefined), 30_000, `all ${want} records of ${topic}`);
  } finally {
    await consumer.stop();
  }
  return seen;
}

/** Event id → the distinct contents it was appended with. */
function contentsById(records: readonly LogRecord[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const r of records) {
    const id = (JSON.parse(r.value.toString('utf8')) as { id: string }).id;
    out.set(id, (out.get(id) ?? new Set()).add(r.value.toString('utf8')));
  }
  return out;
}

describe.each(DEPLOYMENTS)('lost writes, on %s', (kind) => {
  const running: RunningApp[] = [];
  afterAll(async () => {
    for (const a of running.splice(0)) await a.stop();
    removeDataDirs();
  });
  let app: RunningApp;
  let topo: Topology;

  it('a chat state rolled back behind the processor is re-derived from inbound: no event id reused, figures exact, the rollback logged, counted and verified', async () => {
    const env = deploymentEnv(kind, { ADMIN_TOKEN: TOKEN, ROLES: 'api,processor,projector', EVENT_DIGESTS: 'on' });
    topo = topology(loadConfig(env).topicPrefix);
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
});
