// Runs the service as a real child process (the README's way), so tests can SIGKILL it.
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../infra/servers.js';
import { eventually } from './wait.js';
import { serviceArgs } from './service-args.js';

const root = join(import.meta.dirname, '../..');

/** The child's environment: the deployment's own settings only. KAFKA_BROKERS or MONGO_URL
 *  exported in the shell (to share test servers) must not turn an embedded child distributed. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const { KAFKA_BROKERS: _k, MONGO_URL: _m, ...rest } = process.env;
  return { ...rest, ...env };
}

function controls(child: ChildProcess, exited: Promise<void>) {
  return {
    child,
    async kill9(): Promise<void> {
      child.kill('SIGKILL');
      await exited;
    },
    async stop(): Promise<void> {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

export interface ServiceProcess {
  readonly url: string;
  readonly child: ChildProcess;
  kill9(): Promise<void>;
  stop(): Promise<void>;
}

/** `port`: a restarted API comes back on the address its clients know. The waits for a start are
 *  generous: tests that run two deployments at once restart processes on a busy machine. */
export async function startServiceProcess(env: Record<string, string>, port?: number): Promise<ServiceProcess> {
  port ??= await freePort();
  const child = spawn(process.execPath, await serviceArgs(), {
    cwd: root,
    env: { ...childEnv(env), PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => { stderr += c.toString(); });
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<void>((res) => child.once('exit', () => res()));
  await eventually(async () => {
    if (child.exitCode !== null) throw new Error(`service exited: ${stderr}`);
    const res = await fetch(`${url}/api/health`).catch(() => undefined);
    // Ready only once this child answers: while a killed API is down its port is free, and
    // another service (another test file's app on port 0) can take it; the child then fails to
    // listen, and the other one's 200s would read as this deployment taking deliveries.
    return res?.status === 200 && listensOn(child.pid, port) ? true : undefined;
  }, 90_000, 'service ready');
  return {
    url,
    ...controls(child, exited),
  };
}

/**
 * Whether process `pid` holds the socket listening on TCP `port` (Linux: /proc/net/tcp{,6}
 * name the listening socket's inode, /proc/<pid>/fd the process's sockets). True where /proc
 * cannot say: elsewhere the health answer alone decides, as before.
 */
export function listensOn(pid: number | undefined, port: number): boolean {
  if (pid === undefined) return false;
  const listening = new Set<string>();
  let tables = 0;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    tables++;
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      // local_address is <hex ip>:<hex port>; state 0A is LISTEN; the tenth column the inode.
      if (f[3] === '0A' && Number.parseInt(f[1]?.split(':')[1] ?? '', 16) === port && f[9]) listening.add(f[9]);
    }
  }
  if (tables === 0) return true;
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return listening.has(/^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1] ?? '');
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

export interface WorkerProcess {
  readonly child: ChildProcess;
  kill9(): Promise<void>;
  stop(): Promise<void>;
}

/** A process without the API role (processor, projector): ready once it logs that it started. */
export async function startWorkerProcess(env: Record<string, string>): Promise<WorkerProcess> {
  const child = spawn(process.execPath, await serviceArgs(), {
    cwd: root,
    env: { ...childEnv(env), LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const logFile = process.env.CONVOPS_TEST_WORKER_LOG;
  const collect = (c: Buffer): void => {
    output = (output + c.toString()).slice(-20_000);
    // For tracing a failed fault test: every worker's log, appended to one file.
    if (logFile) appendFileSync(logFile, c);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<void>((res) => child.once('exit', () => res()));
  await eventually(() => {
    if (child.exitCode !== null) throw new Error(`worker exited: ${output}`);
    return output.includes('convops started') ? true : undefined;
  }, 120_000, 'worker started');
  return {
    ...controls(child, exited),
  };
}
