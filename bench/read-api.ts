// Read-surface benchmark: p50/p99 latency of every list endpoint and of every aggregate route a
// dashboard polls, at 100,000 sessions (1,000,000 messages) or 1,000,000 sessions (10,000,000
// messages), and replay speed (events/s) next to a bare consumer of the same topic, for the
// embedded default and for Kafka + Mongo-wire (provisioned like the tests do).
//   node --import tsx bench/read-api.ts [--sessions 100000] [--messages-per-session 10]
//        [--requests 200] [--route-budget-sec 60] [--routes all|aggregates|lists|business|money|none]
//        [--replay-events 200000] [--skip-replay] [--only embedded|kafka]
//        [--server-root <checkout>] [--mongo-heap-mb <6144 per million messages>]
//        [--replay-cpu-prof <path prefix>] (a CPU profile of the replay alone, without the seeding)
//        [--replay-repeat <n>] (replay the same topic n times, each into a fresh version; prints each and the median)
//        [--api-cpu-prof <dir>] (a CPU profile of each API process, written when it stops: where a route's time goes)
//        [--match <text>] (only the routes whose label holds the text: one route's profile)
//        [--rounds <n>] (time every route n times in turn; each line gives the medians of the rounds)
//        [--backlog <n>] (n more sessions, each a fan who wrote 25 to 48 hours ago and was never
//        answered, still open in the store: past the unanswered limit, with no tick yet to close
//        them, as after a backlog redelivered at once. On the embedded store the projector runs
//        too and sweeps them closed first (src/projector/lapse-sweep.ts): the routes are timed
//        after it, the sweep's time printed. Compare with --backlog 0, same run length)
//        [--backlog-settled] (the same backlog as the tick leaves it: closed unanswered at its
//        deadline. The floor for --backlog: the same sessions, only not lapsed-but-unsettled)
//        [--backlog-lapsed] (the same backlog as the next tick's SessionLapsed leaves it, on
//        either store: each session held closed at its deadline, `swept`, the chat still
//        awaiting, the totals counting it open; what MongoDB holds once the tick has said it)
//
// The data, and why it looks like this. The read models are written directly (the documents
// the projector writes, field for field; see src/read-models/*/projection.ts), not by
// replaying events, so a million sessions seed in minutes. What a dashboard costs depends on
// how history is spread over time and on how much of it is live, so the shape follows a real
// floor rather than a convenient one:
//   - History has a fixed density that does not depend on size: about 100 sessions per hour
//     (--sessions-per-hour), ending at the wall-clock time the seed starts. 100,000 sessions
//     reach back about 42 days, 1,000,000 about 14 months. A window ("the last 7 days") then
//     holds the same number of sessions at every size, and only the history behind it grows:
//     exactly what a route that stays fast as history grows must ignore.
//   - Sessions close when idle (30 minutes after their last activity, as SESSION_IDLE_SEC
//     does by default), so only sessions whose last message is within the last 30 minutes are
//     open: a few dozen, whatever the size. (The old seed left 20% of all sessions open forever,
//     which made "open" and "waiting" scans grow with history.) About a third of the open
//     sessions await a reply: some past the SLA threshold, some at 80-100% of it, some fresh
//     (a few of those never answered yet: SLA "pending").
//   - 10 messages per session (--messages-per-session), 5 sessions per chat, 3 accounts,
//     5 chatters. First-response times are spread log-uniformly from 5 s to 2 h, slower or
//     faster per chatter; while a fan waits long, they write again every 20 minutes (or the
//     session would idle-close before the reply). About one closed session in 12 was never answered
//     (firstResponseSec and firstResponderId null).
//   - About one answered session in 3 has a payment credited to its responder, paid inside the
//     session, of varied amounts: the payments collection is seeded as the projector writes it.
//   - account_stats has one row per account and `inbound` partition (12), as several
//     projectors leave it; chats carry the totals of their sessions.
//   - report_buckets (the rollups the report routes read): every seeded session, message and
//     payment is fed to the projector's own ReportBucketBuilder, and what it builds is
//     bulk-inserted at the end, so the report routes answer from the same data.
// The open sessions and waits are relative to when the seed started; the API process is
// started right after (at 1,000,000 sessions some minutes later), and nothing closes sessions
// in between (ROLES=api only), so a few more of them look past the threshold by then. With
// --backlog on the embedded store the projector runs too (ROLES=api,projector), as in the
// service, and the routes are timed once it has closed the backlog's sessions at their
// deadline (the sweep's time, and an overview's meanwhile, are printed first).
//
// Routes. "lists" are the list endpoints (as before); "aggregates" are what a dashboard polls:
// overview, stats, sla, scorecard, floor, alerts, accounts with their defaults, and windowed
// variants (the last 7 days, and a window not on hour edges: from = now - 7 d - 17 min). Each
// route gets 20 warm-up requests and --requests timed ones, sequentially, but at most
// --route-budget-sec per route (a scan of a million sessions can take seconds a request; the
// line then says how many were timed). A route that refuses its query (a server without
// windows answers 400) is reported as not supported and the run goes on; one that answers
// without naming the window it used (no `window` in the body) is flagged as ignoring it. After each
// aggregate route, the seed's own count of sessions in the window is printed next to the
// route's answer, to catch rollups that answer zeros.
//
// --server-root <dir>: spawn the API from another checkout (e.g. a worktree of the commit
// before the rollups) on the same data; the seed always runs from this checkout.
//
// Sizes and deployments. At 100,000 sessions both deployments work: mongo-java-server, which
// keeps every document and index in Java maps, held the 1,000,000 messages in 4.7 GB
// (resident, 6 GiB heap). At 1,000,000 sessions (10,000,000 messages) it would need about
// 45 GB, twice this machine's 24 GiB, so that size runs with --only embedded: a run that would
// put more than 2,000,000 messages into the Mongo-wire server skips that deployment and says
// so (--mongo-heap-mb forces it). The heap defaults to 6 GiB per million messages (at least
// 6 GiB). Embedded, the seed writes every batch through the store's secondary indexes;
// 10,000,000 messages take tens of minutes and several GB in the OS temp folder (see the
// seed line each run prints).
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { collectGarbage } from './collect-garbage.js';
import { onDeployments } from './deployments.js';
import { bareBulkWrites } from './mongo-bare.js';
import { cpus, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createLog, createStore } from '../src/adapters/index.js';
import type { Log } from '../src/adapters/log/log.js';
import { partitionForKey } from '../src/adapters/log/partitioner.js';
import type { Doc, DocumentStore } from '../src/adapters/store/store.js';
import { loadConfig } from '../src/config.js';
import { accountStatsDocId, type AccountStatsDoc } from '../src/read-models/account-stats/projection.js';
import { lifetimeSpend, type ChatDoc } from '../src/read-models/chats/projection.js';
import { messageDocId, type MessageDoc } from '../src/read-models/messages/projection.js';
import { paymentDocId, type PaymentDoc } from '../src/read-models/payments/projection.js';
import { ppvDocId, type PpvDoc } from '../src/read-models/ppvs/projection.js';
import type { SessionDoc } from '../src/read-models/sessions/projection.js';
import { ReportBucketBuilder } from '../src/read-models/report-buckets/builder.js';
import { priorityAt } from '../src/read-models/sessions/priority.js';
import { sweptSession } from '../src/read-models/sessions/lapse.js';
import { ReadModelSet } from '../src/read-models/read-model-set.js';
import { ReplayService } from '../src/projector/replay.js';
import { createLogger } from '../src/support/logger.js';
import { topology } from '../src/topology.js';
import { initialChatState, step, type ChatState } from '../machines/step.js';
import type { ChatInput, MessageSender, PaymentKind } from '../machines/chat-input.js';
import { freePort } from '../test/infra/servers.js';
import { BusinessHoursStore } from '../src/accounts/business-hours-store.js';
import { BusinessClock, validateBusinessHours } from '../src/domain/business-hours.js';
import { businessFigures } from '../src/domain/session-business-time.js';
import type { SessionSummary } from '../machines/session-events.js';
import { deadline } from './deadline.js';

