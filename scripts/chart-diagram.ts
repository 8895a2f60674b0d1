// Draws the session chart from its own definition (the state nodes XState built from
// session-machine.ts), so docs/session-chart.md cannot drift from what runs.
import type { AnyStateMachine } from 'xstate';

/** The parts of XState's StateNode and TransitionDefinition this reads, all public. */
interface Node {
  readonly key: string;
  readonly id: string;
  readonly description?: string;
  readonly states: Readonly<Record<string, Node>>;
  readonly initial?: { readonly target: readonly Node[] };
  readonly transitions: ReadonlyMap<string, readonly Transition[]>;
  readonly always?: readonly Transition[];
}

interface Transition {
  readonly eventType: string;
  readonly guard?: unknown;
  readonly target?: readonly Node[];
  readonly actions: readonly unknown[];
}

export interface ChartEdge {
  readonly from: string;
  readonly event: string;
  readonly guard: string | null;
  readonly to: string | null;
  readonly actions: readonly string[];
}

const nameOf = (x: unknown): string => (typeof x === 'string' ? x : typeof x === 'object' && x !== null && 'type' in x ? String((x as { type: unknown }).type) : '(inline)');
const path = (n: Node): string => n.id.split('.').slice(1).join('.') || n.id;
const mermaidId = (n: Node): string => path(n).replace(/\./g, '_');

function edgesOf(n: Node): ChartEdge[] {
  const out: ChartEdge[] = [];
  const add = (event: string, t: Transition): void => {
    out.push({
      from: path(n), event, guard: t.guard === undefined ? null : nameOf(t.guard),
      to: t.target && t.target.length > 0 ? t.target.map(path).join(', ') : null, actions: t.actions.map(nameOf),
    });
  };
  for (const [event, ts] of n.transitions) for (const t of ts) if (event !== '') add(event, t);
  for (const t of n.always ?? []) add('(always)', t);
  return out;
}

function walk(n: Node, visit: (n: Node) => void): void {
  visit(n);
  for (const c of Object.values(n.states)) walk(c, visit);
}

/** Every transition of the chart, in document order: from where, on what, under which guard, to where, doing what. */
export function chartEdges(machine: AnyStateMachine): ChartEdge[] {
  const edges: ChartEdge[] = [];
  walk(machine.root as unknown as Node, (n) => edges.push(...edgesOf(n)));
  return edges;
}

function label(e: ChartEdge): string {
  const parts = [e.event === '(always)' ? '' : e.event, e.guard ? `[${e.guard}]` : '', e.actions.length > 0 ? `/ ${e.actions.join(', ')}` : ''];
  return parts.filter(Boolean).join(' ');
}

function mermaidState(n: Node, indent: string, lines: string[]): void {
  const children = Object.values(n.states);
  if (children.length === 0) return;
  const init = n.initial?.target[0];
  if (init) lines.push(`${indent}[*] --> ${mermaidId(init)}`);
  for (const c of children) {
    if (c.description) lines.push(`${indent}${mermaidId(c)} : ${c.key} (${c.description})`);
    if (Object.keys(c.states).length > 0) {
      lines.push(`${indent}state ${mermaidId(c)} {`);
      mermaidState(c, `${indent}  `, lines);
      lines.push(`${indent}}`);
    }
  }
}

/** The chart as a Mermaid stateDiagram-v2 (state changes) and a table of every transition. */
export function renderChart(machine: AnyStateMachine): string {
  const root = machine.root as unknown as Node;
  const lines = ['stateDiagram-v2'];
  mermaidState(root, '  ', lines);
  const byId = new Map<string, Node>();
  walk(root, (n) => byId.set(path(n), n));
  const edges = chartEdges(machine);
  for (const e of edges) {
    if (e.to === null) continue;
    const from = byId.get(e.from) as Node;
    for (const to of e.to.split(', ')) lines.push(`  ${mermaidId(from)} --> ${mermaidId(byId.get(to) as Node)} : ${label(e)}`);
  }
  const table = [
    '| in state | on | guard | to | actions |',
    '|---|---|---|---|---|',
    ...edges.map((e) => `| ${e.from === root.id ? '(any)' : e.from} | ${e.event} | ${e.guard ?? ''} | ${e.to ?? '(stays)'} | ${e.actions.join(', ')} |`),
  ];
  return [
    '# The session chart',
    '',
    '<!-- Generated from machines/session-machine.ts by `npm run chart` (scripts/session-chart.ts); test/machines/session-chart.test.ts fails when it is stale. Do not edit by hand. -->',
    '',
    'The per-chat session lifecycle, drawn from the machine\'s own definition. Transitions',
    'without an event are eventless: XState takes them as soon as their guard holds, after the',
    'input\'s own transition (placing held records can open or close sessions in between).',
    '',
    '```mermaid',
    ...lines,
    '```',
    '',
    'Every transition, including those that keep the state (the chat\'s records are placed and',
    'counted without the lifecycle changing). A state\'s own transitions are tried before',
    'those of the states around it; within a state, top to bottom.',
    '',
    ...table,
    '',
  ].join('\n');
}
