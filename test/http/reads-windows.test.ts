// Report windows (issue 14) against an oracle, through inject() on the reads routes. /api/sla, /api/chatters/scorecard,
// /api/overview and /api/accounts take `from`/`to` (and `accountId`); whatever rollups serve
// them, their answers must equal the reference model's reading of the same facts, filtered
// by time with plain comparisons (test/support/report-reference.ts). Data: fast-check
// conversations in several accounts with redeliveries, late copies and connector copies,
// each chat placed so that a session's first fan message sits a few milliseconds before or
// after an hour, day or month edge (some chats end minutes ago, so sessions are open and fans
// wait); windows: bounds at arbitrary milliseconds, at data times ±2 ms, on hour, day and
// month edges, in Z, offset and date-only forms, open on either side, empty, months long.
// A failure prints fast-check's seed and path: PROPERTY_SEED (which also regenerates the data
// set) and PROPERTY_PATH rerun it; PROPERTY_RUNS sets how many windows are checked.
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemoRecords } from '../../src/demo/fixtures.js';
import { messageWebhook, transactionWebhook } from '../../src/demo/platform-bodies.js';
import { mongoStoreEnv, startHarness, STORE_KINDS, type Harness } from '../support/app-harness.js';
import { conversationArb, type Arrival } from '../support/conversations.js';
import { reference, type Fact } from '../support/reference-model.js';
import {
  ACCOUNT_FIELDS, SLA_FIELDS, accountsAnswer, dateIn, dayStartIn, midnightIn, overviewAnswer, reportData, scorecardAnswer,
  slaAnswer, withOffset, zoneOffsetMs, type ReportData, type Window,
} from '../support/report-reference.js';
import { factOf } from '../support/webhook-facts.js';
import { eventually } from '../support/wait.js';

const ADMIN = 'admin-token-for-report-windows-00';
const CONNECTOR = 'connector-token-for-report-windows';

const IDLE_MS = 1_800_000;
/** The generator keeps every record within this of its chat's latest; the service allows a little more, for the milliseconds added below. */
const GEN_LATE_MS = 120_000;
const LATE_SEC = 125;
const HOUR = 3_600_000;
const DAY = 86_400_000;

const SEED = process.env.PROPERTY_SEED ? Number(process.env.PROPERTY_SEED) : (Date.now() ^ (Math.random() * 0x7fffffff)) | 0;
const RUNS = 120;
const params = <T>(numRuns: number): fc.Parameters<T> => ({
  numRuns: Number(process.env.PROPERTY_RUNS ?? numRuns), seed: SEED, ...(process.env.PROPERTY_PATH ? { path: process.env.PROPERTY_PATH } : {}),
});

/**
 * The stores the generated-data checks run on (REPORT_STORES=embedded to run one; the log is
 * embedded for both: the routes read only the store), each with a report time zone: St John's
 * (a half-hour offset, so its days and hours start at :30 UTC, and a DST change on 1 November
 * 2026 in the data's range) and the default, UTC, on the Mongo-wire server, whose queries
 * MongoDB itself answers.
 */
const SETUPS = ([
  { kind: 'embedded', timeZone: 'America/St_Johns' },
  { kind: 'mongo', timeZone: null },
] as const satisfies readonly { kind: 'embedded' | 'mongo'; timeZone: string | null }[])
  .filter((s) => (process.env.REPORT_STORES ?? 'embedded,mongo').split(',').includes(s.kind));

const ACCOUNTS = Array.from({ length: 5 }, (_, i) => `acct_${(0xe14a0 + i).toString(16).padStart(32, '0')}`);

// ---------------------------------------------------------------------------------------------
// The data set: what the reference reads (facts) and how it reaches the service (deliveries).

type Delivery =
  | { readonly kind: 'webhook'; readonly chatKey: string; readonly key: string; readonly body: string }
  | { readonly kind: 'connector'; readonly chatKey: string; readonly accountId: string; readonly chatId: string; readonly messageId: string; readonly sentAt: string; readonly chatterId: string };

interface DataSet {
  readonly facts: Fact[];
  /** Per account, in arrival order (sent chat by chat, chats side by side). */
  readonly lanes: Delivery[][];
  /** Deliveries of the long chat's first days: redelivered later, days of record time after. */
  readonly oldest: Delivery[];
  /** Hour, day and month edges the chats were placed at. */
  readonly edges: number[];
}

interface Placement {
  readonly index: number;
  readonly session: number;
  readonly deltaMs: number;
  readonly jitter: boolean;
  readonly salt: number;
}

const placementArb: fc.Arbitrary<Placement> = fc.record({
  index: fc.nat(100_000),
  session: fc.nat(6),
  // A few milliseconds before or after the edge, never on it.
  deltaMs: fc.tuple(fc.integer({ min: 1, max: 5 }), fc.boolean()).map(([d, before]) => (before ? -d : d)),
  jitter: fc.boolean(),
  salt: fc.nat(),
});