const { values: args } = parseArgs({
  options: {
    sessions: { type: 'string', default: '100000' },
    'messages-per-session': { type: 'string', default: '10' },
    'sessions-per-hour': { type: 'string', default: '100' },
    requests: { type: 'string', default: '200' },
    'route-budget-sec': { type: 'string', default: '60' },
    routes: { type: 'string', default: 'all' },
    'replay-events': { type: 'string', default: '200000' },
    'skip-replay': { type: 'boolean', default: false },
    'replay-cpu-prof': { type: 'string' },
    'replay-repeat': { type: 'string', default: '1' },
    'api-cpu-prof': { type: 'string' },
    match: { type: 'string' },
    only: { type: 'string' },
    'server-root': { type: 'string' },
    'mongo-heap-mb': { type: 'string' },
    rounds: { type: 'string', default: '1' },
    backlog: { type: 'string', default: '0' },
    'backlog-settled': { type: 'boolean', default: false },
    'backlog-lapsed': { type: 'boolean', default: false },
  },
});
/** Sessions past their deadline that no tick has closed yet (issue 53): a backlog redelivered at once. */
const BACKLOG = Number(args.backlog);
/** The same backlog as the tick leaves it: closed unanswered at its deadline (the floor a lapsed backlog is compared with). */
const BACKLOG_SETTLED = args['backlog-settled'] === true;
/** The same backlog as the tick's SessionLapsed leaves it (read-models/sessions/lapse.ts). */
const BACKLOG_LAPSED = args['backlog-lapsed'] === true && !BACKLOG_SETTLED;
const SESSIONS = Number(args.sessions);
const PER_SESSION = Number(args['messages-per-session']);
const SESSIONS_PER_HOUR = Number(args['sessions-per-hour']);
const REQUESTS = Number(args.requests);
// Every route is timed once per round, the routes taken in turn, so a noisy minute on a shared
// machine falls on one round of every route rather than on all of one route's requests; each
// line then gives the median of the rounds' p50 and p99 and the range of the p99s.
const ROUNDS = Number(args.rounds);
if (!(Number.isInteger(ROUNDS) && ROUNDS >= 1)) throw new Error('--rounds must be a positive integer');
const WARMUP = Math.min(20, REQUESTS);
const ROUTE_BUDGET_MS = Number(args['route-budget-sec']) * 1000;
const REPLAY_EVENTS = Number(args['replay-events']);
const ROUTES = args.routes;
if (!['all', 'aggregates', 'lists', 'business', 'money', 'none'].includes(ROUTES)) throw new Error(`--routes: all, aggregates, lists, business, money or none, not ${ROUTES}`);
if (!(SESSIONS >= 1 && PER_SESSION >= 3 && SESSIONS_PER_HOUR > 0 && REQUESTS >= 1)) throw new Error('--sessions, --sessions-per-hour and --requests must be positive, --messages-per-session at least 3');
const SESSIONS_PER_CHAT = 5;
const CHATS = Math.ceil(SESSIONS / SESSIONS_PER_CHAT);
const ACCOUNTS = ['acct_bench_a', 'acct_bench_b', 'acct_bench_c'];
const CHATTERS = ['ana', 'ben', 'cleo', 'dev', 'eli'];
/** How much slower than the typical first response each chatter is (eli is the one to coach). */
const CHATTER_PACE = [0.5, 0.8, 1, 1.5, 3];
const INBOUND_PARTITIONS = 12;
const IDLE_MS = 1_800_000;
const SPACING_MS = 3_600_000 / SESSIONS_PER_HOUR;
const THRESHOLD_SEC = loadConfig({}).slaThresholdSec;
const MONGO_MAX_MESSAGES = 2_000_000;
const LOG_FRT_MIN = Math.log(5);
const LOG_FRT_MAX = Math.log(7200);
const T0 = Date.UTC(2026, 4, 1);
const root = join(import.meta.dirname, '..');
const serverRoot = args['server-root'] ? resolve(args['server-root']) : root;
const logger = createLogger('warn');

const account = (chat: number) => ACCOUNTS[chat % ACCOUNTS.length] as string;
const fanId = (chat: number) => String(900_000_000 + chat);

/** A small deterministic generator (mulberry32), so every run seeds the same data. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FAN_TEXTS = ['hey, are you there?', 'what are you up to tonight', 'can I see more?', 'miss you', 'ok', 'how much for the set?'];
const HUMAN_TEXTS = ['hi love, of course', 'just got back, what about you?', 'I have something special for you', 'haha you are sweet', 'sent you a surprise'];
const GROSS_CENTS = [300, 500, 999, 1500, 2500, 4999, 10_000, 25_000];
/** PPV prices of the seeded direct PPVs (issue 50). */
const PPV_CENTS = [500, 999, 1500, 2500, 4000];
const KINDS: PaymentKind[] = ['tip', 'ppv', 'ppv', 'tip', 'subscription', 'post'];

/** What the seed knows about each session, to compare with what the report routes answer. */
const seeded = {
  now: 0,
  firstFanAt: new Float64Array(0),
  accountOf: new Uint8Array(0),
  /** Sessions in `[from, to)` by first fan message, of one account (index) or all. */
  inWindow(from: number, to: number, accountIdx?: number): number {
    let n = 0;
    for (let i = 0; i < this.firstFanAt.length; i++) {
      const t = this.firstFanAt[i] as number;
      if (t >= from && t < to && (accountIdx === undefined || this.accountOf[i] === accountIdx)) n++;
    }
    return n;
  },
};

interface ChatAcc {
  seq: number;
  firstSeenAt: number;
  lastActivityAt: number;
  lastMessageAt: number | null;
  lastMessageId: string | null;
  lastMessageText: string | null;
  lastSender: MessageSender | null;
  messageCount: number;
  fanMessageCount: number;
  sessionCount: number;
  openSessionId: string | null;
  awaiting: boolean;
  waitingSince: number | null;
  paidCents: number;
  paymentCount: number;
  lastPaymentAt: number | null;
}

type StatsAcc = { -readonly [K in keyof AccountStatsDoc]: AccountStatsDoc[K] };

