// Read-surface benchmark: p50/p99 latency of every list endpoint with 100,000 sessions and
// 1,000,000 messages, and replay speed (events/s) next to a bare consumer of the same topic,
// for the embedded default and for Kafka + Mongo-wire (provisioned like the tests do).
//   node --import tsx bench/read-api.ts [--sessions 100000] [--messages-per-session 10]
//        [--requests 200] [--replay-events 200000] [--only embedded|kafka]
import { spawn } from 'node:child_process';
import { onDeployments } from './deployments.js';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createLog, createStore } from '../src/adapters/index.js';
import type { Log } from '../src/adapters/log/log.js';
import type { Doc, DocumentStore } from '../src/adapters/store/store.js';
import { loadConfig } from '../src/config.js';
import { priorityAt } from '../src/projector/priority.js';
import { ReadModelSet } from '../src/projector/read-model-set.js';
import type { ChatDoc, MessageDoc, SessionDoc } from '../src/projector/read-models.js';
import { ReplayService } from '../src/projector/replay.js';
import { createLogger } from '../src/support/logger.js';
import { topology } from '../src/topology.js';
import { initialChatState, step, type ChatState } from '../machines/step.js';
import type { ChatInput } from '../machines/chat-input.js';
import { freePort } from '../test/infra/servers.js';

const { values: args } = parseArgs({
  options: {
    sessions: { type: 'string', default: '100000' },
    'messages-per-session': { type: 'string', default: '10' },
    requests: { type: 'string', default: '200' },
    'replay-events': { type: 'string', default: '200000' },
    only: { type: 'string' },
  },
});
const SESSIONS = Number(args.sessions);
const PER_SESSION = Number(args['messages-per-session']);
const REQUESTS = Number(args.requests);
const REPLAY_EVENTS = Number(args['replay-events']);
const SESSIONS_PER_CHAT = 5;
const CHATS = Math.ceil(SESSIONS / SESSIONS_PER_CHAT);
const ACCOUNTS = ['acct_bench_a', 'acct_bench_b', 'acct_bench_c'];
const CHATTERS = ['ana', 'ben', 'cleo', 'dev', 'eli'];
const T0 = Date.UTC(2026, 4, 1);
const root = join(import.meta.dirname, '..');
const logger = createLogger('warn');

const account = (chat: number) => ACCOUNTS[chat % ACCOUNTS.length] as string;
const fanId = (chat: number) => String(900_000_000 + chat);