const dataArb = (genNow: number, timeZone: string) => fc.record({
  conversations: fc.tuple(...ACCOUNTS.map((account) => conversationArb({ idleMs: IDLE_MS, lateMs: GEN_LATE_MS, minSteps: 20, maxSteps: 60, withCloses: false, account }))),
  placements: fc.array(placementArb, { minLength: ACCOUNTS.length * 3, maxLength: ACCOUNTS.length * 3 }),
}).map(({ conversations, placements }) => buildDataSet(conversations.map((c) => c.arrivals), conversations.map((c) => c.facts), placements, genNow, timeZone));

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

const KINDS_OF_EDGE = ['month', 'day', 'hour', 'recent'] as const;

/** Month, day and hour edges in the report time zone, June to mid-November 2026; chat 1 sits on the day the clocks go back, chat 5 on the day after. */
function edgeOf(kind: (typeof KINDS_OF_EDGE)[number], index: number, chat: number, timeZone: string): number {
  const day = (k: number): number => dayStartIn(timeZone, Date.UTC(2026, 5, 2, 12) + k * DAY);
  switch (kind) {
    case 'month': return midnightIn(timeZone, `2026-${String(6 + (index % 6)).padStart(2, '0')}-01`);
    case 'day': return chat === 1 ? midnightIn(timeZone, '2026-11-01') : chat === 5 ? midnightIn(timeZone, '2026-11-02') : day(index % 170);
    // Whole hours after a midnight are hour edges there, DST days too (the change is an hour).
    case 'hour': return day((index >> 5) % 170) + (index % 24) * HOUR;
    default: return Number.NaN;
  }
}

function buildDataSet(arrivals: Arrival[][], generated: Fact[][], placements: Placement[], genNow: number, timeZone: string): DataSet {
  const facts: Fact[] = [];
  const lanes: Delivery[][] = [];
  const edges: number[] = [];
  arrivals.forEach((list, a) => {
    // Every chat gets its own placement: chats are independent, and each chat's own order (the
    // lateness the generator respects) survives a shift of all its times.
    const chats = [...new Set((generated[a] ?? []).map((f) => f.chat))].sort();
    const mapped = new Map<Fact, Fact>();
    for (const chat of chats) {
      const c = chats.indexOf(chat);
      const p = placements[a * 3 + c] as Placement;
      const kind = KINDS_OF_EDGE[(a * 3 + c) % KINDS_OF_EDGE.length] as (typeof KINDS_OF_EDGE)[number];
      const own = (generated[a] ?? []).filter((f) => f.chat === chat);
      // Milliseconds on some chats, per record id (a copy keeps its original's time); whole seconds on others.
      const jitter = (f: Fact): number => (p.jitter && f.kind !== 'close' ? hash(`${p.salt}:${f.id}`) % 1000 : 0);
      const jittered = own.map((f) => ({ ...f, at: f.at + jitter(f) }));
      const opens = [...reference(jittered, IDLE_MS).sessions.values()].map((s) => s.openedAt).sort((x, y) => x - y);
      let shift: number;
      if (kind === 'recent') {
        // Ends between 30 s and 60 min ago: its last session may still be open.
        shift = genNow - (30_000 + (p.index % 3600) * 1000) - Math.max(...jittered.map((f) => f.at));
      } else {
        const edge = edgeOf(kind, p.index, a * 3 + c, timeZone);
        edges.push(edge);
        const target = opens.length > 0 ? (opens[p.session % opens.length] as number) : Math.min(...jittered.map((f) => f.at));
        shift = edge + p.deltaMs - target;
      }
      own.forEach((f, i) => mapped.set(f, remap(jittered[i] as Fact, a, shift)));
    }
    for (const f of generated[a] ?? []) facts.push(mapped.get(f) as Fact);
    lanes.push(list.flatMap((arr) => (arr.kind === 'fact' ? [deliveryOf(mapped.get(arr.fact) as Fact, `evt_rw${a}_${arr.key}`)] : [])));
  });
  const long = longChat(ACCOUNTS[0] as string);
  const recent = recentChats(ACCOUNTS[1] as string, genNow);
  const local = midnightChat(ACCOUNTS[2] as string, timeZone);
  const ignored = unansweredChat(ACCOUNTS[3] as string);
  facts.push(...long.facts, ...recent.facts, ...local.facts, ...ignored.facts);
  (lanes[0] as Delivery[]).unshift(...long.deliveries);
  (lanes[1] as Delivery[]).unshift(...recent.deliveries);
  (lanes[2] as Delivery[]).unshift(...local.deliveries);
  (lanes[3] as Delivery[]).unshift(...ignored.deliveries);
  edges.push(Date.UTC(2026, 6, 1), Date.UTC(2026, 6, 3, 9), midnightIn(timeZone, '2026-08-15'));
  return { facts, lanes, oldest: long.deliveries.slice(0, 3), edges: [...new Set(edges)].sort((x, y) => x - y) };
}

/** Ids unique per account (the generator's repeat across accounts) and platform-shaped. */
function remap(f: Fact, a: number, shift: number): Fact {
  if (f.kind === 'close') return { ...f, at: f.at + shift };
  if (f.kind === 'payment') return { ...f, at: f.at + shift, id: `c${(a + 1).toString(16).padStart(3, '0')}${hash(f.id).toString(16).padStart(8, '0')}${f.id.replace(/\D/g, '').padStart(20, '0')}` };
  return { ...f, at: f.at + shift, id: `${a + 1}${f.id}` };
}

