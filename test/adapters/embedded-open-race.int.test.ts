// A process opening the embedded log's folder while another appends must not cost an
// acknowledged record. lmdb-js 3.5.6 as published stores, in every process that opens an
// environment, the meta page it read at open as the last committed transaction, without the
// write lock; a commit in between is then overwritten by the next writer. On the embedded
// deployment with its roles in several processes that lost webhooks answered 200 whenever a
// worker restarted mid-ingest. scripts/build-lmdb.mjs rebuilds lmdb-js without that store at
// install time; this file checks the build is the one loaded and that the race is gone.
//
// Processes, not threads: the race is between processes (one process shares one environment).
// The folder is on tmpfs when there is one: commits there are not held up by fsync, so far
// more of them land inside an opener's window (the published addon lost records in every run
// of this scenario tried so far; see docs/benchmarks.md).
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedLog } from '../../src/adapters/log/embedded-log.js';
import { result, scenario } from '../support/hang-scenario.js';

const logModule = join(import.meta.dirname, '../../src/adapters/log/embedded-log.ts');
const base = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
let dir = '';
const RUN_MS = 8000;
const OPENERS = 3;

const prelude = (): string => `
  import { EmbeddedLog } from ${JSON.stringify(logModule)};
  const dir = ${JSON.stringify(dir)};
  const until = Date.now() + ${RUN_MS};
`;

describe('the embedded log with several processes on one folder', () => {
  beforeAll(() => { dir = mkdtempSync(join(base, 'convops-open-race-')); });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('loads lmdb-js as rebuilt by the install, from the fixed source, for this Node', async () => {
    await import('lmdb');
    expect(readFileSync('/proc/self/maps', 'utf8')).toMatch(/node_modules\/lmdb\/build\/Release\/lmdb\.node/);
    const lmdb = join(import.meta.dirname, '../../node_modules/lmdb');
    const source = readFileSync(join(lmdb, 'dependencies/lmdb/libraries/liblmdb/mdb.c'));
    expect(source.toString()).toContain('convops: mti_txnid is not stored here');
    // The stamp the build wrote says which source and which Node it was built from.
    const stamp = JSON.parse(readFileSync(join(lmdb, 'build/convops-patch.json'), 'utf8')) as { source: string; modules: string };
    expect(stamp).toMatchObject({
      source: createHash('sha256').update(source).update(readFileSync(join(lmdb, 'binding.gyp'))).digest('hex'),
      modules: process.versions.modules,
    });
  });

  it('keeps every acknowledged record while other processes open the folder again and again', async () => {
    // This process keeps the folder open throughout, as a deployment's other processes do, so no
    // opener is ever the last to close it. (The last to close an LMDB environment destroys the
    // lock file's mutexes, and one opening at that moment gets them destroyed: a separate LMDB
    // race, which crashed this test's openers in one run while the appender was still starting.)
    const holder = new EmbeddedLog(dir);
    await holder.createTopics([{ name: 'race', partitions: 1 }]);
    await holder.endOffsets('race');

    // One appender, as the API is; openers, as restarting workers are.
    const appender = scenario(prelude(), `
      const log = new EmbeddedLog(dir);
      const acked = [];
      while (Date.now() < until) {
        const key = 'k' + acked.length;
        const [at] = await log.append('race', [{ key, value: key }]);
        acked.push([at.offset, key]);
      }
      await log.close();
      console.log(JSON.stringify(acked));
    `, RUN_MS + 30_000);
    const openers = Array.from({ length: OPENERS }, () => scenario(prelude(), `
      let opens = 0;
      while (Date.now() < until) {
        const log = new EmbeddedLog(dir);
        await log.endOffsets('race');
        await log.close();
        opens++;
      }
      console.log(JSON.stringify(opens));
    `, RUN_MS + 30_000));
    const outcomes = await Promise.all([appender, ...openers]);
    await holder.close();
    const acked = result<[number, string][]>(outcomes[0] ?? { code: null, hung: false, out: '' });
    const opens = outcomes.slice(1).map((o) => result<number>(o));
    expect(acked.length).toBeGreaterThan(500);
    expect(Math.min(...opens)).toBeGreaterThan(50);

    const log = new EmbeddedLog(dir);
    const stored = new Map((await log.readRange('race', 0, 0, Number.MAX_SAFE_INTEGER)).records.map((r) => [r.offset, r.key]));
    await log.close();
    const lost = acked.filter(([offset, key]) => stored.get(offset) !== key)
      .map(([offset, key]) => `${key} acknowledged at ${offset}, now ${stored.get(offset) ?? 'nothing'}`);
    expect(lost, `${acked.length} appends acknowledged, ${opens.join('/')} opens`).toEqual([]);
  }, 90_000);
});
