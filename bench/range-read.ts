// The embedded log's range read, alone: what GET /api/sessions/:id/explain and a rolled-back
// chat's re-derivation pay to find one chat's records in a partition. --records records of
// 8 KB on one partition, one in 100 the chat's; the range read --repeat times, keeping the chat's.
//   node --import tsx bench/range-read.ts [--records 20000] [--repeat 5]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { EmbeddedLog } from '../src/adapters/log/embedded-log.js';

const { values: args } = parseArgs({ options: { records: { type: 'string', default: '20000' }, repeat: { type: 'string', default: '5' } } });
const N = Number(args.records);
const dir = mkdtempSync(join(tmpdir(), 'convops-range-read-'));
const log = new EmbeddedLog(dir);
try {
  await log.createTopics([{ name: 't', partitions: 1 }]);
  const value = Buffer.alloc(8000, 7);
  const headers = { a: 'x', b: 'y', c: 'zzzzzzzzzzzzzzzzzzzz', d: '1', e: '2', f: '3' };
  for (let from = 0; from < N; from += 1000) {
    await log.append('t', Array.from({ length: Math.min(1000, N - from) }, (_, i) => ({ key: (from + i) % 100 === 0 ? 'target' : `k${from + i}`, value, partition: 0, headers })));
  }
  const ms: number[] = [];
  for (let r = 0; r < Number(args.repeat); r++) {
    const t = performance.now();
    const { records } = await log.readRange('t', 0, 0, N, (x) => x.key === 'target');
    ms.push(performance.now() - t);
    if (records.length !== Math.ceil(N / 100)) throw new Error(`kept ${records.length}`);
  }
  console.log(`range read of ${N} records of 8 KB, keeping ${Math.ceil(N / 100)}: ${ms.map((x) => x.toFixed(1)).join(' / ')} ms`);
} finally {
  await log.close();
  rmSync(dir, { recursive: true, force: true });
}