const iso = (at: number): string => new Date(at).toISOString();

function deliveryOf(f: Fact, key: string): Delivery {
  if (f.kind === 'close') throw new Error('no closes in this data set');
  if (f.kind === 'payment') {
    // The platform writes "YYYY-MM-DD HH:MM:SS"; the milliseconds go in as a fraction it may send.
    const body = JSON.parse(transactionWebhook({ accountId: f.account, fanId: f.chat, transactionId: f.id, createdAt: iso(f.at), type: 'tip', amountDollars: f.cents / 100 })) as { payload: Record<string, unknown> };
    body.payload.created_at = iso(f.at).replace('T', ' ').replace('Z', '');
    return { kind: 'webhook', chatKey: `${f.account}:${f.chat}`, key, body: JSON.stringify(body) };
  }
  if (f.sender === 'human' && f.chatter !== null) {
    return { kind: 'connector', chatKey: `${f.account}:${f.chat}`, accountId: f.account, chatId: f.chat, messageId: f.id, sentAt: iso(f.at), chatterId: f.chatter };
  }
  return {
    kind: 'webhook', chatKey: `${f.account}:${f.chat}`, key,
    body: messageWebhook({ accountId: f.account, fanId: f.chat, messageId: f.id, createdAt: iso(f.at), text: `m${f.id}`, direction: f.sender === 'fan' ? 'received' : 'sent', fromQueue: f.sender === 'automated' }),
  };
}

/** A chat over a week: a month edge crossed 2 ms after a fan's first message, an hour edge 1 ms after another's, activity outside sessions. */
function longChat(account: string): { facts: Fact[]; deliveries: Delivery[] } {
  const chat = '799999';
  const at = (s: string): number => Date.parse(s);
  const facts: Fact[] = [
    { kind: 'message', account, chat, id: '9100001', at: at('2026-06-28T10:00:00.000Z'), sender: 'fan', chatter: null },
    { kind: 'message', account, chat, id: '9100002', at: at('2026-06-28T10:00:42.400Z'), sender: 'human', chatter: 'ann' },
    { kind: 'payment', account, chat, id: 'c0ffee00000000000000000000000001', at: at('2026-06-28T10:05:00.000Z'), cents: 1234 },
    { kind: 'message', account, chat, id: '9100004', at: at('2026-06-30T23:59:59.998Z'), sender: 'fan', chatter: null },
    { kind: 'message', account, chat, id: '9100005', at: at('2026-07-01T00:00:03.100Z'), sender: 'human', chatter: null },
    { kind: 'message', account, chat, id: '9100005', at: at('2026-07-01T00:00:03.100Z'), sender: 'human', chatter: 'bo' },
    { kind: 'payment', account, chat, id: 'c0ffee00000000000000000000000002', at: at('2026-07-01T00:10:00.000Z'), cents: 2500 },
    { kind: 'message', account, chat, id: '9100007', at: at('2026-07-03T08:59:59.999Z'), sender: 'fan', chatter: null },
    { kind: 'message', account, chat, id: '9100008', at: at('2026-07-03T12:00:00.001Z'), sender: 'human', chatter: 'cy' },
    { kind: 'payment', account, chat, id: 'c0ffee00000000000000000000000003', at: at('2026-07-03T12:00:00.002Z'), cents: 999 },
  ];
  return { facts, deliveries: facts.map((f, i) => deliveryOf(f, `evt_rw_long_${i}`)) };
}

/** A session that opens 3 ms before midnight in the report time zone and goes on after it. */
function midnightChat(account: string, timeZone: string): { facts: Fact[]; deliveries: Delivery[] } {
  const t = midnightIn(timeZone, '2026-08-15') - 3;
  const chat = '799980';
  const facts: Fact[] = [
    { kind: 'message', account, chat, id: '9300001', at: t, sender: 'fan', chatter: null },
    { kind: 'message', account, chat, id: '9300002', at: t + 40_250, sender: 'human', chatter: 'bo' },
    { kind: 'message', account, chat, id: '9300003', at: t + 120_000, sender: 'fan', chatter: null },
    { kind: 'payment', account, chat, id: 'c0ffee00000000000000000000000005', at: t + 150_000, cents: 777 },
  ];
  return { facts, deliveries: facts.map((f, i) => deliveryOf(f, `evt_rw_midnight_${i}`)) };
}

/**
 * A fan who wrote twice and was never answered, long ago: a session closed with no first
 * response, which the generated chats hold only on some seeds (PROPERTY_SEED=15784487 had none).
 */
function unansweredChat(account: string): { facts: Fact[]; deliveries: Delivery[] } {
  const t = Date.UTC(2026, 8, 10, 14, 0, 0, 250);
  const chat = '799970';
  const facts: Fact[] = [
    { kind: 'message', account, chat, id: '9400001', at: t, sender: 'fan', chatter: null },
    { kind: 'message', account, chat, id: '9400002', at: t + 95_000, sender: 'fan', chatter: null },
  ];
  return { facts, deliveries: facts.map((f, i) => deliveryOf(f, `evt_rw_unanswered_${i}`)) };
}

