// The whole test suite: type-check, lint, then vitest (whose global setup provisions Kafka and the
// Mongo-wire server), then one summary line "tests: N passed, N failed[, N skipped]".
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const results = join(root, '.cache', 'vitest-results.json');
mkdirSync(join(root, '.cache'), { recursive: true });

// The type-check and the lint run side by side (each mostly one core for about half a minute).
// Their output is held and printed in order, so the two never interleave.
function run(args: string[]): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => { output += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { output += d.toString(); });
    child.on('close', (status) => resolve({ status, output }));
  });
}
const [tsc, lint] = await Promise.all([
  run([join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json', '--noEmit']),
  // Lint and format rules (eslint.config.js): a floating promise or a misused one fails the suite like a test.
  run([join(root, 'node_modules/eslint/bin/eslint.js'), '.']),
]);
process.stdout.write(tsc.output + lint.output);
if (tsc.status !== 0) {
  process.stdout.write('tests: 0 passed, 1 failed (type-check failed)\n');
  process.exit(1);
}
if (lint.status !== 0) {
  process.stdout.write('tests: 0 passed, 1 failed (lint failed; `npm run format` fixes the formatting)\n');
  process.exit(1);
}

const vitest = spawnSync(process.execPath, [join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${results}`, ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });

interface JsonReport { numPassedTests: number; numFailedTests: number; numPendingTests: number; numTodoTests: number; success: boolean }
if (existsSync(results)) {
  const r = JSON.parse(readFileSync(results, 'utf8')) as JsonReport;
  const skipped = r.numPendingTests + r.numTodoTests;
  process.stdout.write(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed${skipped > 0 ? `, ${skipped} skipped` : ''}\n`);
  if (r.numPassedTests === 0) process.exit(1);
} else {
  process.stdout.write('tests: 0 passed, 1 failed (vitest wrote no results)\n');
}
process.exit(vitest.status ?? 1);
