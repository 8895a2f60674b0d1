// The service as test processes run it: src/ and machines/ transpiled to JavaScript once per
// run (esbuild, the transform tsx applies on every start), so a child process starts from
// plain modules as `npm start` does from dist/. Started through tsx, each of the suite's
// hundred-odd service processes spent about 4.7 CPU-seconds getting ready, against 2.6 from
// JavaScript: on two cores that was minutes of the kill and outage scenarios.
//
// The folder is named by a digest of the sources, and written aside then renamed into place:
// two test runs on one checkout share a build of the same sources, and a run never removes
// the modules another run's processes are starting from.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import { build, version } from 'esbuild';

const root = join(import.meta.dirname, '../..');
const CACHE = join(root, '.cache');
const PREFIX = 'service-';
/** Builds older than this are removed when a new one is made (no run lasts that long). */
const STALE_MS = 24 * 3600_000;

function sources(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/** Builds the service (unless a build of the same sources exists) and answers its entry module. */
export async function buildService(): Promise<string> {
  const files = [...sources(join(root, 'src')), ...sources(join(root, 'machines'))];
  const digest = createHash('sha256').update(version).update(readFileSync(join(root, 'tsconfig.json')));
  for (const f of files) digest.update(relative(root, f)).update('\0').update(readFileSync(f)).update('\0');
  // Directly under the root, so paths the code finds from its own folder (`../../../../web`) resolve.
  const out = join(CACHE, `${PREFIX}${digest.digest('hex').slice(0, 16)}`);
  const entry = join(out, 'src', 'main.js');
  if (existsSync(entry)) return entry;
  // A fresh clone has no .cache yet (the test servers' jars live in the user's cache folder).
  mkdirSync(CACHE, { recursive: true });
  const tmp = mkdtempSync(join(CACHE, 'building-'));
  await build({
    entryPoints: files, outdir: tmp, outbase: root, format: 'esm', platform: 'node', target: 'node20',
    sourcemap: 'inline', tsconfig: join(root, 'tsconfig.json'), logLevel: 'warning',
  });
  // The pages' files, where the code looks for them from its own folder.
  symlinkSync(relative(out, join(root, 'web')), join(tmp, 'web'));
  try {
    renameSync(tmp, out);
  } catch {
    // Another run put the same build in place first.
    rmSync(tmp, { recursive: true, force: true });
  }
  for (const e of readdirSync(CACHE)) {
    const p = join(CACHE, e);
    if (e.startsWith(PREFIX) && p !== out && Date.now() - statSync(p).mtimeMs > STALE_MS) rmSync(p, { recursive: true, force: true });
  }
  return entry;
}