/** Two chats that end minutes ago, so their sessions stay open: a fan waiting, a fan answered. */
function recentChats(account: string, genNow: number): { facts: Fact[]; deliveries: Delivery[] } {
  const t = genNow - 20 * 60_000;
  const facts: Fact[] = [
    { kind: 'message', account, chat: '799990', id: '9200001', at: t + 10 * 60_000 + 7, sender: 'fan', chatter: null },
    { kind: 'message', account, chat: '799991', id: '9200002', at: t, sender: 'fan', chatter: null },
    { kind: 'message', account, chat: '799991', id: '9200003', at: t + 1500, sender: 'human', chatter: 'cy' },
    { kind: 'payment', account, chat: '799991', id: 'c0ffee00000000000000000000000004', at: t + 90_000, cents: 4200 },
  ];
  return { facts, deliveries: facts.map((f, i) => deliveryOf(f, `evt_rw_recent_${i}`)) };
}

/** Sends again after a 503 (the log did not store it in time on a busy machine), as the platform and the connector do. */
async function untilStored(what: string, attempt: () => Promise<{ status: number; text: string }>): Promise<void> {
  for (let tries = 1; ; tries++) {
    const { status, text } = await attempt();
    if (status === 200) return;
    if (status !== 503 || tries === 5) throw new Error(`${what}: ${status} ${text}`);
    await new Promise((r) => setTimeout(r, 200 * tries));
  }
}

async function send(h: Harness, d: Delivery, key?: string): Promise<void> {
  if (d.kind === 'webhook') {
    await untilStored(`webhook ${d.key}`, () => h.webhook(d.body, { key: key ?? d.key }));
    return;
  }
  await untilStored(`connector ${d.messageId}`, () => h.call('POST', '/api/connector/ingest', {
    token: CONNECTOR, body: { accountId: d.accountId, messages: [{ chatId: d.chatId, messageId: d.messageId, text: `m${d.messageId}`, sentAt: d.sentAt, chatterId: d.chatterId }] },
  }));
}

/** Chats side by side, each chat's deliveries in their order (the order the lateness bound is about). */
async function sendAll(h: Harness, deliveries: readonly Delivery[]): Promise<void> {
  const byChat = new Map<string, Delivery[]>();
  for (const d of deliveries) byChat.set(d.chatKey, [...(byChat.get(d.chatKey) ?? []), d]);
  await Promise.all([...byChat.values()].map(async (lane) => { for (const d of lane) await send(h, d); }));
}

// ---------------------------------------------------------------------------------------------
// Windows

interface Bound { readonly ms: number; readonly text: string }
interface Case { readonly from: Bound | null; readonly to: Bound | null; readonly thresholdSec: number; readonly accountId: string | undefined }

const OFFSETS_MIN = [0, 60, 120, -300, 330, -570, 840, -720];

const floorHour = (t: number): number => t - (((t % HOUR) + HOUR) % HOUR);
/** The start of the hour around `t` on the clocks of `timeZone`. */
const floorLocalHour = (timeZone: string, t: number): number => {
  const offset = zoneOffsetMs(timeZone, t);
  return floorHour(t + offset) - offset;
};

function textsOf(ms: number): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constant(iso(ms)),
    fc.tuple(fc.constantFrom(...OFFSETS_MIN), fc.boolean()).map(([o, short]) => withOffset(ms, o, short)),
  );
}

/** Windows around the data: `points` are times in the data, `edges` hour/day/month edges. */
function caseArb(timeZone: string, points: readonly number[], edges: readonly number[], accounts: readonly string[], thresholds: readonly number[]): fc.Arbitrary<Case> {
  const lo = Math.min(...points) - 3 * DAY;
  const hi = Math.max(...points) + 3 * DAY;
  const months = Array.from({ length: 8 }, (_, m) => Date.UTC(2026, 4 + m, 1));
  const instant = fc.oneof(
    { weight: 2, arbitrary: fc.integer({ min: lo, max: hi }) },
    { weight: 5, arbitrary: fc.tuple(fc.constantFrom(...points), fc.integer({ min: -2, max: 2 })).map(([t, d]) => t + d) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...points), fc.integer({ min: -1, max: 1 })).map(([t, k]) => floorHour(t) + k * HOUR) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...points), fc.integer({ min: -1, max: 1 })).map(([t, k]) => floorLocalHour(timeZone, t) + k * HOUR) },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...edges), fc.integer({ min: -1, max: 1 })).map(([t, d]) => t + d) },
    { weight: 1, arbitrary: fc.constantFrom(...months, Date.UTC(2025, 0, 1), Date.UTC(2030, 0, 1)) },
  ).chain((ms) => textsOf(ms).map((text) => ({ ms, text })));
  // Day edges of the report time zone, written as dates or as instants.
  const day = fc.oneof(
    fc.tuple(fc.constantFrom(...points), fc.integer({ min: -1, max: 1 })).map(([t, k]) => dayStartIn(timeZone, t, k)),
    fc.constantFrom(...months.map((m) => midnightIn(timeZone, iso(m).slice(0, 10)))),
  ).chain((ms) => fc.oneof(fc.constant(dateIn(timeZone, ms)), textsOf(ms)).map((text) => ({ ms, text })));
  const bound = fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 5, arbitrary: instant }, { weight: 2, arbitrary: day });
  return fc.record({
    a: bound,
    b: bound,
    thresholdSec: fc.oneof(fc.integer({ min: 1, max: 86_400 }), fc.constantFrom(...thresholds)),
    accountId: fc.option(fc.constantFrom(...accounts), { nil: undefined, freq: 3 }),
  }).map(({ a, b, thresholdSec, accountId }) => {
    if (a && b && a.ms === b.ms) return { from: a, to: { ms: a.ms + 1, text: iso(a.ms + 1) }, thresholdSec, accountId };
    const swap = a && b && a.ms > b.ms;
    return { from: swap ? b : a, to: swap ? a : b, thresholdSec, accountId };
  });
}