/** Writes the read models directly: the shape the projector writes, at the volume asked for. */
async function seedReadModels(store: DocumentStore): Promise<{ buckets: number; bucketSec: number; payments: number; open: number; awaiting: number }> {
  const models = new ReadModelSet(store);
  await models.ensureIndexes(1);
  const rm = models.at(1);
  const builder = new ReportBucketBuilder();
  const rand = prng(14);
  const now = Date.now();
  seeded.now = now;
  seeded.firstFanAt = new Float64Array(SESSIONS);
  seeded.accountOf = new Uint8Array(SESSIONS);

  let sessions: SessionDoc[] = [];
  let messages: MessageDoc[] = [];
  let payments: PaymentDoc[] = [];
  let ppvDocs: PpvDoc[] = [];
  // One batch is written while the next is generated (at most one write in flight).
  let writing: Promise<void> = Promise.resolve();
  const write = async <T extends Doc>(into: { bulkWrite(ops: { insertOne: { document: T } }[]): Promise<void> }, docs: T[]) => {
    await writing;
    writing = into.bulkWrite(docs.map((d) => ({ insertOne: { document: d } })));
  };
  const flush = async (force = false) => {
    if (messages.length && (force || messages.length >= 20_000)) {
      await write(rm.messages, messages);
      messages = [];
    }
    if (sessions.length && (force || sessions.length >= 5_000)) {
      await write(rm.sessions, sessions);
      sessions = [];
    }
    if (payments.length && (force || payments.length >= 5_000)) {
      await write(rm.payments, payments);
      payments = [];
    }
    if (ppvDocs.length && (force || ppvDocs.length >= 5_000)) {
      await write(rm.ppvs, ppvDocs);
      ppvDocs = [];
    }
    if (force) await writing;
  };

  const chats: (ChatAcc | undefined)[] = new Array(CHATS);
  const stats = new Map<string, StatsAcc>();
  const statsRow = (acct: string, partition: number): StatsAcc => {
    const id = accountStatsDocId(acct, partition);
    let row = stats.get(id);
    if (!row) {
      row = {
        _id: id, accountId: acct, partition, appliedOffset: -1, appliedIds: [], chats: 0, sessionsOpened: 0, sessionsClosed: 0, messages: 0,
        fanMessages: 0, revenueCents: 0, paymentCount: 0, lateRecords: 0, lastActivityAt: null, lastStatusEvent: null, lastStatusState: null, lastStatusAt: null,
      };
      stats.set(id, row);
    }
    return row;
  };
  const partitionOfChat = new Uint8Array(CHATS);

  let msgId = 5_000_000_000;
  let payId = 0;
  let openCount = 0;
  let awaitingCount = 0;
  const offsets: number[] = [];
  const senders: MessageSender[] = [];
  for (let i = 0; i < SESSIONS; i++) {
    // Session i, in time order; its chat and its number within the chat. A chat's sessions are
    // CHATS sessions apart, so they never overlap (at sizes above a few thousand sessions).
    const c = i % CHATS;
    const s = Math.floor(i / CHATS) + 1;
    const acct = account(c);
    const chatId = fanId(c);
    const chatKey = `${acct}:${chatId}`;
    const sessionId = `${chatKey}:${s}`;
    const spend = (c * 37) % 50_000;
    const chatterIdx = (c + s) % CHATTERS.length;
    const chatter = CHATTERS[chatterIdx] as string;
    if (s === 1) partitionOfChat[c] = partitionForKey(chatKey, INBOUND_PARTITIONS);
    const stat = statsRow(acct, partitionOfChat[c] as number);

    // When its last message was: history at a fixed density, ending now.
    let lastMessageAt = now - (SESSIONS - 1 - i) * SPACING_MS - Math.floor(rand() * SPACING_MS);
    const open = now - lastMessageAt < IDLE_MS;
    let awaiting = false;
    // Random draws, not the session's index: chats (and so accounts) follow the index.
    let answered = rand() >= 1 / 12;
    /** How long the fan has waited (awaiting sessions only). */
    let waitMs = 0;
    if (open) {
      // A third of the open sessions wait for a reply: past the threshold, at 80-100% of it, or fresh.
      awaiting = rand() < 1 / 3;
      answered = true;
      if (awaiting) {
        const kind = Math.floor(rand() * 3);
        const waitSec = kind === 0 ? THRESHOLD_SEC * 1.1 + rand() * (IDLE_MS / 1000 - THRESHOLD_SEC * 1.2)
          : kind === 1 ? THRESHOLD_SEC * (0.8 + rand() * 0.2)
            : 5 + rand() * THRESHOLD_SEC * 0.6;
        waitMs = Math.round(waitSec * 1000);
        lastMessageAt = now - waitMs;
        // Half the fresh ones have not been answered at all yet (SLA: pending).
        answered = !(kind === 2 && rand() < 0.5);
        awaitingCount++;
      }
      openCount++;
    }

    // Message times as offsets from the first (fan) message, and who sent each.
    offsets.length = 0;
    senders.length = 0;
    let frtSec: number | null = null;
    if (answered) {
      frtSec = Math.round(Math.min(7200, Math.max(5, Math.exp(LOG_FRT_MIN + rand() * (LOG_FRT_MAX - LOG_FRT_MIN)) * (CHATTER_PACE[chatterIdx] as number))));
      // While the fan waits long, they write again every 20 minutes, or the session would idle out.
      const replyIdx = Math.min(PER_SESSION - (awaiting ? 2 : 1), 1 + Math.floor(frtSec / 1200));
      for (let m = 0; m < replyIdx; m++) { offsets.push(Math.floor((m * frtSec * 1000) / replyIdx)); senders.push('fan'); }
      offsets.push(frtSec * 1000);
      senders.push('human');
      // Then fan and human take turns, ending on the fan while they wait, on a reply otherwise.
      for (let m = replyIdx + 1; m < PER_SESSION; m++) {
        offsets.push((offsets[m - 1] as number) + 20_000 + Math.floor(rand() * 100_000));
        senders.push(((PER_SESSION - 1 - m) % 2 === 0) === awaiting ? 'fan' : 'human');
      }
    } else {
      // Nobody answered: only fan messages; a fresh one has waited since its first message.
      const gap = awaiting ? Math.floor(waitMs / PER_SESSION) : 30_000 + Math.floor(rand() * 90_000);
      for (let m = 0; m < PER_SESSION; m++) { offsets.push(m * gap); senders.push('fan'); }
      if (awaiting) lastMessageAt = now - waitMs + (PER_SESSION - 1) * gap;
    }
    const openedAt = lastMessageAt - (offsets[offsets.length - 1] as number);
    seeded.firstFanAt[i] = openedAt;
    seeded.accountOf[i] = c % ACCOUNTS.length;

    const chat = chats[c] ?? (chats[c] = {
      seq: 0, firstSeenAt: openedAt, lastActivityAt: openedAt, lastMessageAt: null, lastMessageId: null, lastMessageText: null, lastSender: null,
      messageCount: 0, fanMessageCount: 0, sessionCount: 0, openSessionId: null, awaiting: false, waitingSince: null, paidCents: 0, paymentCount: 0, lastPaymentAt: null,
    });
    if (s === 1) stat.chats++;
    chat.seq++; // SessionOpened
    chat.sessionCount++;
    stat.sessionsOpened++;

    // A payment to the responder inside one answered session in three, halfway between the reply and the last message.
    const paid = answered && rand() < 1 / 3;
    const replyAt = openedAt + (frtSec ?? 0) * 1000;
    const paidAt = paid ? Math.floor(replyAt + (lastMessageAt - replyAt) / 2) + 1000 : 0;
    let paidCents = 0;
    const addPayment = (): void => {
      const grossCents = GROSS_CENTS[Math.floor(rand() * GROSS_CENTS.length)] as number;
      const paymentId = `tx_bench_${payId++}`;
      chat.seq++;
      const kind = KINDS[payId % KINDS.length] as PaymentKind;
      // The other models, as PaymentAttributed leaves them: a PPV's sender is often another chatter than the one who chatted last.
      const sender = kind === 'ppv' ? CHATTERS[(chatterIdx + 1) % CHATTERS.length] as string : chatter;
      const doc: PaymentDoc = {
        _id: paymentDocId(acct, paymentId), paymentId, accountId: acct, chatId, chatKey, kind, grossCents,
        netCents: Math.round(grossCents * 0.8), paidAt, sessionId, chatterId: chatter, late: false, lastSeq: chat.seq,
        models: {
          sender: { chatterId: sender, messageId: null, rule: kind === 'ppv' ? 'ppv-sender' : 'last-message' },
          converter: { chatterId: chatter, messageId: null, rule: 'last-message' },
        },
      };
      payments.push(doc);
      builder.add('payments', doc);
      paidCents = grossCents;
      chat.paidCents += grossCents;
      chat.paymentCount++;
      chat.lastPaymentAt = paidAt;
      stat.revenueCents += grossCents;
      stat.paymentCount++;
    };

    let fanCount = 0;
    let lastHuman: string | null = null;
    let waitingSince: number | null = null;
    let paymentDue = paid;
    for (let m = 0; m < offsets.length; m++) {
      const sentAt = openedAt + (offsets[m] as number);
      if (paymentDue && paidAt <= sentAt) {
        paymentDue = false;
        addPayment();
      }
      const sender = senders[m] as MessageSender;
      const fan = sender === 'fan';
      const id = String(msgId++);
      const text = fan ? FAN_TEXTS[(i + m) % FAN_TEXTS.length] as string : HUMAN_TEXTS[(i + m) % HUMAN_TEXTS.length] as string;
      chat.seq++;
      // One human message in four is a PPV, and two in five of those are unlocked within two
      // hours (chosen by id, not drawn: the seed's other draws stay as they were).
      const n = Number(id);
      const priceCents = !fan && n % 4 === 0 ? (PPV_CENTS[n % PPV_CENTS.length] as number) : 0;
      const doc: MessageDoc = {
        _id: messageDocId(acct, id), messageId: id, accountId: acct, chatId, chatKey, sessionId, sender, chatterId: fan ? null : chatter, text, priceCents,
        ...(priceCents > 0 ? { isFree: false } : {}), sentAt, deleted: false, deletedAt: null, tombstone: false, lastSeq: chat.seq,
      };
      messages.push(doc);
      builder.add('messages', doc);
      if (priceCents > 0) {
        const unlockedAt = (n * 7919) % 5 < 2 ? sentAt + ((n * 31) % 120) * 60_000 : undefined;
        const ppv: PpvDoc = {
          _id: ppvDocId(acct, id), accountId: acct, chatId, messageId: id, send: { sentAt, sender: 'human', chatterId: chatter, priceCents, free: false }, sentAt,
          ...(unlockedAt !== undefined && unlockedAt < now ? { unlock: { unlockedAt, amountCents: priceCents }, unlockedAt } : {}),
        };
        ppvDocs.push(ppv);
        builder.add('ppvs', ppv);
      }
      if (fan) {
        fanCount++;
        waitingSince ??= sentAt;
      } else {
        lastHuman = chatter;
        waitingSince = null;
      }
      chat.lastMessageAt = sentAt;
      chat.lastMessageId = id;
      chat.lastMessageText = text;
      chat.lastSender = sender;
    }
    if (paymentDue) addPayment();
    const lastActivityAt = Math.max(lastMessageAt, paidAt);
    if (!open) chat.seq++; // SessionClosed
    const summary = {
      sessionId, status: open ? 'open' as const : 'closed' as const, openedAt, closedAt: open ? null : lastActivityAt + IDLE_MS,
      closeReason: open ? null : 'idle' as const, lastMessageAt, lastActivityAt, messageCount: PER_SESSION,
      fanMessageCount: fanCount, replyCount: PER_SESSION - fanCount, awaiting: open && waitingSince !== null,
      waitingSince: open ? waitingSince : null, firstFanMessageAt: openedAt, firstResponseAt: answered ? replyAt : null,
      firstResponseSec: frtSec, firstResponderId: answered ? chatter : null, lastHumanChatterId: lastHuman, revenueCents: paidCents, paymentCount: paid ? 1 : 0,
      fanSpendCents: spend, closesAt: open ? (waitingSince !== null ? Math.max(lastActivityAt + IDLE_MS, waitingSince + 86_400_000) : lastActivityAt + IDLE_MS) : null,
      closesAs: open ? (waitingSince !== null ? 'unanswered' as const : 'idle' as const) : null,
    };
    // In open hours where the account has a schedule, as the processor measures them (src/domain/session-business-time.ts).
    const business = businessFor(acct, summary);
    const sessionDoc: SessionDoc = { _id: sessionId, accountId: acct, chatId, chatKey, ...summary, ...business, priorityAt: priorityAt(summary, spend), lastSeq: chat.seq };
    sessions.push(sessionDoc);
    builder.add('sessions', sessionDoc);

    chat.lastActivityAt = Math.max(chat.lastActivityAt, lastActivityAt);
    chat.messageCount += PER_SESSION;
    chat.fanMessageCount += fanCount;
    chat.openSessionId = open ? sessionId : null;
    chat.awaiting = summary.awaiting;
    chat.waitingSince = summary.waitingSince;
    stat.messages += PER_SESSION;
    stat.fanMessages += fanCount;
    if (!open) stat.sessionsClosed++;
    stat.lastActivityAt = Math.max(stat.lastActivityAt ?? 0, lastActivityAt);
    stat.appliedOffset += PER_SESSION + 1;
    await flush();
  }
  // The backlog: one session per chat of its own, open and awaiting in the store, its deadline
  // (the unanswered limit, a day after the fan's message) passed.
  const backlogChats: ChatDoc[] = [];
  for (let j = 0; j < BACKLOG; j++) {
    const c = CHATS + j;
    const acct = account(c);
    const chatId = fanId(c);
    const chatKey = `${acct}:${chatId}`;
    const sessionId = `${chatKey}:1`;
    const at = now - 25 * 3_600_000 - Math.floor(rand() * 23 * 3_600_000);
    const stat = statsRow(acct, partitionForKey(chatKey, INBOUND_PARTITIONS));
    const id = String(msgId++);
    const message: MessageDoc = {
      _id: messageDocId(acct, id), messageId: id, accountId: acct, chatId, chatKey, sessionId, sender: 'fan', chatterId: null, text: FAN_TEXTS[j % FAN_TEXTS.length] as string,
      priceCents: 0, sentAt: at, deleted: false, deletedAt: null, tombstone: false, lastSeq: 2,
    };
    messages.push(message);
    builder.add('messages', message);
    const deadline = at + 86_400_000;
    const summary = {
      sessionId, status: BACKLOG_SETTLED ? 'closed' as const : 'open' as const, openedAt: at, closedAt: BACKLOG_SETTLED ? deadline : null, closeReason: BACKLOG_SETTLED ? 'unanswered' as const : null,
      lastMessageAt: at, lastActivityAt: at, messageCount: 1,
      fanMessageCount: 1, replyCount: 0, awaiting: true, waitingSince: at, firstFanMessageAt: at, firstResponseAt: null, firstResponseSec: null,
      firstResponderId: null, lastHumanChatterId: null, revenueCents: 0, paymentCount: 0, fanSpendCents: null, closesAt: deadline, closesAs: 'unanswered' as const,
    };
    const open: SessionDoc = { _id: sessionId, accountId: acct, chatId, chatKey, ...summary, ...businessFor(acct, summary), priorityAt: priorityAt(summary, 0), lastSeq: 2 };
    const doc = BACKLOG_LAPSED ? { ...sweptSession(open), lastSeq: 3 } : open;
    sessions.push(doc);
    builder.add('sessions', doc);
    backlogChats.push({
      _id: chatKey, accountId: acct, chatId, chatKey, firstSeenAt: at, lastActivityAt: at, lastMessageAt: at, lastMessageId: id, lastMessageText: message.text ?? null, lastSender: 'fan',
      messageCount: 1, fanMessageCount: 1, sessionCount: 1, openSessionId: BACKLOG_SETTLED ? null : sessionId, awaiting: !BACKLOG_SETTLED, waitingSince: BACKLOG_SETTLED ? null : at, paidCents: 0, paymentCount: 0, lastPaymentAt: null,
      fanSpendCents: null, lifetimeSpendCents: null, lateRecords: 0, lastSeq: 2,
    });
    stat.chats++;
    stat.sessionsOpened++;
    if (BACKLOG_SETTLED) stat.sessionsClosed++;
    stat.messages++;
    stat.fanMessages++;
    await flush();
  }
  await flush(true);
  for (let k = 0; k < backlogChats.length; k += 5_000) await rm.chats.bulkWrite(backlogChats.slice(k, k + 5_000).map((d) => ({ insertOne: { document: d } })));

  let chatDocs: ChatDoc[] = [];
  for (let c = 0; c < CHATS; c++) {
    const a = chats[c];
    if (!a) continue;
    const acct = account(c);
    const chatId = fanId(c);
    const spend = (c * 37) % 50_000;
    const { seq, ...counts } = a;
    chatDocs.push({
      _id: `${acct}:${chatId}`, accountId: acct, chatId, chatKey: `${acct}:${chatId}`, ...counts, fanSpendCents: spend,
      lifetimeSpendCents: lifetimeSpend(spend, a.paidCents), lateRecords: 0, lastSeq: seq,
    });
    if (chatDocs.length >= 5_000 || c === CHATS - 1) {
      await rm.chats.bulkWrite(chatDocs.map((d) => ({ insertOne: { document: d } })));
      chatDocs = [];
    }
  }
  await rm.account_stats.bulkWrite([...stats.values()].map((d) => ({ insertOne: { document: d } })));

  // Business hours (issue 32) for two of the three accounts; the third measures wall-clock time.
  for (const [accountId, schedule] of BENCH_SCHEDULES) {
    const checked = validateBusinessHours(schedule);
    if (!checked.ok) throw new Error(`bench schedule ${accountId}: ${checked.issue.field}: ${checked.issue.reason}`);
    await new BusinessHoursStore(store).set(accountId, checked.schedule);
  }

  const bucketStarted = performance.now();
  const buckets = builder.docs();
  for (let k = 0; k < buckets.length; k += 5_000) {
    await rm.report_buckets.bulkWrite(buckets.slice(k, k + 5_000).map((d) => ({ insertOne: { document: d } })));
  }
  return { buckets: buckets.length, bucketSec: (performance.now() - bucketStarted) / 1000, payments: payId, open: openCount, awaiting: awaitingCount };
}

