// The import graph of the service's own code, read with the TypeScript compiler's pre-processor
// (no type-check, no new dependency): every relative import, `import type` and re-export
// included, with `.js` specifiers resolved to the `.ts` files they compile from.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export type Graph = ReadonlyMap<string, ReadonlySet<string>>;

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sourcesUnder(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

function resolveSpecifier(from: string, specifier: string): string | null {
  const base = resolve(dirname(from), specifier);
  for (const candidate of [base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')]) {
    if (existsSync(candidate)) return candidate;
  }
  return null;
}

/** File → the files it imports, as paths relative to `root`; unresolvable relative imports are reported. */
export function fileGraph(root: string, dirs: readonly string[]): { graph: Graph; unresolved: string[] } {
  const graph = new Map<string, Set<string>>();
  const unresolved: string[] = [];
  for (const file of dirs.flatMap((d) => sourcesUnder(join(root, d)))) {
    const from = relative(root, file);
    const edges = new Set<string>();
    graph.set(from, edges);
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName } of info.importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = resolveSpecifier(file, fileName);
      if (target) edges.add(relative(root, target));
      else unresolved.push(`${from} → ${fileName}`);
    }
  }
  return { graph, unresolved };
}

/** The graph with every node replaced by `group(node)` (edges within a group dropped). */
export function grouped(graph: Graph, group: (node: string) => string): Graph {
  const out = new Map<string, Set<string>>();
  for (const [from, tos] of graph) {
    const a = group(from);
    const edges = out.get(a) ?? new Set<string>();
    out.set(a, edges);
    for (const to of tos) if (group(to) !== a) edges.add(group(to));
  }
  return out;
}

/** Strongly connected components of more than one node, or of one that imports itself: every cycle lies within one. */
export function cycles(graph: Graph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop() as string;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)?.has(v)) found.push(component.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return found.sort((a, b) => (a[0] as string).localeCompare(b[0] as string));
}

/** One cycle through the component, as `a → b → … → a`: what to read first to break it. */
export function describeCycle(graph: Graph, component: readonly string[]): string {
  const members = new Set(component);
  const start = component[0] as string;
  // Breadth-first from start's successors back to start, within the component.
  const previous = new Map<string, string>();
  const queue = [...(graph.get(start) ?? [])].filter((n) => members.has(n)).sort();
  for (const n of queue) previous.set(n, start);
  while (queue.length > 0) {
    const n = queue.shift() as string;
    if (n === start) break;
    for (const m of [...(graph.get(n) ?? [])].sort()) {
      if (!members.has(m) || previous.has(m)) continue;
      previous.set(m, n);
      queue.push(m);
    }
  }
  const path = [start];
  for (let n = previous.get(start); n !== undefined && n !== start; n = previous.get(n)) path.unshift(n);
  path.unshift(start);
  return path.join(' → ');
}