/** Thresholds on the data's edges: first responses (and a second less), and how long unanswered closed sessions waited. */
function thresholdsOf(d: ReportData): number[] {
  const out = new Set<number>([1, 300, 1800, 86_400]);
  for (const s of d.sessions) {
    if (s.firstResponseSec !== null) [s.firstResponseSec, s.firstResponseSec - 1].forEach((x) => out.add(x));
    else if (s.closedAt !== null) [Math.floor((s.closedAt - s.openedAt) / 1000), Math.ceil((s.closedAt - s.openedAt) / 1000)].forEach((x) => out.add(x));
  }
  return [...out].filter((x) => x >= 1 && x <= 86_400);
}

function pointsOf(d: ReportData): number[] {
  return [...new Set([...d.sessions.map((s) => s.openedAt), ...d.messages.map((m) => m.at), ...d.payments.map((p) => p.at)])];
}

const describeCase = (c: Case): string =>
  `from=${c.from?.text ?? '(none)'} to=${c.to?.text ?? '(none)'} thresholdSec=${c.thresholdSec} accountId=${c.accountId ?? '(none)'}`;

// ---------------------------------------------------------------------------------------------
// Comparing answers with the reference

function query(c: Case, withThreshold: boolean): string {
  const q = new URLSearchParams();
  if (withThreshold) q.set('thresholdSec', String(c.thresholdSec));
  if (c.from) q.set('from', c.from.text);
  if (c.to) q.set('to', c.to.text);
  if (c.accountId) q.set('accountId', c.accountId);
  const s = q.toString();
  return s ? `?${s}` : '';
}

const pick = (o: any, keys: readonly string[]): Record<string, unknown> => Object.fromEntries(keys.map((k) => [k, o?.[k]]));
const windowOf = (c: Case): Window => ({ from: c.from?.ms ?? null, to: c.to?.ms ?? null });

/** The window a response says it covers, as instants. */
function echoedWindow(body: any): unknown {
  const w = body?.window;
  if (!w || typeof w !== 'object') return w;
  const instant = (v: unknown) => (v === null ? null : typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(v) ? Date.parse(v) : `not an ISO date-time: ${JSON.stringify(v)}`);
  return { from: instant(w.from), to: instant(w.to) };
}

function slaView(body: any) {
  return {
    ...pick(body, SLA_FIELDS),
    byAccount: (body?.byAccount ?? []).map((r: any) => pick(r, ['accountId', ...SLA_FIELDS])),
    byChatter: (body?.byChatter ?? []).map((r: any) => pick(r, ['chatterId', ...SLA_FIELDS])),
    window: echoedWindow(body),
  };
}

function expectedSla(d: ReportData, c: Case, now: number) {
  const a = slaAnswer(d, windowOf(c), c.thresholdSec, now, c.accountId);
  return {
    ...pick(a, SLA_FIELDS),
    byAccount: a.byAccount.map((r) => pick(r, ['accountId', ...SLA_FIELDS])),
    byChatter: a.byChatter.map((r) => pick(r, ['chatterId', ...SLA_FIELDS])),
    window: windowOf(c),
  };
}

const zeroSla = { sessions: 0, responded: 0, withinThreshold: 0, breaches: 0, missed: 0, pending: 0, withinThresholdPct: null, medianFirstResponseSec: null, p90FirstResponseSec: null };

/** Rows by chatter; a row there only for its open alerts (nothing in the window) is the alerts' business, not the window's. */
function scorecardView(body: any) {
  const rows: Record<string, unknown> = {};
  for (const r of body?.items ?? []) {
    const figures = { sessions: r.sessions, revenueCents: r.revenueCents, paymentCount: r.paymentCount, sla: pick(r.sla, SLA_FIELDS) };
    const alertsOnly = r.openAlerts > 0 && isDeepStrictEqual(figures, { sessions: 0, revenueCents: 0, paymentCount: 0, sla: zeroSla });
    if (!alertsOnly) rows[r.chatterId] = figures;
  }
  const ids = (body?.items ?? []).map((r: any) => r.chatterId);
  return { rows, distinct: new Set(ids).size === ids.length, window: echoedWindow(body) };
}

function expectedScorecard(d: ReportData, c: Case, now: number) {
  const rows: Record<string, unknown> = {};
  for (const [id, r] of scorecardAnswer(d, windowOf(c), c.thresholdSec, now, c.accountId)) rows[id] = { ...r, sla: pick(r.sla, SLA_FIELDS) };
  return { rows, distinct: true, window: windowOf(c) };
}