/** Writes the read models directly: the shape the projector writes, at the volume asked for. */
async function seedReadModels(store: DocumentStore): Promise<void> {
  const models = new ReadModelSet(store);
  await models.ensureIndexes(1);
  const rm = models.at(1);
  let sessions: SessionDoc[] = [];
  let messages: MessageDoc[] = [];
  let chats: ChatDoc[] = [];
  const flush = async (force = false) => {
    if (force || messages.length >= 20_000) {
      await rm.messages.bulkWrite(messages.map((d) => ({ insertOne: { document: d } })));
      messages = [];
    }
    if (force || sessions.length >= 5_000) {
      await rm.sessions.bulkWrite(sessions.map((d) => ({ insertOne: { document: d } })));
      sessions = [];
    }
    if (force || chats.length >= 5_000) {
      await rm.chats.bulkWrite(chats.map((d) => ({ insertOne: { document: d } })));
      chats = [];
    }
  };
  let msgId = 5_000_000_000;
  for (let c = 0; c < CHATS; c++) {
    const acct = account(c);
    const chatId = fanId(c);
    const chatKey = `${acct}:${chatId}`;
    const spend = (c * 37) % 50_000;
    let t = T0 + c * 1000;
    let lastMessageAt = t;
    for (let s = 1; s <= SESSIONS_PER_CHAT; s++) {
      const open = s === SESSIONS_PER_CHAT;
      const awaiting = open && c % 10 === 0;
      const openedAt = t;
      const sessionId = `${chatKey}:${s}`;
      const chatter = CHATTERS[(c + s) % CHATTERS.length] as string;
      for (let m = 0; m < PER_SESSION; m++) {
        const fan = m % 2 === 0 || (awaiting && m === PER_SESSION - 1);
        const id = String(msgId++);
        messages.push({
          _id: `${acct}:${id}`, messageId: id, accountId: acct, chatId, chatKey, sessionId, sender: fan ? 'fan' : 'human',
          chatterId: fan ? null : chatter, text: fan ? 'hey, are you there?' : 'hi love, of course', priceCents: 0, sentAt: t,
          deleted: false, deletedAt: null, tombstone: false, lastSeq: m + 2,
        });
        lastMessageAt = t;
        t += 45_000;
      }
      const summary = {
        sessionId, status: open ? 'open' as const : 'closed' as const, openedAt, closedAt: open ? null : lastMessageAt + 1_800_000,
        closeReason: open ? null : 'idle' as const, lastMessageAt, lastActivityAt: lastMessageAt, messageCount: PER_SESSION,
        fanMessageCount: Math.ceil(PER_SESSION / 2), replyCount: Math.floor(PER_SESSION / 2), awaiting,
        waitingSince: awaiting ? lastMessageAt : null, firstFanMessageAt: openedAt, firstResponseAt: openedAt + 45_000,
        firstResponseSec: 45 + (c % 600), firstResponderId: chatter, lastHumanChatterId: chatter, revenueCents: (c % 7) * 500,
        paymentCount: c % 7 === 0 ? 0 : 1,
      };
      sessions.push({ _id: sessionId, accountId: acct, chatId, chatKey, ...summary, fanSpendCents: spend, priorityAt: priorityAt(summary, spend), lastSeq: PER_SESSION + 2 });
      t += 3_600_000;
    }
    chats.push({
      _id: chatKey, accountId: acct, chatId, chatKey, firstSeenAt: T0 + c * 1000, lastActivityAt: lastMessageAt, lastMessageAt,
      lastMessageText: 'hi', lastSender: 'human', messageCount: PER_SESSION * SESSIONS_PER_CHAT, fanMessageCount: 25,
      sessionCount: SESSIONS_PER_CHAT, openSessionId: `${chatKey}:${SESSIONS_PER_CHAT}`, awaiting: c % 10 === 0,
      waitingSince: c % 10 === 0 ? lastMessageAt : null, paidCents: spend, paymentCount: 3, lastPaymentAt: lastMessageAt,
      fanSpendCents: spend, lifetimeSpendCents: spend, lastSeq: 99,
    });
    await flush();
  }
  await flush(true);
  await rm.account_stats.bulkWrite(ACCOUNTS.map((a) => ({
    insertOne: {
      document: {
        _id: `${a}#0`, accountId: a, partition: 0, appliedOffset: 0, appliedIds: [], chats: Math.floor(CHATS / 3), sessionsOpened: Math.floor(SESSIONS / 3),
        sessionsClosed: Math.floor((SESSIONS - CHATS) / 3), messages: Math.floor((SESSIONS * PER_SESSION) / 3), fanMessages: 0, revenueCents: 0,
        paymentCount: 0, lastActivityAt: T0, lastStatusEvent: null, lastStatusState: null, lastStatusAt: null,
      } as Doc & Record<string, unknown>,
    },
  })) as never);
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}

async function measure(port: number, path: (i: number) => string): Promise<{ p50: number; p99: number; rows: number }> {
  const times: number[] = [];
  let rows = 0;
  for (let i = 0; i < REQUESTS + 20; i++) {
    const started = performance.now();
    const res = await fetch(`http://127.0.0.1:${port}${path(i)}`);
    const body = (await res.json()) as { items?: unknown[]; messages?: unknown[] };
    if (res.status !== 200) throw new Error(`${path(i)} answered ${res.status}: ${JSON.stringify(body).slice(0, 200)}`);
    if (i >= 20) times.push(performance.now() - started);
    rows = body.items?.length ?? body.messages?.length ?? rows;
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99), rows };
}

const ENDPOINTS: [string, (i: number) => string][] = [
  ['GET /api/sessions (priority)', () => '/api/sessions?limit=50'],
  ['GET /api/sessions?sort=opened', () => '/api/sessions?sort=opened&limit=50'],
  ['GET /api/sessions?awaiting=1', () => '/api/sessions?awaiting=1&limit=50'],
  ['GET /api/messages (latest)', () => '/api/messages?limit=50'],
  ['GET /api/messages?chatId=', (i) => `/api/messages?chatId=${fanId((i * 7919) % CHATS)}&limit=50`],
  ['GET /api/chats', () => '/api/chats?limit=50'],
  ['GET /api/chats?chatId=', (i) => `/api/chats?chatId=${fanId((i * 7919) % CHATS)}&limit=50`],
  ['GET /api/fans', () => '/api/fans?limit=50'],
  ['GET /api/fans?sort=recent', () => '/api/fans?sort=recent&limit=50'],
  ['GET /api/accounts', () => '/api/accounts'],
];