/**
 * Issue 32: account a keeps Berlin office hours, account b New York split shifts on six days
 * with a holiday a month; account c has none. The seed measures each session of a and b in open
 * hours as the processor does (issue 55), so with clock=business the SLA report and the scorecard
 * read the same report buckets as with clock=wall.
 */
const BENCH_SCHEDULES: readonly [string, unknown][] = [
  [ACCOUNTS[0] as string, { timezone: 'Europe/Berlin', weekly: Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri'].map((d) => [d, [['09:00', '17:00']]])), holidays: ['2026-01-01', '2026-04-03', '2026-04-06', '2026-05-01', '2026-12-25', '2026-12-26'] }],
  [ACCOUNTS[1] as string, {
    timezone: 'America/New_York',
    weekly: Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat'].map((d) => [d, [['08:00', '12:30'], ['13:30', '20:00']]])),
    holidays: Array.from({ length: 24 }, (_, m) => new Date(Date.UTC(2025 + Math.floor(m / 12), m % 12, 15)).toISOString().slice(0, 10)),
  }],
];

const BENCH_CLOCKS = new Map(BENCH_SCHEDULES.map(([accountId, schedule]) => {
  const checked = validateBusinessHours(schedule);
  if (!checked.ok) throw new Error(`bench schedule ${accountId}: ${checked.issue.field}: ${checked.issue.reason}`);
  return [accountId, new BusinessClock(checked.schedule)] as const;
}));

/** A session's figures in open hours, as the processor gives them (null on the account without a schedule). */
function businessFor(accountId: string, s: SessionSummary): { firstResponseBusinessSec: number | null; waitBusinessSec: number | null } {
  const clock = BENCH_CLOCKS.get(accountId);
  return clock ? businessFigures(s, clock) : { firstResponseBusinessSec: null, waitBusinessSec: null };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}

type Body = Record<string, unknown> & { items?: unknown[]; messages?: unknown[] };

interface Route {
  readonly label: string;
  readonly kind: 'list' | 'aggregate';
  /** The request path; `at` is when the route's measurement started (windows end there). */
  readonly path: (i: number, at: number) => string;
  /** What the answer says, next to what the seed put in (to catch routes answering zeros). */
  readonly check?: (body: Body, at: number) => string;
  /** Asks for a window: a server that answers without saying which window it used ignored it. */
  readonly windowed?: boolean;
}

const DAY = 86_400_000;
const HOUR = 3_600_000;
const isoOf = (t: number) => new Date(t).toISOString();
const num = (v: unknown): string => (typeof v === 'number' ? String(v) : v === null ? 'null' : '?');
const get = (b: unknown, ...path: string[]): unknown => path.reduce<unknown>((v, k) => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[k] : undefined), b);
/** 7 days ending now, and one that starts off the hour (from = now - 7 d - 17 min). */
const week = (at: number) => ({ from: at - 7 * DAY, to: at });
const offEdge = (at: number) => ({ from: at - 7 * DAY - 17 * 60_000, to: at });
const windowQuery = (w: { from: number; to: number }) => `from=${encodeURIComponent(isoOf(w.from))}&to=${encodeURIComponent(isoOf(w.to))}`;
const list = (b: Body, key: string): unknown[] => { const v = get(b, key); return Array.isArray(v) ? v : []; };
const sumSessions = (b: Body) => (b.items ?? []).reduce<number>((n, r) => n + (Number(get(r, 'sessions')) || 0), 0);
const expect = (w: { from: number; to: number }, accountIdx?: number) => seeded.inWindow(w.from, w.to, accountIdx);

const ROUTE_TABLE: Route[] = [
  { kind: 'list', label: 'GET /api/sessions (priority)', path: () => '/api/sessions?limit=50' },
  { kind: 'list', label: 'GET /api/sessions?sort=opened', path: () => '/api/sessions?sort=opened&limit=50' },
  { kind: 'list', label: 'GET /api/sessions?awaiting=1', path: () => '/api/sessions?awaiting=1&limit=50' },
  { kind: 'list', label: 'GET /api/messages (latest)', path: () => '/api/messages?limit=50' },
  { kind: 'list', label: 'GET /api/messages?chatId=', path: (i) => `/api/messages?chatId=${fanId((i * 7919) % CHATS)}&limit=50` },
  { kind: 'list', label: 'GET /api/chats', path: () => '/api/chats?limit=50' },
  { kind: 'list', label: 'GET /api/chats?chatId=', path: (i) => `/api/chats?chatId=${fanId((i * 7919) % CHATS)}&limit=50` },
  { kind: 'list', label: 'GET /api/fans', path: () => '/api/fans?limit=50' },
  { kind: 'list', label: 'GET /api/fans?sort=recent', path: () => '/api/fans?sort=recent&limit=50' },
  {
    kind: 'aggregate', label: 'GET /api/overview', path: () => '/api/overview',
    check: (b) => `sessions ${num(get(b, 'sessions', 'total'))} (seeded ${SESSIONS}), open ${num(get(b, 'sessions', 'open'))}, awaiting ${num(get(b, 'sessions', 'awaiting'))}, messages ${num(get(b, 'messages', 'total'))}`,
  },
  {
    kind: 'aggregate', label: 'GET /api/stats', path: () => '/api/stats',
    check: (b, at) => `open ${num(b.openSessions)}, awaiting ${num(b.awaitingReply)}, breached ${num(b.breachedNow)}, at risk ${num(b.atRiskNow)}, today ${num(get(b, 'today', 'sessions'))} sessions (seeded ${expect({ from: at - (at % DAY), to: at + 1 })})`,
  },
  {
    kind: 'aggregate', label: 'GET /api/sla', path: () => '/api/sla',
    check: (b) => `${num(b.sessions)} sessions (seeded ${SESSIONS}), ${num(b.withinThresholdPct)}% within, median ${num(b.medianFirstResponseSec)} s`,
  },
  {
    kind: 'aggregate', label: 'GET /api/chatters/scorecard', path: () => '/api/chatters/scorecard',
    check: (b) => `${(b.items ?? []).length} chatters, ${sumSessions(b)} sessions first answered`,
  },
  {
    kind: 'aggregate', label: 'GET /api/floor', path: () => '/api/floor',
    check: (b) => `open ${num(get(b, 'totals', 'open'))}, awaiting ${num(get(b, 'totals', 'awaiting'))}, breached ${num(get(b, 'totals', 'breached'))}`,
  },
  { kind: 'aggregate', label: 'GET /api/alerts', path: () => '/api/alerts', check: (b) => `${num(b.total)} open alerts` },
  {
    kind: 'aggregate', label: 'GET /api/accounts', path: () => '/api/accounts',
    check: (b) => `${(b.items ?? []).length} accounts, ${(b.items ?? []).map((a) => num(get(a, 'awaiting'))).join('/')} awaiting`,
  },
  {
    kind: 'aggregate', label: 'GET /api/conversion', path: () => '/api/conversion',
    check: (b) => `${list(b, 'chatters').length} chatters, ${list(b, 'accounts').map((a) => num(get(a, 'directPpvsSent'))).join('/')} direct PPVs sent, ${list(b, 'accounts').map((a) => num(get(a, 'ppvsUnlocked'))).join('/')} unlocked`,
  },
  {
    kind: 'aggregate', windowed: true, label: 'GET /api/conversion 7d-17m', path: (_i, at) => `/api/conversion?${windowQuery(offEdge(at))}`,
    check: (b) => `${list(b, 'chatters').length} chatters, ${list(b, 'accounts').map((a) => num(get(a, 'directMessages'))).join('/')} direct messages in the window`,
  },
  {
    kind: 'aggregate', windowed: true, label: 'GET /api/conversion/daily 14 days', path: () => '/api/conversion/daily',
    check: (b) => `${list(b, 'days').length} days, ${list(b, 'days').reduce<number>((n, d) => n + (Number(get(d, 'ppvsUnlocked')) || 0), 0)} unlocked`,
  },
  {
    kind: 'aggregate', windowed: true, label: 'GET /api/sla 7 days', path: (_i, at) => `/api/sla?${windowQuery(week(at))}`,
    check: (b, at) => `${num(b.sessions)} sessions (seeded ${expect(week(at))} with first fan message in the window)`,
  },
  {
    kind: 'aggregate', windowed: true, label: 'GET /api/chatters/scorecard 7d-17m', path: (_i, at) => `/api/chatters/scorecard?${windowQuery(offEdge(at))}`,
    check: (b, at) => `${(b.items ?? []).length} chatters, ${sumSessions(b)} sessions first answered (seeded ${expect(offEdge(at))} in the window, answered or not)`,
  },
  {
    kind: 'aggregate', windowed: true, label: 'GET /api/overview 7d-17m', path: (_i, at) => `/api/overview?${windowQuery(offEdge(at))}`,
    check: (b, at) => `sessions ${num(get(b, 'sessions', 'total'))} (seeded ${expect(offEdge(at))} in the window), messages ${num(get(b, 'messages', 'total'))}`,
  },
  {
    kind: 'aggregate', windowed: true, label: 'GET /api/accounts 7d-17m', path: (_i, at) => `/api/accounts?${windowQuery(offEdge(at))}`,
    check: (b, at) => `${(b.items ?? []).length} accounts, sessions ${(b.items ?? []).map((a) => num(get(a, 'sessionsOpened') ?? get(a, 'sessions'))).join('/')} (seeded ${ACCOUNTS.map((_, k) => expect(offEdge(at), k)).join('/')} in the window)`,
  },
  {
    kind: 'aggregate', windowed: true, label: 'GET /api/sla?accountId=a 7 days', path: (_i, at) => `/api/sla?accountId=${ACCOUNTS[0]}&from=${encodeURIComponent(isoOf(at - 7 * DAY))}`,
    check: (b, at) => `${num(b.sessions)} sessions (seeded ${expect({ from: at - 7 * DAY, to: Infinity }, 0)} of the account since then)`,
  },
];

/** Issue 32: the SLA report, the scorecard and stats with clock=wall next to clock=business (accounts a and b have business hours). */
const slaCheck = (b: Body) => `${String(b.clock)} clock, ${num(b.sessions)} sessions, ${num(b.withinThresholdPct)}% within, median ${num(b.medianFirstResponseSec)} s, p90 ${num(b.p90FirstResponseSec)} s`;
const BUSINESS_ROUTES: Route[] = (['wall', 'business'] as const).flatMap((clock): Route[] => [
  { kind: 'aggregate', label: `GET /api/sla clock=${clock}`, path: () => `/api/sla?clock=${clock}`, check: slaCheck },
  { kind: 'aggregate', windowed: true, label: `GET /api/sla 7 days clock=${clock}`, path: (_i, at) => `/api/sla?${windowQuery(week(at))}&clock=${clock}`, check: slaCheck },
  {
    kind: 'aggregate', windowed: true, label: `GET /api/chatters/scorecard 7d-17m clock=${clock}`, path: (_i, at) => `/api/chatters/scorecard?${windowQuery(offEdge(at))}&clock=${clock}`,
    check: (b) => `${String(b.clock)} clock, ${(b.items ?? []).length} chatters, ${sumSessions(b)} sessions first answered`,
  },
  // Any window (issue 55): all time and two years, which clock=business once refused past 366 days.
  {
    kind: 'aggregate', label: `GET /api/chatters/scorecard clock=${clock}`, path: () => `/api/chatters/scorecard?clock=${clock}`,
    check: (b) => `${String(b.clock)} clock, ${(b.items ?? []).length} chatters, ${sumSessions(b)} sessions first answered`,
  },
  { kind: 'aggregate', windowed: true, label: `GET /api/sla 2 years clock=${clock}`, path: (_i, at) => `/api/sla?${windowQuery({ from: at - 730 * DAY, to: at })}&clock=${clock}`, check: slaCheck },
  { kind: 'aggregate', label: `GET /api/stats clock=${clock}`, path: () => `/api/stats?clock=${clock}`, check: (b) => `${String(b.clock)} clock, awaiting ${num(b.awaitingReply)}, breached ${num(b.breachedNow)}, longest ${num(b.longestWaitSec)} s` },
]);

/**
 * Issue 50: the conversion report and the scorecard under each attribution model, all time and in
 * a window off the hour edges; first, the same route over an hour with nothing in it (tomorrow):
 * the floor of the route (HTTP, access, the window's parsing, one empty read), to set every
 * line's tail against on this shared machine.
 */
const MONEY_ROUTES: Route[] = [{
  kind: 'aggregate', windowed: true, label: 'GET /api/conversion empty hour (floor)', path: (_i, at) => `/api/conversion?${windowQuery({ from: Math.ceil(at / HOUR) * HOUR + DAY, to: Math.ceil(at / HOUR) * HOUR + DAY + HOUR })}`,
  check: (b) => `${list(b, 'chatters').length} chatters, ${list(b, 'accounts').length} accounts`,
}, ...(['session', 'sender', 'converter'] as const).flatMap((model): Route[] => [
  { kind: 'aggregate', label: `GET /api/conversion model=${model}`, path: () => `/api/conversion?model=${model}`, check: (b) => `${String(b.model)}: ${list(b, 'chatters').map((c) => num(get(c, 'revenueCents'))).join('/')} credited` },
  {
    kind: 'aggregate', windowed: true, label: `GET /api/conversion 7d-17m model=${model}`, path: (_i, at) => `/api/conversion?${windowQuery(offEdge(at))}&model=${model}`,
    check: (b) => `${String(b.model)}: ${list(b, 'chatters').map((c) => num(get(c, 'revenueCents'))).join('/')} credited in the window`,
  },
  { kind: 'aggregate', label: `GET /api/chatters/scorecard model=${model}`, path: () => `/api/chatters/scorecard?model=${model}`, check: (b) => `${String(b.model)}: ${(b.items ?? []).map((c) => num(get(c, 'revenueCents'))).join('/')} credited` },
  {
    kind: 'aggregate', windowed: true, label: `GET /api/chatters/scorecard 7d-17m model=${model}`, path: (_i, at) => `/api/chatters/scorecard?${windowQuery(offEdge(at))}&model=${model}`,
    check: (b) => `${String(b.model)}: ${(b.items ?? []).map((c) => num(get(c, 'revenueCents'))).join('/')} credited in the window`,
  },
])];

const ROUTES_TO_RUN = [
  ...ROUTE_TABLE.filter((r) => ROUTES === 'all' || (ROUTES === 'lists' && r.kind === 'list') || (ROUTES === 'aggregates' && r.kind === 'aggregate')),
  ...(ROUTES === 'all' || ROUTES === 'aggregates' || ROUTES === 'business' ? BUSINESS_ROUTES : []),
  ...(ROUTES === 'all' || ROUTES === 'money' ? MONEY_ROUTES : []),
].filter((r) => args.match === undefined || r.label.includes(args.match));

interface Measured { p50: number; p99: number; n: number; rows: number; body: Body; at: number }

/** Warm-up, then timed requests one after another, within the route's time budget. */
async function measure(port: number, route: Route): Promise<Measured | { refused: string }> {
  const times: number[] = [];
  let rows = 0;
  let body: Body = {};
  const at = Date.now();
  const started = performance.now();
  for (let i = 0; i < WARMUP + REQUESTS; i++) {
    const elapsed = performance.now() - started;
    if (i < WARMUP ? elapsed > ROUTE_BUDGET_MS / 4 && i > 0 : elapsed > ROUTE_BUDGET_MS && times.length > 0) {
      if (i < WARMUP) { i = WARMUP - 1; continue; }
      break;
    }
    const t = performance.now();
    const res = await fetch(`http://127.0.0.1:${port}${route.path(i, at)}`, { signal: deadline(120_000) });
    body = (await res.json()) as Body;
    // A server that refuses the query, or (an older checkout, --server-root) has no such route.
    if (res.status === 400 || res.status === 404) return { refused: `${res.status}: ${String(body.message ?? JSON.stringify(body)).slice(0, 160)}` };
    if (res.status !== 200) throw new Error(`${route.path(i, at)} answered ${res.status}: ${JSON.stringify(body).slice(0, 200)}`);
    if (i >= WARMUP) times.push(performance.now() - t);
    rows = body.items?.length ?? body.messages?.length ?? rows;
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99), n: times.length, rows, body, at };
}

