// CPU seconds each process of a benchmark spent over a span, from /proc (Linux), so a report can
// say where a saturated machine's cores went: the service processes, the broker, the database
// and the load generator itself.
import { readFileSync } from 'node:fs';

const TICKS_PER_SEC = 100;

/** User and system CPU seconds of a process so far (all its threads); null when it is gone or /proc is missing. */
export function cpuTimes(pid: number): { user: number; system: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { user: Number(fields[11]) / TICKS_PER_SEC, system: Number(fields[12]) / TICKS_PER_SEC };
  } catch {
    return null;
  }
}

/** What a span measured: its line, and given the events, the CPU µs per event of each process and of `ours` together. */
export interface CpuUse {
  readonly text: string;
  /** Cores the span's processes used together. */
  readonly cores: number;
  readonly perEventUs: Readonly<Record<string, number>>;
  readonly oursUs: number;
}

export interface CpuSpan {
  /** As `stop`, with the figures apart for a summary over repeated runs. */
  measure(per?: { readonly events: number; readonly ours: readonly string[] }): CpuUse;
  /**
   * "name 0.62 core, ..." over the span, and the total against the machine's cores; given the
   * events the span handled, also the CPU microseconds per event of each process and of `ours`
   * together (the service's processes, apart from the broker, the database and the load).
   */
  stop(per?: { readonly events: number; readonly ours: readonly string[] }): string;
}

export function cpuSpan(processes: Readonly<Record<string, number | undefined>>, cores: number): CpuSpan {
  const startedAt = performance.now();
  const before = new Map<string, { user: number; system: number }>();
  for (const [name, pid] of Object.entries(processes)) {
    const s = pid === undefined ? null : cpuTimes(pid);
    if (s !== null) before.set(name, s);
  }
  const span: CpuSpan = {
    stop: (per) => span.measure(per).text,
    measure(per) {
      const wall = (performance.now() - startedAt) / 1000;
      const parts: string[] = [];
      const perEvent: string[] = [];
      let total = 0;
      let ours = 0;
      const perEventUs: Record<string, number> = {};
      for (const [name, pid] of Object.entries(processes)) {
        const start = before.get(name);
        const end = pid === undefined ? null : cpuTimes(pid);
        if (start === undefined || end === null) continue;
        const user = end.user - start.user;
        const system = end.system - start.system;
        const cores = (user + system) / wall;
        total += cores;
        parts.push(`${name} ${cores.toFixed(2)}`);
        if (per && per.events > 0) {
          const us = ((user + system) * 1e6) / per.events;
          // The kernel's share apart: fsyncs, socket writes and page faults are not JavaScript.
          perEvent.push(`${name} ${Math.round(us)} (system ${Math.round((system * 1e6) / per.events)})`);
          perEventUs[name] = us;
          if (per.ours.includes(name)) ours += us;
        }
      }
      const line = `${parts.join(', ')}; total ${total.toFixed(2)} of ${cores} cores over ${wall.toFixed(1)} s`;
      // /proc counts in ticks of 10 ms: over a span of seconds and thousands of events, a few µs.
      const text = perEvent.length === 0 ? line : `${line}; CPU per event (µs): ${perEvent.join(', ')}; ours together ${Math.round(ours)}`;
      // No events, no figure per event: NaN, which a summary leaves out, rather than 0.
      return { text, cores: total, perEventUs, oursUs: per && per.events > 0 ? ours : NaN };
    },
  };
  return span;
}
