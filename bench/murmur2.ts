// murmur2 benchmark (issue 27): µs per key hash, ours against kafkajs 2.2.4's, by key length.
//   node --import tsx bench/murmur2.ts [--kafkajs-max 65536] [--budget-ms 300]
// Both hash a string key the way the partitioners do (UTF-8 bytes, then murmur2), so the
// encoding is in both figures; a second column gives our murmur2 alone over bytes encoded once. kafkajs's time grows with the square of the key's length, so it
// runs only up to --kafkajs-max bytes. Each figure is the mean over as many hashes as fit in
// --budget-ms (at least 3), after one warm-up hash.
import { cpus } from 'node:os';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { murmur2 } from '../src/adapters/log/murmur2.js';

const { values } = parseArgs({ options: {
  'kafkajs-max': { type: 'string', default: String(64 * 1024) },
  'budget-ms': { type: 'string', default: '300' },
} });
const KAFKAJS_MAX = Number(values['kafkajs-max']);
const BUDGET_NS = BigInt(Number(values['budget-ms']) * 1e6);

const kafkajsMurmur2 = createRequire(import.meta.url)('kafkajs/src/producer/partitioners/default/murmur2.js') as (key: string) => number;
const ours = (key: string): number => murmur2(Buffer.from(key, 'utf8'));

function usPerHash<K>(hash: (key: K) => number, key: K): { us: number; runs: number; result: number } {
  let result = hash(key);
  let runs = 0;
  const start = process.hrtime.bigint();
  let elapsed = 0n;
  while (runs < 3 || elapsed < BUDGET_NS) {
    result = hash(key);
    runs++;
    elapsed = process.hrtime.bigint() - start;
  }
  return { us: Number(elapsed) / 1e3 / runs, runs, result };
}

const fmt = (us: number): string => us < 10 ? us.toFixed(2) : us < 1000 ? us.toFixed(1) : Math.round(us).toLocaleString('en-US');

console.log(`Node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model.trim()})`);
console.log('| key | ours µs/hash | of which murmur2 over the bytes | kafkajs µs/hash | kafkajs / ours |');
console.log('|---|---|---|---|---|');
for (const [label, bytes] of [['64 B', 64], ['1 KiB', 1024], ['64 KiB', 64 * 1024], ['1 MiB', 1024 * 1024]] as const) {
  // Varied ASCII, so the key is as many bytes as characters.
  const key = Array.from({ length: bytes }, (_, i) => String.fromCharCode(0x21 + ((i * 7919) % 94))).join('');
  const a = usPerHash(ours, key);
  const hashOnly = usPerHash(murmur2, Buffer.from(key, 'utf8'));
  if (bytes > KAFKAJS_MAX) {
    console.log(`| ${label} | ${fmt(a.us)} | ${fmt(hashOnly.us)} | not run | |`);
    continue;
  }
  const b = usPerHash(kafkajsMurmur2, key);
  if (a.result !== b.result) throw new Error(`hashes differ at ${label}: ours ${a.result}, kafkajs ${b.result}`);
  console.log(`| ${label} | ${fmt(a.us)} | ${fmt(hashOnly.us)} | ${fmt(b.us)} | ${Math.round(b.us / a.us).toLocaleString('en-US')}x |`);
}