async function benchApi(name: string, env: Record<string, string>): Promise<void> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/main.ts')], {
    cwd: root, stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, ...env, ROLES: 'api', PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', RATE_LIMIT_MAX: '10000000', REPORT_RATE_LIMIT_MAX: '10000000' },
  });
  try {
    for (let i = 0; i < 600; i++) {
      if (await fetch(`http://127.0.0.1:${port}/api/health`).then((r) => r.ok, () => false)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    for (const [label, path] of ENDPOINTS) {
      const r = await measure(port, path);
      const verdict = r.p99 <= 50 ? 'meets' : 'misses';
      console.log(`${name.padEnd(12)} ${label.padEnd(32)} p50 ${r.p50.toFixed(1).padStart(7)} ms  p99 ${r.p99.toFixed(1).padStart(7)} ms  (${r.rows} rows; target p99 <= 50 ms: ${verdict})`);
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

/** Appends about `count` session events made by the real machine from synthetic chats. */
async function seedSessionEvents(log: Log, topic: string, count: number): Promise<number> {
  const states = new Map<number, ChatState>();
  let appended = 0;
  let batch: { key: string; value: string }[] = [];
  for (let i = 0; appended + batch.length < count; i++) {
    const chat = i % 5000;
    const state = states.get(chat) ?? initialChatState({ accountId: account(chat), chatId: fanId(chat), idleMs: 1_800_000, lateMs: 300_000 });
    const at = T0 + i * 2000;
    const input: ChatInput = i % 4 === 3
      ? { type: 'chat.payment', dedupeKey: `p${i}`, at, paymentId: `t${i}`, kind: 'tip', grossCents: 500, netCents: 400 }
      : { type: 'chat.message', dedupeKey: `k${i}`, at, messageId: String(i), sender: i % 4 === 0 ? 'fan' : 'human', text: 'hello', priceCents: 0, chatterId: CHATTERS[i % 5] ?? null };
    const r = step(state, input);
    states.set(chat, r.state);
    for (const e of r.events) batch.push({ key: e.chatKey, value: JSON.stringify(e) });
    if (batch.length >= 2000) {
      await log.append(topic, batch);
      appended += batch.length;
      batch = [];
    }
  }
  if (batch.length) await log.append(topic, batch);
  return appended + batch.length;
}

async function benchReplay(name: string, env: Record<string, string>): Promise<void> {
  const config = loadConfig({ ...env, TOPIC_PREFIX: `replay${Date.now()}.`, INBOUND_PARTITIONS: '12' });
  const log = createLog(config, logger);
  const store = await createStore(config);
  const topo = topology(config.topicPrefix);
  try {
    await log.createTopics([{ name: topo.sessionEvents, partitions: 12 }]);
    const total = await seedSessionEvents(log, topo.sessionEvents, REPLAY_EVENTS);
    // The limit: a consumer that only reads the topic.
    let read = 0;
    const bareStarted = performance.now();
    await new Promise<void>((resolve, reject) => {
      log.consume({
        groupId: `${topo.projectorGroup}-bare`, topics: [topo.sessionEvents], fromBeginning: true,
        onBatch: async (b) => {
          read += b.records.length;
          if (read >= total) resolve();
        },
      }).then((c) => { const stopWhenDone = setInterval(() => { if (read >= total) { clearInterval(stopWhenDone); void c.stop(); } }, 50); }, reject);
    });
    const bareSec = (performance.now() - bareStarted) / 1000;
    const replay = new ReplayService(log, store, topo, { pause: async () => undefined, resume: async () => undefined }, logger);
    const started = performance.now();
    const job = await replay.start({ kind: 'beginning' });
    await replay.settled();
    const replaySec = (performance.now() - started) / 1000;
    const done = await replay.get(job._id);
    const rate = (done?.eventsApplied ?? 0) / replaySec;
    console.log(`${name.padEnd(12)} bare consumer: ${total} events in ${bareSec.toFixed(1)} s = ${Math.round(total / bareSec)} events/s (the limit)`);
    console.log(`${name.padEnd(12)} replay:        ${done?.eventsApplied ?? 0} events in ${replaySec.toFixed(1)} s = ${Math.round(rate)} events/s (${done?.state}; target >= 20,000/s: ${rate >= 20_000 ? 'meets' : 'misses'}; ${(rate / (total / bareSec) * 100).toFixed(0)}% of the bare consumer)`);
  } finally {
    await log.close();
    await store.close();
  }
}

async function runDeployment(name: string, env: Record<string, string>): Promise<void> {
  const config = loadConfig(env);
  const store = await createStore(config);
  const seedStarted = performance.now();
  await seedReadModels(store);
  await store.close();
  console.log(`${name.padEnd(12)} seeded ${SESSIONS} sessions, ${SESSIONS * PER_SESSION} messages, ${CHATS} chats in ${((performance.now() - seedStarted) / 1000).toFixed(0)} s`);
  await benchApi(name, env);
  await benchReplay(name, env);
}

console.log(`read benchmark: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}; ${REQUESTS} requests per endpoint after 20 warm-up`);
await onDeployments(args.only, runDeployment, 6144);
