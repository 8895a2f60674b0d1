// The read side's layers, as docs/architecture.md draws them: the read models (folds and their
// queries) know neither HTTP nor intelligence, so a route's answer and an alert rule can both
// read them and neither can leak into a fold; the machines know nothing of src/. Relative
// imports only (the graph's); a package import (fastify, typebox) is checked by its text.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fileGraph } from './import-graph.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const { graph } = fileGraph(root, ['src', 'machines']);

/** Imports from files under `from` into files under any of `banned`, as `a -> b`. */
function crossings(from: string, banned: readonly string[]): string[] {
  const out: string[] = [];
  for (const [file, deps] of graph) {
    if (!file.startsWith(from)) continue;
    for (const d of deps) if (banned.some((b) => d.startsWith(b))) out.push(`${file} -> ${d}`);
  }
  return out;
}

describe('layers', () => {
  it('the read models import no HTTP, intelligence, read-side, projector stage or processor module', () => {
    expect([...graph.keys()].filter((f) => f.startsWith('src/read-models/')).length).toBeGreaterThan(20);
    expect(crossings('src/read-models/', ['src/http/', 'src/intelligence/', 'src/read-side/', 'src/projector/', 'src/processor/'])).toEqual([]);
  });

  it('the read models import no web framework or schema library', () => {
    const packages = [...graph.keys()].filter((f) => f.startsWith('src/read-models/'))
      .filter((f) => /from '(fastify|@fastify\/[^']+)'/.test(readFileSync(join(root, f), 'utf8')));
    expect(packages).toEqual([]);
  });

  it('the machines import nothing from src/', () => {
    expect(crossings('machines/', ['src/'])).toEqual([]);
  });
});
