// The quality rules' cost per reply (src/domain/qa-rules.ts), which the projector pays for each
// human message it folds into the report buckets: typical replies, flagged ones, and a 10,000-
// character one (the longest text the messages read model keeps). Median of --repeat runs.
//   node --import tsx bench/qa-rules.ts [--runs 200000] [--repeat 5]
import { parseArgs } from 'node:util';
import { qaFlags } from '../src/domain/qa-rules.js';

const { values: args } = parseArgs({ options: { runs: { type: 'string', default: '200000' }, repeat: { type: 'string', default: '5' } } });
const RUNS = Number(args.runs);
const REPEAT = Number(args.repeat);

const SETS: Record<string, readonly string[]> = {
  typical: ['hi babe, just got back!', 'of course, give me a sec', 'I made something just for you', 'hey you, what are you up to tonight? loved your last post'],
  flagged: ['add me on telegram babe', 'send it on cash app', 'see https://linktr.ee/me', 'my tag is $luna_vip'],
  long: ['just for you '.repeat(770)],
};

for (const [name, texts] of Object.entries(SETS)) {
  const perRun: number[] = [];
  let found = 0;
  for (let r = 0; r < REPEAT; r++) {
    const runs = name === 'long' ? Math.ceil(RUNS / 100) : RUNS;
    const t = performance.now();
    for (let i = 0; i < runs; i++) found += qaFlags(texts[i % texts.length] as string).length;
    perRun.push(((performance.now() - t) * 1000) / runs);
  }
  perRun.sort((a, b) => a - b);
  console.log(`qa rules, ${name} replies: ${(perRun[Math.floor(REPEAT / 2)] as number).toFixed(2)} µs a reply (median of ${REPEAT}; range ${(perRun[0] as number).toFixed(2)}–${(perRun[REPEAT - 1] as number).toFixed(2)}; ${found} flags)`);
}