async function startApi(env: Record<string, string>, roles = 'api'): Promise<{ port: number; child: ChildProcess }> {
  const port = await freePort();
  const profile = args['api-cpu-prof'] === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${resolve(args['api-cpu-prof'])}`];
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', join(serverRoot, 'src/main.ts')], {
    cwd: serverRoot, stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      // Every request computes (no shared live answers): what a route costs, not what a cache hit costs.
      LIVE_CACHE_MS: '0',
      ...process.env, ...env, ROLES: roles, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn',
      RATE_LIMIT_MAX: '10000000', REPORT_RATE_LIMIT_MAX: '10000000', FLOOR_RATE_LIMIT_MAX: '1000000',
    },
  });
  const started = Date.now();
  // A server that builds something at start on a large history may take a while: wait up to 15 minutes.
  while (Date.now() - started < 900_000) {
    if (child.exitCode !== null) throw new Error(`the API process exited with ${child.exitCode}`);
    if (await fetch(`http://127.0.0.1:${port}/api/health`, { signal: deadline() }).then((r) => r.ok, () => false)) {
      const sec = (Date.now() - started) / 1000;
      if (sec > 10) console.log(`API ready after ${sec.toFixed(0)} s`);
      return { port, child };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the API process did not become healthy within 15 minutes');
}

