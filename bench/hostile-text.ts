// Hostile-text benchmark (issue 13): how long one webhook record with a pathological text holds
// the event loop in the processor (normalise + step, which run synchronously), before and after
// the text cleaner was made to cut first and scan once.
//   node --import tsx bench/hostile-text.ts [--sizes 100000,1000000] [--old-budget-ms 30000] [--runs 5]
// "before" runs the old cleaner (`/<[^>]*>/g` over the whole text) on its own. It is quadratic
// on the hostile texts, so a size whose run would take more than --old-budget-ms (projected
// from the previous size as time x (size ratio)^2) is not run but given as that projection,
// marked "extrapolated". "after" is the whole record path as the processor
// runs it; monitorEventLoopDelay, sampling every 10 ms while the records are processed one per
// macrotask, gives the longest stall it saw as a cross-check.
import { cpus } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { initialChatState, step } from '../machines/step.js';
import type { InboundMeta } from '../src/domain/inbound-record.js';
import { parseJson } from '../src/domain/json.js';
import { normalise, plainText } from '../src/domain/normalise.js';
import { oldPlainText } from '../test/support/old-text-clean.js';

const { values } = parseArgs({ options: {
  sizes: { type: 'string', default: '100000,1000000' },
  'old-budget-ms': { type: 'string', default: '30000' },
  runs: { type: 'string', default: '5' },
} });
const SIZES = values.sizes.split(',').map(Number);
const OLD_BUDGET_MS = Number(values['old-budget-ms']);
const RUNS = Number(values.runs);

const KINDS: Record<string, (n: number) => string> = {
  '`<` x n': (n) => '<'.repeat(n),
  'nested `<a<b<c…`': (n) => 'abcdefghijklmnopqrstuvwxyz'.split('').map((c) => `<${c}`).join('').repeat(Math.ceil(n / 52)).slice(0, n),
  // Any run of 16+ digits in a body (a fan can type one) sends it to the lossless JSON parser,
  // which keeps ids beyond 2^53 exact and is ~20x slower than JSON.parse.
  '`<` x n after a 16-digit number': (n) => `1234567890123456 ${'<'.repeat(n - 17)}`,
  'normal HTML': (n) => '<p>Hey, how are you? <b>Miss you</b> &amp; more<br/></p>'.repeat(Math.ceil(n / 52)).slice(0, n),
};

const T0 = Date.parse('2026-06-10T12:00:00Z');
function record(text: string, i: number): { meta: InboundMeta; raw: Buffer } {
  const body = {
    event: 'messages.received', account_id: 'acct_bench',
    payload: { id: 7_000_000 + i, text, createdAt: new Date(T0 + i).toISOString(), price: 0, fromUser: { id: 613_001 }, isFromQueue: false },
  };
  return {
    meta: { source: 'webhook', event: 'messages.received', accountId: 'acct_bench', chatId: '613001', dedupeKey: `evt_${i}`, receivedAt: T0 + i },
    raw: Buffer.from(JSON.stringify(body)),
  };
}

const ms = (from: bigint): number => Number(process.hrtime.bigint() - from) / 1e6;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const fmt = (x: number): string => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));

interface Row { kind: string; size: number; before: string; after: number; afterMax: number; parse: number; clean: number; loopMax: number }
const rows: Row[] = [];
let lastOld = new Map<string, { size: number; ms: number }>();

// Warm up both cleaners and the record path on small texts, so the first row is not the JIT's.
for (let i = 0; i < 300; i++) {
  for (const make of Object.values(KINDS)) {
    const r = record(make(2000), i);
    oldPlainText(make(2000));
    step(initialChatState({ accountId: 'acct_bench', chatId: 'warm', idleMs: 1_800_000, lateMs: 120_000, unansweredMs: 86_400_000 }), normalise(r.meta, r.raw));
  }
}

for (const [kind, make] of Object.entries(KINDS)) {
  for (const size of SIZES) {
    const text = make(size);
    // Before: the old cleaner alone, on the full text.
    let before: string;
    const known = lastOld.get(kind);
    const projected = known ? known.ms * (size / known.size) ** 2 : 0;
    if (projected <= OLD_BUDGET_MS) {
      const t = process.hrtime.bigint();
      oldPlainText(text);
      const took = ms(t);
      lastOld.set(kind, { size, ms: took });
      before = `${fmt(took)} ms`;
    } else {
      before = `~${fmt(projected)} ms (extrapolated)`;
    }
    // After: the whole synchronous record path, one record per macrotask, as the processor does.
    const recs = Array.from({ length: RUNS }, (_, i) => record(text, i));
    const after: number[] = [];
    const parse: number[] = [];
    const clean: number[] = [];
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    for (const [i, r] of recs.entries()) {
      await new Promise<void>((resolve) => setImmediate(() => {
        const t = process.hrtime.bigint();
        const input = normalise(r.meta, r.raw);
        step(initialChatState({ accountId: 'acct_bench', chatId: `613001-${i}`, idleMs: 1_800_000, lateMs: 120_000, unansweredMs: 86_400_000 }), input);
        after.push(ms(t));
        if (input.type !== 'chat.message') throw new Error(`expected a message, got ${input.type}`);
        resolve();
      }));
      // Parts, measured apart: parsing the body and cleaning its text.
      let t = process.hrtime.bigint();
      parseJson(r.raw.toString('utf8'));
      parse.push(ms(t));
      t = process.hrtime.bigint();
      plainText(text);
      clean.push(ms(t));
      await new Promise((r2) => setTimeout(r2, 20));
    }
    loop.disable();
    rows.push({ kind, size, before, after: median(after), afterMax: Math.max(...after), parse: median(parse), clean: median(clean), loopMax: loop.max / 1e6 });
  }
  lastOld = new Map();
}

console.log(`hostile-text benchmark: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), node ${process.version}, median of ${RUNS} records`);
console.log('| text | size | before: old cleaner alone | after: normalise + step (median / max) | body parse alone | new cleaner alone | event loop max delay |');
console.log('|---|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(`| ${r.kind} | ${r.size >= 1e6 ? `${r.size / 1e6} MB` : `${r.size / 1e3} KB`} | ${r.before} | ${fmt(r.after)} / ${fmt(r.afterMax)} ms | ${fmt(r.parse)} ms | ${fmt(r.clean)} ms | ${fmt(r.loopMax)} ms |`);
}
