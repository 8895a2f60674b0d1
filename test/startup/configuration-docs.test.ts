// Docs that match: every variable src/config.ts reads is described in docs/configuration.md,
// and docker compose passes it through (but for a test failpoint, DATA_DIR, which only the
// embedded deployment reads, and NODE_ENV, which the image sets to production).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

function variablesRead(): string[] {
  const source = read('src/config.ts');
  const found = new Set<string>();
  for (const m of source.matchAll(/\(env, '([A-Z][A-Z0-9_]+)'|env\.([A-Z][A-Z0-9_]+)|env\['([A-Z][A-Z0-9_]+)'\]/g)) found.add((m[1] ?? m[2] ?? m[3]) as string);
  return [...found].sort();
}

describe('the configuration docs', () => {
  const vars = variablesRead();

  it('describe every variable the service reads', () => {
    expect(vars.length).toBeGreaterThan(40);
    expect(vars).toContain('UNANSWERED_CLOSE_SEC');
    const doc = read('docs/configuration.md');
    expect(vars.filter((v) => !new RegExp(`\\b${v}\\b`).test(doc))).toEqual([]);
  });

  it('pass through docker compose', () => {
    const compose = read('docker-compose.yml');
    const notThere = new Set(['CONVOPS_FAILPOINT_STALL_BEFORE_WRITE_MS', 'DATA_DIR', 'NODE_ENV']);
    expect(vars.filter((v) => !notThere.has(v) && !new RegExp(`\\b${v}:`).test(compose))).toEqual([]);
  });
});