/**
 * With a backlog on the embedded store, the projector runs too, as in the service: it closes
 * the lapsed sessions in the read models at their deadline (src/projector/lapse-sweep.ts). Waits
 * until it has swept the backlog, timing a dashboard's overview meanwhile, and says how long it took.
 */
async function awaitSweep(name: string, port: number): Promise<void> {
  const started = performance.now();
  // About 1,000 sessions a second at worst on this machine, so a deadline that grows with the backlog.
  const deadlineMs = 120_000 + BACKLOG * 5;
  const during: number[] = [];
  let swept = 0;
  let sweptAt = performance.now();
  for (;;) {
    const t = performance.now();
    const res = await fetch(`http://127.0.0.1:${port}/api/overview`, { signal: AbortSignal.timeout(30_000) });
    await res.arrayBuffer();
    during.push(performance.now() - t);
    const health = await fetch(`http://127.0.0.1:${port}/api/health`, { signal: AbortSignal.timeout(30_000) }).then((r) => r.json()) as { counters?: { projector?: { sessionsSwept?: number } | null } };
    const now = health.counters?.projector?.sessionsSwept ?? 0;
    // Done once the backlog is swept and the last second swept less than a slice: what follows
    // is the seed's own open sessions lapsing one by one as the clock passes their deadlines.
    const step = now - swept;
    if (step > 0) {
      swept = now;
      sweptAt = performance.now();
    }
    if (swept >= BACKLOG && step < 1_000) break;
    if (performance.now() - started > deadlineMs) throw new Error(`the projector swept ${swept} of ${BACKLOG} lapsed sessions in ${Math.round(deadlineMs / 1000)} s`);
    // A dashboard's poll: once a second.
    await new Promise((r) => setTimeout(r, 1_000));
  }
  const took = (sweptAt - started) / 1000;
  during.sort((a, b) => a - b);
  console.log(`${name.padEnd(12)} sweep: ${swept} lapsed sessions closed by the projector in ${took.toFixed(1)} s (${Math.round(swept / Math.max(took, 0.001))}/s); /api/overview meanwhile p50 ${percentile(during, 50).toFixed(1)} ms, p99 ${percentile(during, 99).toFixed(1)} ms over ${during.length} requests`);
}

