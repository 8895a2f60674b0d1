// Shift reports at scale (issue 51): 200 chatters on 10 accounts, each with a weekly roster
// (day and night shifts, across midnight, Europe/Berlin) and a year of clock intervals, 100,000
// sessions, 30,000 payments and the chatters' replies (about a million messages), written straight
// into an embedded store, and the report buckets built from them as a projector would. Times, as p50 / p99 over repeated calls in this process, of what the
// routes compute: the shift report of this week and of 30 days, the pay view, who is on now,
// clocked time; and, as the floor to compare with, the one indexed read of the window's sessions
// the shift report makes.
//   node --import tsx bench/shifts.ts [--chatters 200] [--sessions 100000] [--repeat 60] [--rounds 1] [--now <ISO time>] [--keep <dir>] [--only <part of a line's label>] [--dist]
// --rounds N: every line measured N times, the lines taking turns (so the floor and the report
// meet the same moments of a shared machine), and each figure given as the median of the rounds',
// with the rounds' p99s beside it.
// --keep: seed into <dir> and leave it there; a later run with the same --keep reads it as it is
// (the seed is a minute and a half; comparing two versions of the code needs the same data).
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { collectGarbage } from './collect-garbage.js';
import { mulberry32 } from '../src/demo/random.js';
import type { Roster } from '../src/domain/roster.js';
import type { ClockIntervalDoc } from '../src/read-models/clock-intervals/projection.js';
import type { MessageDoc } from '../src/read-models/messages/projection.js';
import type { PaymentDoc } from '../src/read-models/payments/projection.js';
import type { SessionDoc } from '../src/read-models/sessions/projection.js';

// --dist: the code timed (and the store) as `npm start` runs it, compiled by `npm run build`.
// Through tsx, esbuild keeps function names, a call for every closure made: about half of a
// week's report in this bench.
const { values: args } = parseArgs({ options: { chatters: { type: 'string', default: '200' }, sessions: { type: 'string', default: '100000' }, repeat: { type: 'string', default: '60' }, keep: { type: 'string' }, only: { type: 'string' }, dist: { type: 'boolean', default: false }, rounds: { type: 'string', default: '1' }, now: { type: 'string' } } });
const root = args.dist ? '../dist/src' : '../src';
const load = <T>(path: string): Promise<T> => import(`${root}/${path}`) as Promise<T>;
const { EmbeddedStore } = await load<typeof import('../src/adapters/store/embedded-store.js')>('adapters/store/embedded-store.js');
const { ChatterStore } = await load<typeof import('../src/accounts/chatter-store.js')>('accounts/chatter-store.js');
const { RosterStore } = await load<typeof import('../src/accounts/roster-store.js')>('accounts/roster-store.js');
const { plannedShifts } = await load<typeof import('../src/domain/roster.js')>('domain/roster.js');
const { clockedIntervals, onNow } = await load<typeof import('../src/read-models/clock-intervals/queries.js')>('read-models/clock-intervals/queries.js');
const { ReadModelSet } = await load<typeof import('../src/read-models/read-model-set.js')>('read-models/read-model-set.js');
const { payReport, shiftReport } = await load<typeof import('../src/read-side/shift-report.js')>('read-side/shift-report.js');
const { shiftCreditOf } = await load<typeof import('../src/read-models/shift-credits.js')>('read-models/shift-credits.js');
const { ensureReportBuckets } = await load<typeof import('../src/read-models/report-buckets/backfill.js')>('read-models/report-buckets/backfill.js');
const { shiftWindow } = await load<typeof import('../src/http/routes/shifts.js')>('http/routes/shifts.js');
const { createLogger } = await load<typeof import('../src/support/logger.js')>('support/logger.js');

const CHATTERS = Number(args.chatters);
const SESSIONS = Number(args.sessions);
const count = (name: string, v: string | undefined): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 100_000) throw new Error(`--${name}: a whole number from 1 to 100000, not ${v}`);
  return n;
};
const REPEAT = count('repeat', args.repeat);
const ROUNDS = count('rounds', args.rounds);
const ACCOUNTS = 10;
const DAY = 86_400_000;
const MIN = 60_000;
const IDLE_MS = 30 * MIN;

