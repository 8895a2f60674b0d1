// What starting the service as a process costs, as the fault tests start it: CPU-seconds and
// wall time until a worker (processor + projector, embedded) logs that it started, through tsx
// and from the build the test setup makes (test/infra/service-build.ts).
//   node --import tsx bench/process-start.ts [--runs 3]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildService } from '../test/infra/service-build.js';

const root = join(import.meta.dirname, '..');
const runs = Number(process.argv[process.argv.indexOf('--runs') + 1] || 3);
const ticks = 100; // USER_HZ on Linux

function startOnce(args: string[]): Promise<{ ms: number; cpuSec: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'convops-start-'));
  const t0 = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: root, env: { ...process.env, DATA_DIR: dir, ROLES: 'processor,projector', LOG_LEVEL: 'info', TICK_INTERVAL_SEC: '0' }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (!out.includes('convops started')) return;
      // utime and stime, fields 14 and 15 of /proc/<pid>/stat (after the command's closing parenthesis).
      const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      const cpuSec = (Number(fields[11]) + Number(fields[12])) / ticks;
      const ms = performance.now() - t0;
      child.kill('SIGKILL');
      child.once('exit', () => { rmSync(dir, { recursive: true, force: true }); resolve({ ms, cpuSec }); });
    });
    child.once('error', reject);
  });
}

const entry = await buildService();
const ways: [string, string[]][] = [['tsx', ['--import', 'tsx', join(root, 'src/main.ts')]], ['build', ['--enable-source-maps', entry]]];
for (let i = 0; i < runs; i++) {
  for (const [name, args] of ways) {
    const r = await startOnce(args);
    console.log(`${name.padEnd(5)} ready after ${Math.round(r.ms)} ms, ${r.cpuSec.toFixed(2)} CPU-s`);
  }
}