async function benchApi(name: string, env: Record<string, string>): Promise<void> {
  const sweeps = BACKLOG > 0 && !BACKLOG_SETTLED && !BACKLOG_LAPSED && name === 'embedded';
  const { port, child } = await startApi(env, sweeps ? 'api,projector' : 'api');
  try {
    if (sweeps) await awaitSweep(name, port);
    const rounds = new Map<Route, Measured[]>();
    const refused = new Set<Route>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const route of ROUTES_TO_RUN) {
        if (refused.has(route)) continue;
        const r = await measure(port, route);
        if ('refused' in r) {
          console.log(`${name.padEnd(12)} ${route.label.padEnd(38)} not supported by this server (${r.refused})`);
          refused.add(route);
          continue;
        }
        rounds.set(route, [...rounds.get(route) ?? [], r]);
        if (ROUNDS > 1) continue;
        const verdict = r.p99 <= 50 ? 'meets' : 'misses';
        const what = route.check ? route.check(r.body, r.at) : `${r.rows} rows`;
        const ignored = route.windowed && !('window' in r.body) ? '; WINDOW IGNORED by this server: the answer is all time' : '';
        const few = r.n < REQUESTS ? `; ${r.n} timed within the ${ROUTE_BUDGET_MS / 1000} s budget` : '';
        console.log(`${name.padEnd(12)} ${route.label.padEnd(38)} p50 ${r.p50.toFixed(1).padStart(8)} ms  p99 ${r.p99.toFixed(1).padStart(8)} ms  (target p99 <= 50 ms: ${verdict}${few}; ${what}${ignored})`);
      }
    }
    if (ROUNDS === 1) return;
    for (const [route, measured] of rounds) {
      const median = (xs: number[]): number => { const s = [...xs].sort((x, y) => x - y); return s[Math.floor((s.length - 1) / 2)] ?? NaN; };
      const p99s = measured.map((m) => m.p99);
      const last = measured[measured.length - 1]!;
      const what = route.check ? route.check(last.body, last.at) : `${last.rows} rows`;
      console.log(`${name.padEnd(12)} ${route.label.padEnd(38)} median of ${measured.length} rounds: p50 ${median(measured.map((m) => m.p50)).toFixed(1).padStart(7)} ms  p99 ${median(p99s).toFixed(1).padStart(7)} ms  (p99 ${Math.min(...p99s).toFixed(1)}–${Math.max(...p99s).toFixed(1)}; ${what})`);
    }
  } finally {
    child.kill('SIGTERM');
    if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
  }
}