function overviewView(body: any) {
  return {
    accounts: body?.accounts, chats: body?.chats,
    sessions: pick(body?.sessions, ['total', 'open', 'closed', 'awaiting']),
    messages: pick(body?.messages, ['total', 'fromFans', 'outbound']),
    revenue: pick(body?.revenue, ['cents', 'payments']),
    lateRecords: body?.lateRecords,
    window: echoedWindow(body),
  };
}

function expectedOverview(d: ReportData, c: Case) {
  const w = windowOf(c);
  // The data has no late record: all time says 0; a window says null.
  return { ...overviewAnswer(d, w, c.accountId), lateRecords: c.from || c.to ? null : 0, window: w };
}

/** Accounts by id; a listed account with nothing in the window (all zeros) may be there or not: the contract does not say. */
function accountsView(body: any, accountId: string | undefined) {
  const rows: Record<string, unknown> = {};
  const others: string[] = [];
  for (const r of body?.items ?? []) {
    const figures = pick(r, ACCOUNT_FIELDS);
    if (accountId !== undefined && r.id !== accountId) others.push(r.id);
    if (Object.values(figures).some((v) => v !== 0)) rows[r.id] = figures;
  }
  return { rows, others, window: echoedWindow(body) };
}

function expectedAccounts(d: ReportData, c: Case) {
  const rows: Record<string, unknown> = {};
  for (const [id, a] of accountsAnswer(d, windowOf(c), c.accountId)) rows[id] = pick(a, ACCOUNT_FIELDS);
  return { rows, others: [] as string[], window: windowOf(c) };
}

/** Where two JSON-like values differ, as paths (a.b[2].c). */
function differingPaths(a: unknown, b: unknown, at = '', out: string[] = []): string[] {
  if (isDeepStrictEqual(a, b)) return out;
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) differingPaths((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], Array.isArray(a) ? `${at}[${k}]` : at ? `${at}.${k}` : k, out);
    return out;
  }
  out.push(`${at || '(whole)'}: system ${JSON.stringify(a)}, reference ${JSON.stringify(b)}`);
  return out;
}

function mustEqual(what: string, actual: unknown, expected: unknown): void {
  if (isDeepStrictEqual(actual, expected)) return;
  throw new Error(`[data set of PROPERTY_SEED=${SEED}] ${what}\n  differs at: ${differingPaths(actual, expected).slice(0, 20).join('\n              ')}\n  system:    ${JSON.stringify(actual)}\n  reference: ${JSON.stringify(expected)}`);
}

/** Equal to what the reference says at one of the two instants the request could have been answered at. */
function expectAtSomeNow<T>(what: string, actual: unknown, at: (now: number) => T, before: number, after: number): void {
  if (isDeepStrictEqual(actual, at(before))) return;
  mustEqual(what, actual, at(after));
}

/** All four routes for one window, against the reference. */
async function checkCase(h: Harness, d: ReportData, c: Case): Promise<void> {
  const label = describeCase(c);
  const before = Date.now();
  const [sla, cards, overview, accounts] = await Promise.all([
    h.call('GET', `/api/sla${query(c, true)}`),
    h.call('GET', `/api/chatters/scorecard${query(c, true)}`),
    h.call('GET', `/api/overview${query(c, false)}`),
    h.call('GET', `/api/accounts${query(c, false)}`),
  ]);
  const after = Date.now();
  mustEqual(`statuses ${label}: ${JSON.stringify([sla.body, cards.body, overview.body, accounts.body]).slice(0, 600)}`, [sla.status, cards.status, overview.status, accounts.status], [200, 200, 200, 200]);
  expectAtSomeNow(`GET /api/sla ${label}`, slaView(sla.body), (now) => expectedSla(d, c, now), before, after);
  expectAtSomeNow(`GET /api/chatters/scorecard ${label}`, scorecardView(cards.body), (now) => expectedScorecard(d, c, now), before, after);
  mustEqual(`GET /api/overview ${label}`, overviewView(overview.body), expectedOverview(d, c));
  mustEqual(`GET /api/accounts ${label}`, accountsView(accounts.body, c.accountId), expectedAccounts(d, c));
}

/** fast-check's own report names the seed and path; the data set comes from the same seed. */
async function assertWindows(property: fc.IAsyncProperty<[Case]>, numRuns: number): Promise<void> {
  try {
    await fc.assert(property, params<[Case]>(numRuns));
  } catch (err) {
    const cause = (err as Error).cause as Error | undefined;
    throw new Error(`data set and windows from PROPERTY_SEED=${SEED}${process.env.PROPERTY_PATH ? ` PROPERTY_PATH=${process.env.PROPERTY_PATH}` : ''}\n${(err as Error).message}${cause ? `\n\n${cause.message}` : ''}`, { cause: err });
  }
}

// ---------------------------------------------------------------------------------------------

