// The whole test suite: type-check, lint, then vitest (whose global setup provisions Kafka and the
// Mongo-wire server), then one summary line "tests: N passed, N failed[, N skipped]".
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const results = join(root, '.cache', 'vitest-results.json');
mkdirSync(join(root, '.cache'), { recursive: true });

const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json', '--noEmit'], { cwd: root, stdio: 'inherit' });
if (tsc.status !== 0) {
  process.stdout.write('tests: 0 passed, 1 failed (type-check failed)\n');
  process.exit(1);
}

// Lint and format rules (eslint.config.js): a floating promise or a misused one fails the suite like a test.
const lint = spawnSync(process.execPath, [join(root, 'node_modules/eslint/bin/eslint.js'), '.'], { cwd: root, stdio: 'inherit' });
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
