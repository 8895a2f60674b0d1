// What schema serialisation does to an answer: the inbox answer (GET /api/sessions, 50 and 500
// rows, built by the route's own view) serialised by JSON.stringify (no response schema), by
// fast-json-stringify from the schema as TypeBox writes it (Fastify's default), and by the
// service's serializer (src/http/serializer.ts: the same schema without `anyOf` for nullable
// fields and choices of words). The three must write the same bytes. Alternated, several rounds.
//   node --import tsx bench/serialise.ts [--requests 20000] [--rounds 3]
import fastJson from 'fast-json-stringify';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { SessionListSchema } from '../src/http/routes/reads.js';
import { sessionView } from '../src/http/views.js';
import type { SessionDoc } from '../src/read-models/sessions/projection.js';
import { gradeSteps } from '../src/domain/sla.js';
import { serializerSchema } from '../src/http/serializer.js';

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
    firstResponseBusinessSec: null, waitBusinessSec: null,
    fanSpendCents: i % 2 === 0 ? 12_345 : null, priorityAt: waiting ? openedAt : null, closesAt: openedAt + 7_200_000, closesAs: waiting ? 'unanswered' : 'idle', lastSeq: 20,
  };
}

function answerOf(rows: number) {
  const items = Array.from({ length: rows }, (_, i) => sessionView(session(i), now, 300, i % 7 === 0 ? 1 : 0));
  return { items, count: items.length, limit: rows, sort: 'priority' as const, thresholdSec: 300, gradeSteps: gradeSteps(300) };
}

type Serialise = (body: unknown) => string;

function perCallUs(serialise: Serialise, body: unknown, n: number): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) serialise(body);
  return Number(process.hrtime.bigint() - start) / 1000 / n;
}

console.log(`serialisation benchmark: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), node ${process.version}, ${REQUESTS} calls per run at 50 rows (a tenth at 500), ${ROUNDS} rounds`);
const ways: [string, Serialise][] = [
  ['JSON.stringify', JSON.stringify],
  ['fast-json-stringify, schema as written', fastJson(SessionListSchema as Parameters<typeof fastJson>[0]) as Serialise],
  ['fast-json-stringify, serializer schema', fastJson(serializerSchema(SessionListSchema) as Parameters<typeof fastJson>[0]) as Serialise],
];
for (const rows of [50, 500]) {
  const body = answerOf(rows);
  const bytes = JSON.stringify(body);
  for (const [name, serialise] of ways) if (serialise(body) !== bytes) throw new Error(`${name} writes other bytes than JSON.stringify`);
  const n = rows === 50 ? REQUESTS : Math.max(100, REQUESTS / 10);
  for (const [, serialise] of ways) perCallUs(serialise, body, n / 10);
  const runs = ways.map(() => [] as number[]);
  for (let r = 0; r < ROUNDS; r++) ways.forEach(([, serialise], i) => runs[i]?.push(perCallUs(serialise, body, n)));
  console.log(`GET /api/sessions answer, ${rows} rows (${Math.round(bytes.length / 1024)} KiB), µs per call over ${ROUNDS} rounds (identical bytes):`);
  ways.forEach(([name], i) => console.log(`  ${name.padEnd(40)} ${(runs[i] ?? []).map((x) => x.toFixed(1)).join(' / ')}`));
}
