// Docs that match: every variable src/config.ts reads is described in docs/configuration.md,
// and docker compose passes it through (but for a test failpoint, DATA_DIR and BACKUP_DIR, which
// only the embedded deployment reads, and NODE_ENV, which the image sets to production).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

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

  it('bind to loopback unless HOST says otherwise, where the image and compose open it', () => {
    expect(loadConfig({}).host).toBe('127.0.0.1');
    expect(loadConfig({ HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
    expect(read('Dockerfile')).toMatch(/ENV [^\n]*\bHOST=0\.0\.0\.0\b/);
    expect(read('docker-compose.yml')).toMatch(/\bHOST: 0\.0\.0\.0\b/);
  });

  it('pass through docker compose', () => {
    const compose = read('docker-compose.yml');
    const notThere = new Set(['CONVOPS_FAILPOINT_STALL_BEFORE_WRITE_MS', 'DATA_DIR', 'BACKUP_DIR', 'NODE_ENV']);
    expect(vars.filter((v) => !notThere.has(v) && !new RegExp(`\\b${v}:`).test(compose))).toEqual([]);
  });
});