const rand = mulberry32(51);
const dir = args.keep ?? mkdtempSync(join(tmpdir(), 'convops-bench-shifts-'));
const SEEDED = join(dir, 'seeded-at');
const seeded = existsSync(SEEDED);
// A kept seed is read as of when it was seeded: "this week" is that week.
// --now <ISO time>: seed as if it were then (a kept seed keeps it): where in the week the
// default window's "now" falls decides how much of it is settled.
const asked = args.now === undefined ? Date.now() : Date.parse(args.now);
if (!Number.isFinite(asked)) throw new Error(`--now: not a time: ${args.now}`);
if (seeded && args.now !== undefined) console.log(`--now ignored: ${dir} was seeded before, and is read as of then`);
const now = seeded ? Number(readFileSync(SEEDED, 'utf8')) : asked;
const store = new EmbeddedStore(dir);
const models = new ReadModelSet(store);
await models.ensureIndexes(1);
const rm = models.at(1);
const rosters = new RosterStore(store);
const chatters = new ChatterStore(store);
const account = (i: number) => `acct_bench_${i % ACCOUNTS}`;
const chatterId = (i: number) => `chatter${String(i).padStart(3, '0')}`;

async function seed(): Promise<void> {
  const started = performance.now();
  // Rosters: day shifts Monday to Friday, or night shifts Sunday to Thursday nights (across midnight).
  const intervals: ClockIntervalDoc[] = [];
  let messages: MessageDoc[] = [];
  let messageCount = 0;
  const flushMessages = async () => {
    if (messages.length === 0) return;
    await rm.messages.bulkWrite(messages.map((d) => ({ insertOne: { document: d } })));
    messageCount += messages.length;
    messages = [];
  };
  for (let c = 0; c < CHATTERS; c++) {
    const id = chatterId(c);
    const acct = account(c);
    const night = c % 3 === 0;
    const roster: Roster = {
      timezone: 'Europe/Berlin',
      weekly: (night ? ['sun', 'mon', 'tue', 'wed', 'thu'] as const : ['mon', 'tue', 'wed', 'thu', 'fri'] as const).map((day) => ({ accountId: acct, day, start: night ? '22:00' : '08:00', end: night ? '06:00' : '16:00' })),
      oneOff: [], absences: [],
    };
    await rosters.set(id, roster, 'bench', now);
    await chatters.set(id, { displayName: `Chatter ${c}`, accountIds: [acct], commissionPct: 10, active: true }, 'bench', now);
    // A year of shifts, clocked in a little late or early, out a little early; one in twenty never clocked out (idled out).
    for (const p of plannedShifts(roster, now - 365 * DAY, now, id)) {
      if (rand() < 0.05) continue;
      const inAt = p.start + Math.floor((rand() - 0.3) * 15 * MIN);
      // One in twenty idles out two hours in: the next clock-in records it (an automatic clock-out).
      const idled = rand() < 0.05;
      const outAt = p.end > now ? null : idled ? inAt + 2 * 3_600_000 + IDLE_MS : p.end - Math.floor(rand() * 20 * MIN);
      intervals.push({ _id: `${acct}:_clock.${id}:${intervals.length}`, accountId: acct, chatterId: id, inAt, outAt, inBy: 'bench', outBy: outAt === null ? null : 'bench', outAutomatic: idled && outAt !== null, lastSeq: intervals.length });
      // Replies every ten to thirty minutes while on.
      const until = Math.min(idled ? inAt + 2 * 3_600_000 : outAt ?? p.end, now);
      for (let t = inAt + Math.floor(rand() * 10 * MIN); t < until; t += (10 + Math.floor(rand() * 20)) * MIN) {
        const n = messageCount + messages.length;
        messages.push({ _id: `${acct}:m${n}`, messageId: `m${n}`, accountId: acct, chatId: String(1000 + (n % 2000)), chatKey: `${acct}:${1000 + (n % 2000)}`, sender: 'human', chatterId: id, sentAt: t, deleted: false, deletedAt: null, tombstone: false, lastSeq: 1 } as MessageDoc);
        if (messages.length >= 20_000) await flushMessages();
      }
    }
  }
  await flushMessages();
  await rm.clock_intervals.bulkWrite(intervals.map((d) => ({ insertOne: { document: d } })));
  // Sessions and payments over the year, answered and credited by the account's chatters.
  const byAccount = Array.from({ length: ACCOUNTS }, (_, a) => Array.from({ length: CHATTERS }, (_, c) => c).filter((c) => c % ACCOUNTS === a).map(chatterId));
  for (let start = 0; start < SESSIONS; start += 20_000) {
    const sessions: SessionDoc[] = [];
    const payments: PaymentDoc[] = [];
    for (let i = start; i < Math.min(SESSIONS, start + 20_000); i++) {
      const a = i % ACCOUNTS;
      const at = now - Math.floor(rand() * 365 * DAY);
      const who = byAccount[a]?.[Math.floor(rand() * (byAccount[a]?.length ?? 1))] ?? null;
      const answered = rand() < 0.9;
      const sec = answered ? Math.floor(5 + rand() * 1800) : null;
      sessions.push({
        _id: `${account(a)}:s${i}:1`, accountId: account(a), chatId: `s${i}`, firstFanMessageAt: at, firstResponderId: answered ? who : null, firstResponseSec: sec,
        firstResponseAt: sec === null ? null : at + sec * 1000, openedAt: at, status: 'closed', closedAt: at + 2 * 3_600_000,
      } as unknown as SessionDoc);
      if (rand() < 0.3) payments.push({ _id: `${account(a)}:p${i}`, paymentId: `p${i}`, accountId: account(a), chatId: `s${i}`, paidAt: at + 10 * MIN, grossCents: 500 + Math.floor(rand() * 5000), chatterId: who } as unknown as PaymentDoc);
    }
    await rm.sessions.bulkWrite(sessions.map((d) => ({ insertOne: { document: d } })));
    await rm.payments.bulkWrite(payments.map((d) => ({ insertOne: { document: d } })));
  }
  console.log(`seeded ${CHATTERS} chatters on ${ACCOUNTS} accounts, ${intervals.length} clock intervals (a year of shifts), ${messageCount} replies, ${SESSIONS} sessions in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  writeFileSync(SEEDED, String(now));
}

console.log(`code timed: ${args.dist ? 'dist/ (npm run build), as npm start runs it' : 'src/ through tsx'}`);
if (seeded) console.log(`read the seed kept in ${dir} (seeded at ${new Date(now).toISOString()})`);
else await seed();
// The report buckets, as a projector starting on these documents builds them (once per contributions
// format): the shift figures read the window's sessions and payments from them (work-digest.ts).
const built = performance.now();
await ensureReportBuckets(store, models, 1, createLogger('silent'));
console.log(`report buckets ready in ${((performance.now() - built) / 1000).toFixed(1)} s`);
// The calls are timed in this process (collect-garbage.ts says why).
collectGarbage();

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
}

/** Garbage collections as they happen (start and duration, ms): how much of a slow call they were. */
const collections: [number, number][] = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) collections.push([e.startTime, e.duration]);
}).observe({ entryTypes: ['gc'] });

interface Round { readonly p50: number; readonly p95: number; readonly p99: number; readonly what: string; readonly slow: number; readonly slowMs: number; readonly gcInSlow: number }

async function round(run: () => Promise<string>): Promise<Round> {
  for (let i = 0; i < 5; i++) await run();
  const calls: [start: number, ms: number][] = [];
  let what = '';
  for (let i = 0; i < REPEAT; i++) {
    const t = performance.now();
    what = await run();
    calls.push([t, performance.now() - t]);
  }
  // Let the observer report the last collections before they are matched to calls.
  await new Promise((r) => setTimeout(r, 50));
  const times = calls.map(([, ms]) => ms).sort((a, b) => a - b);
  // The slowest calls (those past p95): how much of them was garbage collection, the rest
  // being the machine's (a shared VM's other tenants) or the call's own.
  const p95 = percentile(times, 95);
  const slow = calls.filter(([, ms]) => ms > p95);
  const gcInSlow = slow.reduce((n, [t, ms]) => n + collections.filter(([at]) => at >= t && at <= t + ms).reduce((m, [, d]) => m + d, 0), 0);
  return { p50: percentile(times, 50), p95, p99: percentile(times, 99), what, slow: slow.length, slowMs: slow.reduce((n, [, ms]) => n + ms, 0), gcInSlow };
}

const lines: { label: string; run: () => Promise<string> }[] = [];
function measure(label: string, run: () => Promise<string>): void {
  if (args.only === undefined || label.includes(args.only)) lines.push({ label, run });
}

const median = (xs: number[]): number => percentile([...xs].sort((a, b) => a - b), 50);

async function report(): Promise<void> {
  const rounds = new Map<string, Round[]>(lines.map((l) => [l.label, []]));
  for (let r = 0; r < ROUNDS; r++) for (const l of lines) rounds.get(l.label)?.push(await round(l.run));
  for (const l of lines) {
    const rs = rounds.get(l.label) ?? [];
    const last = rs.at(-1) as Round;
    const of = (k: 'p50' | 'p95' | 'p99') => median(rs.map((x) => x[k])).toFixed(1);
    const each = ROUNDS > 1 ? `; p99 of each round: ${rs.map((x) => x.p99.toFixed(0)).join(', ')}` : '';
    const gc = `past p95: ${rs.reduce((n, x) => n + x.slow, 0)} calls, ${rs.reduce((n, x) => n + x.slowMs, 0).toFixed(0)} ms, of it GC ${rs.reduce((n, x) => n + x.gcInSlow, 0).toFixed(0)} ms`;
    console.log(`${l.label.padEnd(44)} p50 ${of('p50').padStart(7)} ms  p95 ${of('p95').padStart(6)} ms  p99 ${of('p99').padStart(7)} ms  (${last.what}; ${gc}${each})`);
  }
}

// The 7 days before now: a whole week of settled shifts, those on now and those the window cuts
// (the costliest week). The route's default is this local week (shiftWindow), which on the seed's
// day may be mostly ahead.
const week = { from: now - 7 * DAY, to: now };
const thisWeek = shiftWindow({}, now, 'UTC');
const month = { from: now - 30 * DAY, to: now };
const q = (w: { from: number; to: number }) => ({ ...w, inScope: {}, model: 'session' as const, thresholdSec: 300, clockIdleMs: IDLE_MS, noShowGraceMs: 10 * MIN, now });
measure('floor: the window\'s sessions, one read (week)', async () => `${(await rm.sessions.find({ firstFanMessageAt: { $gte: week.from, $lt: week.to } }, { projection: { accountId: 1, firstFanMessageAt: 1, firstResponderId: 1, firstResponseSec: 1 } })).length} sessions`);
measure('clocked intervals (week)', async () => `${(await clockedIntervals(rm, {}, week.from, week.to, IDLE_MS, now)).length} intervals`);
measure('on now', async () => `${(await onNow(rm, {}, IDLE_MS, now)).length} on`);
measure('GET /api/shifts (the 7 days to now)', async () => `${(await shiftReport(rm, rosters, chatters, q(week))).shifts.length} shifts`);
measure('GET /api/shifts (this week: the default)', async () => `${(await shiftReport(rm, rosters, chatters, q(thisWeek))).shifts.length} shifts, ${Math.round((now - thisWeek.from) / 3_600_000)} h of the week past`);
measure('GET /api/shifts?accountId= (week)', async () => `${(await shiftReport(rm, rosters, chatters, { ...q(week), inScope: { accountId: account(3) } })).shifts.length} shifts`);
measure('GET /api/shifts (30 days)', async () => `${(await shiftReport(rm, rosters, chatters, q(month))).shifts.length} shifts`);
measure('GET /api/chatters/pay (week)', async () => `${(await payReport(rm, chatters, { ...week, inScope: {}, model: 'session', clockIdleMs: IDLE_MS, now })).length} chatters`);
measure('GET /api/shifts?model=shift (week)', async () => `${(await shiftReport(rm, rosters, chatters, { ...q(week), model: 'shift' })).shifts.length} shifts`);
measure('GET /api/chatters/pay?model=shift (week)', async () => `${(await payReport(rm, chatters, { ...week, inScope: {}, model: 'shift', clockIdleMs: IDLE_MS, now })).length} chatters`);
// What model=shift adds to the scorecard and conversion report of a window: its credit, read and joined.
measure('shift credit (week)', async () => `${[...(await shiftCreditOf(rm, week, {}, IDLE_MS, now)).values()].reduce((n, m) => n + m.size, 0)} chatter credits`);
measure('shift credit (30 days)', async () => `${[...(await shiftCreditOf(rm, month, {}, IDLE_MS, now)).values()].reduce((n, m) => n + m.size, 0)} chatter credits`);
await report();
await store.close();
if (args.keep === undefined) rmSync(dir, { recursive: true, force: true });
