// One convops service as a process of its own, for benchmarks that time it from outside: started
// on a free port, waited for until ready, stopped with SIGTERM (killed a minute later if it has
// not stopped, and said so: a stop that hangs is a finding, not a wait).
import { spawn } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { freePort } from '../test/infra/servers.js';
import { deadline } from './deadline.js';

const root = resolve(import.meta.dirname, '..');

export interface ServiceProcess {
  readonly base: string;
  /** The environment it runs with (PORT and the rest), for opening its store beside it. */
  readonly env: Record<string, string | undefined>;
  /** Seconds from SIGTERM to its exit. */
  stop(): Promise<number>;
  /** CPU seconds it has used so far (user and system, from /proc; NaN where there is none). */
  cpuSeconds(): number;
}

export async function startService(env: Record<string, string | undefined>): Promise<ServiceProcess> {
  const port = await freePort();
  const full = { ...process.env, OPS_PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', RATE_LIMIT_MAX: '10000000', REPORT_RATE_LIMIT_MAX: '10000000', LIVE_CACHE_MS: '0', ...env, PORT: String(port) };
  // SERVICE_LOG=<file>: the service's own log lines (JSON) go there, for when a run needs them.
  const out = process.env.SERVICE_LOG ? openSync(process.env.SERVICE_LOG, 'a') : 'ignore';
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/main.ts')], { cwd: root, stdio: ['ignore', out, 'inherit'], env: full });
  const base = `http://127.0.0.1:${port}`;
  const cpuSeconds = (): number => {
    try {
      // /proc/<pid>/stat: utime and stime are fields 14 and 15, in clock ticks (100 a second on Linux).
      const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
      return (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      return Number.NaN;
    }
  };
  const stop = async (): Promise<number> => {
    const t = performance.now();
    if (child.exitCode !== null) return 0;
    child.kill('SIGTERM');
    const killed = setTimeout(() => { process.stderr.write('the service did not stop within 60 s of SIGTERM: killed\n'); child.kill('SIGKILL'); }, 60_000);
    await new Promise((r) => child.once('exit', r));
    clearTimeout(killed);
    return (performance.now() - t) / 1000;
  };
  try {
    for (let i = 0; ; i++) {
      if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
      if (await fetch(`${base}/api/health/ready`, { signal: deadline() }).then((r) => r.ok, () => false)) break;
      if (i > 1200) throw new Error('the service did not get ready in 120 s');
      await new Promise((r) => setTimeout(r, 100));
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { base, env: full, stop, cpuSeconds };
}
