// `npm start`: builds only when a source changed since the last build (a start that compiles
// every time waits 13-30 s for nothing), then runs the service in this process, so signals
// reach it as they would reach `node dist/src/main.js`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const stamp = join(root, 'dist', '.built');
const lock = join(root, 'dist', '.building');
const inputs = ['src', 'machines', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];

function newest(path) {
  const st = statSync(path, { throwIfNoEntry: false });
  if (!st) return 0;
  if (!st.isDirectory()) return st.mtimeMs;
  let max = st.mtimeMs; // a deleted file changes its folder's time
  for (const name of readdirSync(path)) max = Math.max(max, newest(join(path, name)));
  return max;
}

const stale = () => {
  const builtAt = existsSync(stamp) ? statSync(stamp).mtimeMs : 0;
  return { builtAt, changed: Math.max(...inputs.map((p) => newest(join(root, p)))) > builtAt };
};

/** One build at a time: a second start (the api and the worker of a trial) waits for the first's. */
async function build() {
  mkdirSync(join(root, 'dist'), { recursive: true });
  for (let waited = 0; ; waited += 500) {
    try {
      mkdirSync(lock);
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      // A lock older than ten minutes was left by a build that died.
      if (Date.now() - statSync(lock).mtimeMs > 600_000) rmdirSync(lock);
      else await new Promise((r) => setTimeout(r, 500));
      if (waited === 0) process.stderr.write('convops: waiting for another start\'s build...\n');
    }
  }
  try {
    const { builtAt, changed } = stale();
    if (!changed) return;
    process.stderr.write(builtAt === 0 ? 'convops: building (first start)...\n' : 'convops: building (sources changed since the last build)...\n');
    // The stamp takes the time the build began: a file saved during it is newer, and rebuilt next time.
    const began = new Date();
    const tsc = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
    if (tsc.error) {
      process.stderr.write(`convops: the build could not run (${tsc.error.message}); run npm ci first\n`);
      process.exit(1);
    }
    if (tsc.status !== 0) process.exit(tsc.status ?? 1);
    writeFileSync(stamp, `${began.toISOString()}\n`);
    utimesSync(stamp, began, began);
    process.stderr.write(`convops: built in ${((Date.now() - began.getTime()) / 1000).toFixed(1)} s\n`);
  } finally {
    rmdirSync(lock);
  }
}

if (stale().changed) await build();
await import(pathToFileURL(join(root, 'dist', 'src', 'main.js')).href);
