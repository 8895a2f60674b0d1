// Where a CPU profile's time went (node --cpu-prof, as bench/ingest.ts --cpu-prof-dir writes
// them): per convops role, by the innermost frame of the stack inside a role's folder, so the
// store, log and library work a role asks for counts as that role's (work resumed after an
// await with no role frame on its stack, such as a store's commit callback, counts as other);
// then the heaviest places by self time (packages by name, our modules by file). The profile itself opens as a flame
// graph in Chrome DevTools (Performance, "Load profile") or https://www.speedscope.app.
//   node --import tsx bench/profile-summary.ts <file.cpuprofile>... [--top 25]
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';

interface CallFrame { functionName: string; url: string; lineNumber: number }
interface ProfileNode { id: number; callFrame: CallFrame; children?: number[] }
export interface CpuProfile { nodes: ProfileNode[]; startTime: number; endTime: number; samples: number[]; timeDeltas: number[] }

/** The role a source file belongs to, by the folder that shows the architecture. */
const ROLE_OF: readonly [RegExp, string][] = [
  [/\/src\/(http|ingest)\//, 'api'],
  [/\/src\/(processor)\/|\/machines\//, 'processor'],
  [/\/src\/(projector|queries)\//, 'projector'],
  [/\/src\/(intelligence|alert-hooks)\//, 'intelligence'],
];

/**
 * For stacks with no role frame (work resumed from a callback: a store commit, a socket's
 * data), what the innermost recognisable frame says the work was.
 */
const FALLBACK_OF: readonly [RegExp, string][] = [
  [/node_modules\/(fastify|find-my-way|light-my-request|@fastify)\/|node:_http_|\/src\/http\//, 'http (unattributed)'],
  [/node_modules\/(lmdb|msgpackr|ordered-binary|mongodb|bson|mingo)\/|\/src\/adapters\/store\//, 'store (unattributed)'],
  [/node_modules\/kafkajs\/|\/src\/adapters\/log\//, 'log (unattributed)'],
];

/** The engine's own entries, children of the root. */
const ENGINE_ROLES: Readonly<Record<string, string>> = { '(garbage collector)': 'gc', '(idle)': 'idle', '(program)': 'program' };

/** Where a frame's self time is counted: a package, one of our files, or the engine. */
function placeOf(f: CallFrame): string {
  if (f.url === '') return f.functionName === '' ? '(native)' : `(${f.functionName.replace(/^\(|\)$/g, '')})`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(f.url);
  if (pkg) return `pkg ${pkg[1]}`;
  const ours = /\/(src|machines)\/(.*)$/.exec(f.url);
  if (ours) return `${ours[1]}/${ours[2]}`;
  if (f.url.startsWith('node:')) return f.url;
  return basename(f.url);
}

/** Where a profile's sampled time went, in µs: per role and per place (self time), idle apart. */
export interface ProfileTotals {
  readonly sampledUs: number;
  readonly busyUs: number;
  readonly roles: ReadonlyMap<string, number>;
  readonly places: ReadonlyMap<string, number>;
}

/**
 * The totals of the samples taken between `fromUs` and `toUs` (the profiler's clock: CLOCK_MONOTONIC
 * in µs, which `process.hrtime.bigint() / 1000n` reads in any process on the machine), or of all.
 */
export function profileTotals(profile: CpuProfile, fromUs = -Infinity, toUs = Infinity): ProfileTotals {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const roleCache = new Map<number, string>();
  const fallback = (id: number): string => {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const url = byId.get(at)?.callFrame.url ?? '';
      const hit = FALLBACK_OF.find(([re]) => re.test(url));
      if (hit) return hit[1];
    }
    return 'other';
  };
  const roleOf = (id: number): string => {
    const known = roleCache.get(id);
    if (known !== undefined) return known;
    const n = byId.get(id);
    let role = 'other';
    if (n) {
      const hit = ROLE_OF.find(([re]) => re.test(n.callFrame.url));
      const engine = Object.hasOwn(ENGINE_ROLES, n.callFrame.functionName) ? ENGINE_ROLES[n.callFrame.functionName] : undefined;
      if (hit) role = hit[1];
      else if (engine) role = engine;
      else {
        const up = parent.get(id);
        role = up === undefined ? 'other' : roleOf(up);
      }
    }
    roleCache.set(id, role);
    return role;
  };
  const roles = new Map<string, number>();
  const places = new Map<string, number>();
  let total = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    at += dt;
    const n = byId.get(id);
    if (!n || at < fromUs || at > toUs) return;
    total += dt;
    let role = roleOf(id);
    if (role === 'other') role = fallback(id);
    roles.set(role, (roles.get(role) ?? 0) + dt);
    const place = placeOf(n.callFrame);
    places.set(place, (places.get(place) ?? 0) + dt);
  });
  const idle = roles.get('idle') ?? 0;
  roles.delete('idle');
  places.delete('(idle)');
  return { sampledUs: total, busyUs: total - idle, roles, places };
}

export function summarise(profile: CpuProfile, top: number, fromUs?: number, toUs?: number): string {
  const { sampledUs, busyUs, roles, places } = profileTotals(profile, fromUs, toUs);
  const pct = (us: number): string => `${((100 * us) / busyUs).toFixed(1)}%`;
  const lines = [`${(sampledUs / 1e6).toFixed(1)} s sampled, ${(busyUs / 1e6).toFixed(1)} s busy; shares of busy time`];
  lines.push(`  by role: ${[...roles].sort((a, b) => b[1] - a[1]).map(([r, us]) => `${r} ${pct(us)}`).join(', ')}`);
  lines.push('  by place (self time):');
  for (const [place, us] of [...places].sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`    ${pct(us).padStart(6)}  ${place}`);
  return lines.join('\n');
}

/** A profile file as node --cpu-prof writes it. */
export function readProfile(file: string): CpuProfile {
  return JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '25' } } });
  for (const file of positionals) {
    console.log(`${file}:`);
    console.log(summarise(readProfile(file), Number(values.top)));
  }
}
