// What schema serialisation does to an answer: the same inbox answer (GET /api/sessions, 50 or
// 500 rows, built by the route's own view) sent by a route that declares its response schema
// (Fastify serialises with fast-json-stringify) and by one that does not (JSON.stringify),
// through inject() so nothing but the serialisation differs. Alternated, several rounds.
//   node --import tsx bench/serialise.ts [--requests 20000] [--rounds 3]
import Fastify, { type FastifyInstance } from 'fastify';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { SessionListSchema } from '../src/http/routes/reads.js';
import { sessionView } from '../src/http/views.js';
import type { SessionDoc } from '../src/projector/models/sessions/projection.js';
import { gradeSteps } from '../src/domain/sla.js';

const { values: args } = parseArgs({ options: { requests: { type: 'string', default: '20000' }, rounds: { type: 'string', default: '3' } } });
const REQUESTS = Number(args.requests);
const ROUNDS = Number(args.rounds);

const now = Date.now();
function session(i: number): SessionDoc {
  const openedAt = now - 3_600_000 + i * 1000;
  const waiting = i % 3 === 0;
  return {
    _id: `acct_0000000000000000000000000000bench:${1_000_000 + i}:1`, sessionId: `acct_0000000000000000000000000000bench:${1_000_000 + i}:1`,
    accountId: 'acct_0000000000000000000000000000bench', chatId: String(1_000_000 + i), chatKey: `acct_0000000000000000000000000000bench:${1_000_000 + i}`,
    status: 'open', openedAt, closedAt: null, closeReason: null, lastMessageAt: openedAt + 60_000, lastActivityAt: openedAt + 60_000,
    messageCount: 12, fanMessageCount: 7, replyCount: 5, awaiting: waiting, waitingSince: waiting ? openedAt + 60_000 : null,
    firstFanMessageAt: openedAt, firstResponseAt: openedAt + 45_000, firstResponseSec: 45, firstResponderId: `chatter_${i % 5}`,
    lastHumanChatterId: `chatter_${i % 5}`, revenueCents: i % 4 === 0 ? 2500 : 0, paymentCount: i % 4 === 0 ? 1 : 0,
    fanSpendCents: i % 2 === 0 ? 12_345 : null, priorityAt: waiting ? openedAt : null, closesAt: openedAt + 7_200_000, lastSeq: 20,
  };
}

function answerOf(rows: number) {
  const items = Array.from({ length: rows }, (_, i) => sessionView(session(i), now, 300, i % 7 === 0 ? 1 : 0));
  return { items, count: items.length, limit: rows, sort: 'priority' as const, thresholdSec: 300, gradeSteps: gradeSteps(300) };
}

async function serverFor(body: unknown, withSchema: boolean): Promise<FastifyInstance> {
  const app = Fastify();
  app.get('/api/sessions', withSchema ? { schema: { response: { 200: SessionListSchema } } } : {}, async () => body);
  await app.ready();
  return app;
}

async function perRequestUs(app: FastifyInstance, n: number): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await app.inject({ url: '/api/sessions' });
  return Number(process.hrtime.bigint() - start) / 1000 / n;
}

console.log(`serialisation benchmark: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), node ${process.version}, ${REQUESTS} requests per run, ${ROUNDS} rounds`);
for (const rows of [50, 500]) {
  const body = answerOf(rows);
  const [typed, plain] = await Promise.all([serverFor(body, true), serverFor(body, false)]);
  const a = await typed.inject({ url: '/api/sessions' });
  const b = await plain.inject({ url: '/api/sessions' });
  if (a.body !== b.body) throw new Error('the two answers differ: the schema drops or changes a field');
  const n = Math.max(200, Math.round(REQUESTS / rows * 50));
  await perRequestUs(typed, n / 10);
  await perRequestUs(plain, n / 10);
  const results: { schema: number; plain: number }[] = [];
  for (let r = 0; r < ROUNDS; r++) results.push({ schema: await perRequestUs(typed, n), plain: await perRequestUs(plain, n) });
  const fmt = (xs: number[]) => xs.map((x) => x.toFixed(1)).join(' / ');
  console.log(`GET /api/sessions, ${rows} rows (${Math.round(a.body.length / 1024)} KiB): with the response schema ${fmt(results.map((x) => x.schema))} µs per request; JSON.stringify ${fmt(results.map((x) => x.plain))} µs (rounds, ${n} requests each); identical bytes`);
  await Promise.all([typed.close(), plain.close()]);
}