describe.each(SETUPS.filter((s) => STORE_KINDS.includes(s.kind)).map((s) => [`${s.kind}, days in ${s.timeZone ?? 'UTC (the default)'}`, s] as const))('report windows over generated conversations on %s', (_label, { kind, timeZone: zone }) => {
  const timeZone = zone ?? 'UTC';
  let h: Harness;
  let data: DataSet;
  let ref: ReportData;
  let cases: fc.Arbitrary<Case>;

  beforeAll(async () => {
    const genNow = Date.now();
    data = fc.sample(dataArb(genNow, timeZone), { seed: SEED, numRuns: 1 })[0] as DataSet;
    h = await startHarness({
      ...(kind === 'mongo' ? await mongoStoreEnv() : {}),
      ADMIN_TOKEN: ADMIN, CONNECTOR_TOKEN: CONNECTOR, ROLES: 'api,processor,projector', ALERT_SWEEP_SEC: '0',
      SESSION_IDLE_SEC: String(IDLE_MS / 1000), ALLOWED_LATENESS_SEC: String(LATE_SEC), ...(zone ? { REPORT_TIMEZONE: zone } : {}),
    });
    await sendAll(h, data.lanes.flat());
    await h.settled(120_000);
    // Settle: a tick past the lateness closes every session idle by now (and lets out fan
    // messages held after an idle gap); sessions active in the last half hour stay open.
    const tickAt = Date.now() + LATE_SEC * 1000 + 1000;
    await h.tick(tickAt);
    await h.settled(120_000);
    ref = reportData(data.facts, IDLE_MS, tickAt - LATE_SEC * 1000);
    cases = caseArb(timeZone, pointsOf(ref), data.edges, ACCOUNTS, thresholdsOf(ref));
  }, 240_000);

  afterAll(async () => {
    await h?.stop();
  });

  it('the data set has what the windows must cut through', () => {
    const seed = `data set of PROPERTY_SEED=${SEED}`;
    const nearEdge = (t: number, unit: number): boolean => Math.abs(t - Math.round(t / unit) * unit) <= 5 && t % unit !== 0;
    const opens = ref.sessions.map((s) => s.openedAt);
    expect(opens.some((t) => nearEdge(t, HOUR)), seed).toBe(true);
    expect(opens.some((t) => nearEdge(t, DAY)), seed).toBe(true);
    // And of the report time zone's days (St John's: 02:30 or 03:30 UTC).
    expect(opens.some((t) => Math.min(t - dayStartIn(timeZone, t), dayStartIn(timeZone, t, 1) - t) <= 5 && t !== dayStartIn(timeZone, t)), seed).toBe(true);
    expect(ref.sessions.some((s) => dateIn(timeZone, s.openedAt) !== dateIn(timeZone, s.lastActivityAt)), seed).toBe(true);
    expect(ref.sessions.some((s) => s.status === 'open' && s.awaiting), seed).toBe(true);
    expect(ref.sessions.some((s) => s.status === 'closed' && s.firstResponseSec === null), seed).toBe(true);
    expect(new Set(ref.payments.map((p) => p.chatterId)).size, seed).toBeGreaterThan(2);
  });

  it('all time: the four routes equal the reference', async () => {
    for (const accountId of [undefined, ...ACCOUNTS]) await checkCase(h, ref, { from: null, to: null, thresholdSec: 300, accountId });
  });

  it('every window, threshold and account: the four routes equal the reference', async () => {
    await assertWindows(fc.asyncProperty(cases, (c) => checkCase(h, ref, c)), kind === 'embedded' ? RUNS : Math.ceil(RUNS / 4));
  }, 180_000);

  it('redelivered records, days of record time later and under other keys, change no report', async () => {
    const probe = fc.sample(cases, { seed: SEED + 1, numRuns: 20 });
    const stable = async () => Promise.all(probe.map(async (c) => [
      (await h.call('GET', `/api/overview${query(c, false)}`)).body, (await h.call('GET', `/api/accounts${query(c, false)}`)).body,
    ]));
    const before = await stable();
    const all = data.lanes.flat();
    const chosen = fc.sample(fc.shuffledSubarray(all, { minLength: Math.ceil(all.length / 4), maxLength: Math.ceil(all.length / 3) }), { seed: SEED + 2, numRuns: 1 })[0] ?? [];
    // The long chat's first records (days of record time behind its latest), again under their
    // own keys and under new ones (as backfill sends them), then a share of everything.
    for (const d of data.oldest) await send(h, d);
    for (const d of data.oldest) await send(h, d, `evt_rw_again_${d.kind === 'webhook' ? d.key : d.messageId}`);
    for (const d of data.lanes.map((l) => l[0])) if (d) await send(h, d);
    await sendAll(h, chosen);
    await h.settled(120_000);
    for (const c of [...probe, { from: null, to: null, thresholdSec: 300, accountId: undefined }]) await checkCase(h, ref, c);
    expect(await stable()).toEqual(before);
  }, 120_000);

  it('after a replay of the read models, every report is the same', async () => {
    const started = await h.call<{ statusUrl: string }>('POST', '/api/admin/replay', { token: ADMIN, body: {} });
    expect(started.status).toBe(202);
    const job = started.body;
    await eventually(async () => {
      const s = (await h.call<{ state: string }>('GET', job.statusUrl, { token: ADMIN })).body;
      if (s.state === 'failed') throw new Error(`replay failed: ${JSON.stringify(s)}`);
      return s.state === 'done' ? s : undefined;
    }, 120_000, 'replay to finish');
    await h.settled(120_000);
    await checkCase(h, ref, { from: null, to: null, thresholdSec: 300, accountId: undefined });
    await assertWindows(fc.asyncProperty(cases, (c) => checkCase(h, ref, c)), Math.ceil(RUNS / 4));
  }, 180_000);
});

