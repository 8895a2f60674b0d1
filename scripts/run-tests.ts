// The whole test suite: type-check, lint, dead-code check (knip), OpenAPI lint and vitest (whose
// provisioner starts Kafka and the Mongo-wire server when a test first needs them), then one
// summary line
// "tests: N passed, N failed[, N skipped]".
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startProvisioner } from '../test/infra/provisioner.js';

const root = join(import.meta.dirname, '..');
mkdirSync(join(root, '.cache'), { recursive: true });

interface Finished { readonly status: number | null; readonly output: string }

/** A child whose output is held, so it never interleaves with vitest's. */
function held(args: string[], env: Record<string, string> = {}): { child: ChildProcess; done: Promise<Finished> } {
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => { output += d.toString(); });
  child.stderr?.on('data', (d: Buffer) => { output += d.toString(); });
  return { child, done: new Promise((resolve) => child.on('close', (status) => resolve({ status, output }))) };
}

// The checks run beside vitest: vitest spends its first half-minute starting the brokers and then
// often waits on restarts, group joins and timers, time the type-check and the lint (each about
// one core for half a minute to a minute) fill. A check's failure is printed the moment it is known,
// and fails the run at the end: stopping vitest early would orphan its workers and the brokers
// its global setup started (it does not tear down on a signal).
const checks = [
  { name: 'type-check', hint: '', run: held([join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json', '--noEmit']) },
  // Lint and format rules (eslint.config.js): a floating promise or a misused one fails the suite like a test.
  { name: 'lint', hint: '; `npm run format` fixes the formatting', run: held([join(root, 'node_modules/eslint/bin/eslint.js'), '.']) },
  // Dead code (knip.config.ts): an export nothing imports, an unused file or dependency fails the suite.
  { name: 'knip', hint: '; see knip.config.ts', run: held([join(root, 'node_modules/knip/bin/knip.js')]) },
  // The committed OpenAPI document against Redocly's recommended rules (redocly.yaml): no error,
  // no warning. (A test keeps the file equal to what the service serves.)
  { name: 'openapi lint', hint: '; see redocly.yaml', run: held([join(root, 'node_modules/@redocly/cli/bin/cli.js'), 'lint', '--max-problems', '50', 'docs/openapi.json'], { REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' }) },
];
// The tests' temporary folders go in one folder of this run's, so what a test leaves behind is
// seen (and fails the run) instead of piling up in the system's temporary directory.
const runTmp = mkdtempSync(join(tmpdir(), 'convops-test-run-'));
// Two lanes, each a vitest of one worker: the scenarios (vitest.config.ts) one after another, and
// everything else beside them. The scenarios mostly wait (restarts, group joins, drains) while the
// other files are mostly CPU; two scenarios at once each took about twice as long and loaded the
// machine the kill scenarios measure. Vitest cannot give one project one worker and another two
// in one run, hence two. They share one provisioner, so each test server starts once, when a
// file of either lane first needs it.
const provisioner = await startProvisioner({ given: { kafka: process.env.KAFKA_BROKERS || undefined, mongo: process.env.MONGO_URL || undefined } });
// Interrupted (Ctrl-C, CI's stop): the JVMs it started go with the run instead of outliving it.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => { void provisioner.stop().finally(() => process.exit(130)); });
}
const lanes = ['scenarios', 'unit+integration'].map((project) => {
  const results = join(root, '.cache', `vitest-results-${project.replace(/\W/g, '-')}.json`);
  rmSync(results, { force: true });
  const child = spawn(process.execPath, [join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--project', project, '--reporter=default', '--reporter=json', `--outputFile.json=${results}`, ...process.argv.slice(2)], {
    cwd: root, stdio: 'inherit', env: { ...process.env, TMPDIR: runTmp, CONVOPS_TEST_PROVISIONER: provisioner.url, CONVOPS_TEST_WORKERS: '1' },
  });
  return { results, done: new Promise<number | null>((resolve) => child.on('close', (status) => resolve(status))) };
});

let failedCheck: string | undefined;
await Promise.all(checks.map(async (c) => {
  const { status, output } = await c.run.done;
  process.stdout.write(`\n[${c.name}] ${status === 0 ? 'passed' : 'FAILED'}\n${output}`);
  if (status !== 0) failedCheck ??= `${c.name} failed${c.hint}`;
}));
const statuses = await Promise.all(lanes.map((l) => l.done));
await provisioner.stop();
// tsx keeps its compile cache there (tsx-<uid>) for the processes started through it: a tool's, not a test's.
const leftBehind = readdirSync(runTmp).filter((name) => !/^tsx-\d+$/.test(name));
rmSync(runTmp, { recursive: true, force: true });
if (leftBehind.length > 0) {
  process.stdout.write(`\n[temporary folders] FAILED: the tests left ${leftBehind.length} behind: ${leftBehind.slice(0, 20).join(', ')}${leftBehind.length > 20 ? ', …' : ''}\n`);
}

interface JsonReport { numPassedTests: number; numFailedTests: number; numPendingTests: number; numTodoTests: number; success: boolean }
const reports = lanes.map((l) => (existsSync(l.results) ? (JSON.parse(readFileSync(l.results, 'utf8')) as JsonReport) : undefined));
const sum = (f: (r: JsonReport) => number): number => reports.reduce((n, r) => n + (r ? f(r) : 0), 0);
const missing = reports.filter((r) => r === undefined).length;
// Each failed check (and folders left behind) counts as one failed test, so the summary line never reads
// "0 failed" for a run that failed.
const checkFailures = checks.length - (await Promise.all(checks.map((c) => c.run.done))).filter((f) => f.status === 0).length + (leftBehind.length > 0 ? 1 : 0);
const passed = sum((r) => r.numPassedTests);
const failed = sum((r) => r.numFailedTests) + missing + checkFailures;
const skipped = sum((r) => r.numPendingTests + r.numTodoTests);
const why = [missing > 0 ? 'a vitest lane wrote no results' : '', failedCheck ?? '', leftBehind.length > 0 ? 'temporary folders left behind' : ''].filter(Boolean).join('; ');
process.stdout.write(`tests: ${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}${why ? ` (${why})` : ''}\n`);
process.exit(passed > 0 && failed === 0 && statuses.every((s) => s === 0) ? 0 : 1);
