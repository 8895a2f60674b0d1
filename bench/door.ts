// What the door's bounds cost per webhook (issue 27): the route's own work on the platform's
// real sample bodies, before (parse, structure walk, routing) and with the bounds (well-formed
// text, ids, and the normaliser's field checks through refusalOf). CPU time, so a busy machine
// moves it less than wall time. Run: node --import tsx bench/door.ts [--rounds N]
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { malformedTextPath } from '../src/domain/bounds.js';
import { parseCheckedJson, parseJson, unsafeStructure } from '../src/domain/json.js';
import { refusalOf } from '../src/domain/normalise.js';
import { routeWebhook } from '../src/domain/webhook-route.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '20000' } } });
const rounds = Number(values.rounds);
const dir = join(import.meta.dirname, '../../shared/platform/samples');
const bodies = readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => {
  const { _meta, ...b } = JSON.parse(readFileSync(join(dir, f), 'utf8')) as Record<string, unknown>;
  return Buffer.from(JSON.stringify(b));
});
const now = Date.parse('2026-07-01T00:00:00Z');

function cpuMicros(fn: () => void): number {
  for (let i = 0; i < 2_000; i++) fn();
  const t0 = process.cpuUsage();
  for (let i = 0; i < rounds; i++) fn();
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / rounds;
}

let i = 0;
const next = (): Buffer => bodies[i++ % bodies.length] as Buffer;
const before = cpuMicros(() => {
  const raw = next();
  const body = parseJson(raw.toString('utf8'));
  unsafeStructure(body);
});
const bounded = cpuMicros(() => {
  const raw = next();
  const text = raw.toString('utf8');
  routeWebhook(parseJson(text), 'evt_0000000000000000000000000000000000000001', raw, now, text);
});
const text = cpuMicros(() => {
  const raw = next();
  const t = raw.toString('utf8');
  malformedTextPath(parseJson(t), t);
});
const fields = cpuMicros(() => {
  const raw = next();
  const body = parseJson(raw.toString('utf8')) as { event: string; account_id: string };
  refusalOf({ source: 'webhook', event: body.event, accountId: body.account_id, chatId: '1', dedupeKey: 'k', receivedAt: now }, body);
});
// The parse the door makes now: the structure walk and the duplicate-key count (issue 54).
const checked = cpuMicros(() => {
  parseCheckedJson(next().toString('utf8'));
});
// The ingest bench's size: a message of about 8 KB, its text full of quotes and escapes.
const big = Buffer.from(JSON.stringify({ ...(JSON.parse((bodies.find((b) => b.includes('"messages.received"')) ?? bodies[0] as Buffer).toString()) as object), text: 'say "hi" \\ then '.repeat(220) }));
const bigBefore = cpuMicros(() => {
  unsafeStructure(parseJson(big.toString('utf8')));
});
const bigChecked = cpuMicros(() => {
  parseCheckedJson(big.toString('utf8'));
});
const bytes = bodies.reduce((a, b) => a + b.length, 0) / bodies.length;
console.log(`door on the ${bodies.length} real samples (mean ${Math.round(bytes)} bytes), ${rounds} rounds, CPU µs per webhook (Node ${process.version}):`);
console.log(`  parse + structure walk (the door before the bounds): ${before.toFixed(1)}`);
console.log(`  routeWebhook with every bound:                       ${bounded.toFixed(1)}  (+${(bounded - before).toFixed(1)})`);
console.log(`  of which, with its parse: well-formed text check     ${text.toFixed(1)}`);
console.log(`  of which, with its parse: field bounds (refusalOf)   ${fields.toFixed(1)}`);
console.log(`  the door's parse now (walk + duplicate-key count):   ${checked.toFixed(1)}  (+${(checked - before).toFixed(1)} on parse + walk)`);
console.log(`  a ${big.length}-byte body: parse + walk ${bigBefore.toFixed(1)}, the door's parse now ${bigChecked.toFixed(1)} (+${(bigChecked - bigBefore).toFixed(1)})`);