// ---------------------------------------------------------------------------------------------

describe('report windows over the demo data, days in America/New_York', () => {
  const TZ = 'America/New_York';
  let h: Harness;
  let ref: ReportData;
  let accounts: string[];

  beforeAll(async () => {
    h = await startHarness({ ADMIN_TOKEN: ADMIN, ROLES: 'api,processor,projector', ALERT_SWEEP_SEC: '0', REPORT_TIMEZONE: TZ }, { driven: true });
    // Seeding again after a 503 is safe: the records carry idempotency keys.
    const seededAt = Date.now();
    await untilStored('seed-demo', async () => {
      return h.call('POST', '/api/admin/seed-demo', { token: ADMIN, body: { timeline: 'original' } });
    });
    await h.settled();
    // The demo records, read loosely; a reply's chatter is what the connector would add.
    const facts = loadDemoRecords().flatMap((r) => {
      const f = factOf(r.body);
      if (!f) return [];
      return [f.kind === 'message' && f.sender === 'human' && r.chatterId ? { ...f, chatter: r.chatterId } : f];
    });
    // No ticks, but seeding says each chat's history is complete: what ended before the seed
    // (less the lateness) is closed; months old, that is every session.
    ref = reportData(facts, IDLE_MS, seededAt - LATE_SEC * 1000);
    accounts = [...new Set(ref.sessions.map((s) => s.account))].sort();
  }, 120_000);

  afterAll(async () => {
    await h?.stop();
  });

  it('a few windows equal the reference', async () => {
    const at = (text: string): Bound => ({ ms: Date.parse(text), text });
    const date = (text: string): Bound => ({ ms: midnightIn(TZ, text), text });
    const fixed: Omit<Case, 'accountId'>[] = [
      { from: null, to: null, thresholdSec: 300 },
      { from: date('2026-06-05'), to: date('2026-06-06'), thresholdSec: 300 },
      { from: date('2026-06-04'), to: null, thresholdSec: 120 },
      { from: null, to: date('2026-06-05'), thresholdSec: 600 },
      { from: at('2026-06-05T10:00:00Z'), to: at('2026-06-05T11:00:00Z'), thresholdSec: 300 },
      { from: at('2026-06-05T12:30:00.250+02:00'), to: at('2026-06-07T01:00:00-04:00'), thresholdSec: 60 },
      { from: date('2026-06-01'), to: date('2026-07-01'), thresholdSec: 86_400 },
      { from: at('2026-06-20T00:00:00Z'), to: null, thresholdSec: 300 },
    ];
    expect(ref.sessions.length).toBeGreaterThan(100);
    for (const c of fixed) for (const accountId of [undefined, accounts[0]]) await checkCase(h, ref, { ...c, accountId });
  });

  it('random windows equal the reference', async () => {
    const edges = [...new Set(pointsOf(ref).map((t) => dayStartIn(TZ, t)))];
    await assertWindows(fc.asyncProperty(caseArb(TZ, pointsOf(ref), edges, accounts, thresholdsOf(ref)), (c) => checkCase(h, ref, c)), Math.ceil(RUNS / 5));
  }, 120_000);

  const BAD: [string, 'from' | 'to'][] = [
    ['from=yesterday', 'from'],
    ['to=2026-13-01', 'to'],
    ['from=2026-06-10T10:00:00Z&to=2026-06-10T09:00:00Z', 'to'],
    // Beyond the three the brief names, from the same contract: an empty window, a date that
    // does not exist (Date.parse takes it as 2 March), a time without a zone.
    ['from=2026-06-10T09:00:00Z&to=2026-06-10T11:00:00%2B02:00', 'to'],
    ['to=2026-02-30', 'to'],
    ['from=2026-06-10T09:00:00', 'from'],
  ];
  const badAnswers = async () => {
    const out: { what: string; field: string; status: number; body: any }[] = [];
    for (const route of ['/api/sla', '/api/chatters/scorecard', '/api/overview', '/api/accounts']) {
      for (const [q, field] of BAD) out.push({ what: `${route}?${q}`, field, ...(await h.call('GET', `${route}?${q}`)) });
    }
    return out;
  };

  it('refuses a window it cannot read, or one that ends before it starts, with a 400 naming the field', async () => {
    const wrong = (await badAnswers()).filter((a) => a.status !== 400 || !new RegExp(`\\b${a.field}\\b`).test(String(a.body?.message)));
    expect(wrong.map((a) => `${a.what}: expected 400 naming ${a.field}, got ${a.status} ${JSON.stringify(a.body)}`)).toEqual([]);
  });

  it('says INVALID_INPUT, as every other 400 of the API', async () => {
    expect([...new Set((await badAnswers()).map((a) => String(a.body?.code)))]).toEqual(['INVALID_INPUT']);
  });
});
