// Rebuilds lmdb-js's native addon with one line of its LMDB fork removed, at install time.
//
// Why: lmdb-js 3.5.6's mdb_env_open2() stores the meta page it read at open into the shared
// lock file's last-committed transaction id (mti_txnid) in every process that opens the
// environment, without holding the write lock. When another process commits between that
// read and that store, mti_txnid goes back by one; the next writer starts from the previous
// meta page and overwrites the committed transaction. On the embedded deployment with the
// roles in several processes, a worker restarting while the API appended lost acknowledged
// webhooks this way (docs/benchmarks.md, "Issue 29"; test/adapters/embedded-open-race.int.test.ts).
// Upstream LMDB sets mti_txnid only when the opener is alone (mdb_env_share_locks), which
// still happens without this line.
//
// Plain JavaScript with no dependencies: it runs before anything else is installed or built.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const PINNED = '3.5.6';
const SOURCE = 'dependencies/lmdb/libraries/liblmdb/mdb.c';
const RACY = '\tif (env->me_txns)\n\t\tenv->me_txns->mti_txnid = meta.mm_txnid;\n';
const FIXED = '\t/* convops: mti_txnid is not stored here; see convops scripts/build-lmdb.mjs */\n';
const ESCAPE = 'CONVOPS_ALLOW_UNPATCHED_LMDB';

// A direct dependency, so npm installs it at the top of node_modules.
const lmdbDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', 'lmdb');
const version = JSON.parse(readFileSync(join(lmdbDir, 'package.json'), 'utf8')).version;
const stampFile = join(lmdbDir, 'build', 'convops-patch.json');
const addon = join(lmdbDir, 'build', 'Release', 'lmdb.node');

function fail(message) {
  console.error(`\nconvops: ${message}`);
  if (process.env[ESCAPE] === '1') {
    console.error(`convops: ${ESCAPE}=1, so installing with lmdb-js's prebuilt addon. Run the embedded deployment as one process only: several processes on one data folder can lose acknowledged writes.\n`);
    process.exit(0);
  }
  console.error(`convops: without this fix, several processes on one embedded data folder can lose acknowledged writes. Set ${ESCAPE}=1 to install anyway for a single-process setup.\n`);
  process.exit(1);
}

if (version !== PINNED) fail(`the LMDB fix is written for lmdb ${PINNED}, but ${version} is installed: check whether ${SOURCE} still stores mti_txnid in mdb_env_open2, then update scripts/build-lmdb.mjs`);

const sourcePath = join(lmdbDir, SOURCE);
let source = readFileSync(sourcePath, 'utf8');
if (!source.includes(FIXED)) {
  if (source.split(RACY).length !== 2) fail(`${SOURCE} does not hold the expected line exactly once; the fix cannot be applied`);
  source = source.replace(RACY, FIXED);
  writeFileSync(sourcePath, source);
}

// lmdb-js's direct V8 calls are built only for the Node majors it publishes builds with them
// for (20 and 22); on any other Node it loads Node-API only, as its own prebuilt does.
const major = process.versions.node.split('.')[0] ?? '';
const v8 = ['20', '22'].includes(major) ? [] : ['--enable_v8=false'];
const stamp = JSON.stringify({
  lmdb: version,
  source: createHash('sha256').update(source).update(readFileSync(join(lmdbDir, 'binding.gyp'))).digest('hex'),
  modules: process.versions.modules,
  v8,
  arch: process.arch,
});
if (existsSync(addon) && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) process.exit(0);

const nodeGyp = [process.env.npm_config_node_gyp, join(dirname(process.execPath), '../lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js')]
  .find((p) => p && existsSync(p));
if (!nodeGyp) fail('node-gyp was not found (it comes with npm); run the install through npm');
// Node's own headers when they sit beside the binary (Debian's nodejs, the official images and
// tarballs): node-gyp would otherwise download them.
const prefix = resolve(dirname(process.execPath), '..');
const nodedir = existsSync(join(prefix, 'include', 'node', 'node_api.h')) ? [`--nodedir=${prefix}`] : [];

console.log('convops: building lmdb-js with the multi-process fix (scripts/build-lmdb.mjs; about 30 s)');
const built = spawnSync(process.execPath, [nodeGyp, 'rebuild', ...nodedir, ...v8, '--jobs', 'max'], { cwd: lmdbDir, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
if (built.status !== 0 || !existsSync(addon)) {
  if (built.error) console.error(built.error);
  const lines = `${built.stdout ?? ''}\n${built.stderr ?? ''}`.split('\n');
  // The first errors say what is missing; node-gyp's own stack comes last.
  console.error([...lines.filter((l) => /error/i.test(l)).slice(0, 20), '...', ...lines.slice(-15)].join('\n'));
  fail('building lmdb-js failed (it needs python3, make and a C++ compiler, and Node\'s headers); its last lines are above');
}
writeFileSync(stampFile, stamp);
