// `npm start`: builds only when a source changed since the last build (a start that compiles
// every time waits 13-30 s for nothing), then runs the service in this process, so signals
// reach it as they would reach `node dist/src/main.js`.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const stamp = join(root, 'dist', '.built');
const inputs = ['src', 'machines', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];

function newest(path) {
  const st = statSync(path, { throwIfNoEntry: false });
  if (!st) return 0;
  if (!st.isDirectory()) return st.mtimeMs;
  let max = st.mtimeMs; // a deleted file changes its folder's time
  for (const name of readdirSync(path)) max = Math.max(max, newest(join(path, name)));
  return max;
}

const builtAt = existsSync(stamp) ? statSync(stamp).mtimeMs : 0;
const changedAt = Math.max(...inputs.map((p) => newest(join(root, p))));
if (changedAt > builtAt) {
  process.stderr.write(builtAt === 0 ? 'convops: building (first start)...\n' : 'convops: building (sources changed since the last build)...\n');
  const began = Date.now();
  const tsc = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (tsc.status !== 0) process.exit(tsc.status ?? 1);
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
  process.stderr.write(`convops: built in ${((Date.now() - began) / 1000).toFixed(1)} s\n`);
}
await import(pathToFileURL(join(root, 'dist', 'src', 'main.js')).href);