/** Appends about `count` session events made by the real machine from synthetic chats. */
async function seedSessionEvents(log: Log, topic: string, count: number): Promise<number> {
  const states = new Map<number, ChatState>();
  let appended = 0;
  let batch: { key: string; value: string }[] = [];
  for (let i = 0; appended + batch.length < count; i++) {
    const chat = i % 5000;
    const state = states.get(chat) ?? initialChatState({ accountId: account(chat), chatId: fanId(chat), idleMs: 1_800_000, lateMs: 300_000, unansweredMs: 86_400_000 });
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

/** A CPU profile of this process from now until stop (the replay alone, without seeding). */
async function startProfile(): Promise<{ stop(file: string): Promise<void> }> {
  const session = new Session();
  session.connect();
  const post = (method: string): Promise<unknown> =>
    new Promise((resolve, reject) => session.post(method, (err, res) => (err ? reject(err) : resolve(res))));
  await post('Profiler.enable');
  await post('Profiler.start');
  return {
    async stop(file) {
      const { profile } = (await post('Profiler.stop')) as { profile: unknown };
      writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
      console.log(`replay CPU profile: ${file}`);
    },
  };
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
    // Issue 56 set 30,000/s for the embedded default (issues 14 and 15 had 20,000 and, for Kafka
    // + Mongo-wire, 15,000).
    const target = name === 'embedded' ? 30_000 : 15_000;
    const repeats = Number(args['replay-repeat']);
    if (!Number.isInteger(repeats) || repeats < 1) throw new Error(`--replay-repeat: a whole number of 1 or more, not ${args['replay-repeat']}`);
    const rates: number[] = [];
    console.log(`${name.padEnd(12)} bare consumer: ${total} events in ${bareSec.toFixed(1)} s = ${Math.round(total / bareSec)} events/s (the limit)`);
    for (let run = 1; run <= repeats; run++) {
      // One profile, of the first replay: the later ones repeat it.
      const profiler = args['replay-cpu-prof'] === undefined || run > 1 ? null : await startProfile();
      const started = performance.now();
      const job = await replay.start({ kind: 'beginning' });
      await replay.settled();
      const replaySec = (performance.now() - started) / 1000;
      if (profiler) await profiler.stop(`${args['replay-cpu-prof']}.${name}.cpuprofile`);
      const done = await replay.get(job._id);
      const rate = (done?.eventsApplied ?? 0) / replaySec;
      rates.push(rate);
      console.log(`${name.padEnd(12)} replay${repeats > 1 ? ` ${run}/${repeats}` : ''}:        ${done?.eventsApplied ?? 0} events in ${replaySec.toFixed(1)} s = ${Math.round(rate)} events/s (${done?.state}; target >= ${target.toLocaleString('en')}/s: ${rate >= target ? 'meets' : 'misses'}; ${(rate / (total / bareSec) * 100).toFixed(0)}% of the bare consumer)`);
    }
    if (repeats > 1) {
      const sorted = [...rates].sort((a, b) => a - b);
      const median = sorted[Math.floor(sorted.length / 2)] as number;
      console.log(`${name.padEnd(12)} replay median of ${repeats}: ${Math.round(median)} events/s (${Math.round(sorted[0] as number)}–${Math.round(sorted.at(-1) as number)}); target >= ${target.toLocaleString('en')}/s: ${median >= target ? 'meets' : 'misses'}`);
    }
    // The server's own speed in the same run, with the write shapes the replay sends.
    if (env.MONGO_URL) await bareBulkWrites(env.MONGO_URL, `${name.padEnd(12)} bare server, `, { docs: 20_000, ops: 500, rounds: 10 });
  } finally {
    await log.close();
    await store.close();
  }
}

async function runDeployment(name: string, env: Record<string, string>): Promise<void> {
  const config = loadConfig(env);
  const store = await createStore(config);
  const seedStarted = performance.now();
  const s = await seedReadModels(store);
  await store.close();
  const seedSec = (performance.now() - seedStarted) / 1000;
  const rss = Math.round(process.memoryUsage().rss / 2 ** 20);
  // This process is also the client that times the requests: the seeding's garbage (hundreds of
  // megabytes) left for later collections made its own pauses part of the routes' p99.
  collectGarbage();
  console.log(`${name.padEnd(12)} seeded ${SESSIONS} sessions (${s.open} open, ${s.awaiting} awaiting), ${SESSIONS * PER_SESSION} messages, ${s.payments} payments, ${CHATS} chats, ${s.buckets} report buckets in ${seedSec.toFixed(0)} s (buckets ${s.bucketSec.toFixed(1)} s; seed process rss ${rss} MiB); history from ${isoOf(seeded.firstFanAt.reduce((a, b) => Math.min(a, b), Infinity))} to ${isoOf(seeded.now)}`);
  if (ROUTES_TO_RUN.length) await benchApi(name, env);
  if (!args['skip-replay']) await benchReplay(name, env);
}

const mongoTooBig = SESSIONS * PER_SESSION > MONGO_MAX_MESSAGES && !args['mongo-heap-mb'];
const only = mongoTooBig && args.only !== 'kafka' ? 'embedded' : args.only;
console.log(`read benchmark: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}; ${WARMUP} warm-up and up to ${REQUESTS} timed requests per route (at most ${ROUTE_BUDGET_MS / 1000} s a route); routes: ${ROUTES}; API from ${serverRoot}`);
if (mongoTooBig && args.only !== 'embedded') {
  console.log(`kafka+mongo  skipped: ${SESSIONS * PER_SESSION} messages are more than mongo-java-server (every document and index in Java maps) holds on this machine; the limit here is ${MONGO_MAX_MESSAGES} (pass --mongo-heap-mb to try anyway)`);
  if (args.only === 'kafka') process.exit(1);
}
await onDeployments(only, runDeployment, Number(args['mongo-heap-mb'] ?? Math.max(6144, Math.ceil((SESSIONS * PER_SESSION) / 1_000_000) * 6144)));
