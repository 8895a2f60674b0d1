// Where a CPU profile's time went (node --cpu-prof, as bench/ingest.ts --cpu-prof-dir writes
// them): per convops role, by the innermost frame of the stack inside a role's folder, so the
// store, log and library work a role asks for counts as that role's; then the heaviest places
// by self time (packages by name, our modules by file). The profile itself opens as a flame
// graph in Chrome DevTools (Performance, "Load profile") or https://www.speedscope.app.
//   node --import tsx bench/profile-summary.ts <file.cpuprofile>... [--top 25]
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';

interface CallFrame { functionName: string; url: string; lineNumber: number }
interface ProfileNode { id: number; callFrame: CallFrame; children?: number[] }
interface CpuProfile { nodes: ProfileNode[]; startTime: number; endTime: number; samples: number[]; timeDeltas: number[] }

/** The role a source file belongs to, by the folder that shows the architecture. */
const ROLE_OF: readonly [RegExp, string][] = [
  [/\/src\/(http|ingest)\//, 'api'],
  [/\/src\/(processor)\/|\/machines\//, 'processor'],
  [/\/src\/(projector|queries)\//, 'projector'],
  [/\/src\/(intelligence|alert-hooks)\//, 'intelligence'],
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

export function summarise(profile: CpuProfile, top: number): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const roleCache = new Map<number, string>();
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
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    const n = byId.get(id);
    if (!n) return;
    total += dt;
    roles.set(roleOf(id), (roles.get(roleOf(id)) ?? 0) + dt);
    const place = placeOf(n.callFrame);
    places.set(place, (places.get(place) ?? 0) + dt);
  });
  const idle = roles.get('idle') ?? 0;
  const busy = total - idle;
  const pct = (us: number): string => `${((100 * us) / busy).toFixed(1)}%`;
  const lines = [`${(total / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s busy; shares of busy time`];
  lines.push(`  by role: ${[...roles].filter(([r]) => r !== 'idle').sort((a, b) => b[1] - a[1]).map(([r, us]) => `${r} ${pct(us)}`).join(', ')}`);
  lines.push('  by place (self time):');
  for (const [place, us] of [...places].filter(([p]) => p !== '(idle)').sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`    ${pct(us).padStart(6)}  ${place}`);
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '25' } } });
  for (const file of positionals) {
    console.log(`${file}:`);
    console.log(summarise(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, Number(values.top)));
  }
}
