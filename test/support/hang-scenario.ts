// A scenario that may hang the event loop (an LMDB writer deadlock stops vitest's timers with
// it) runs as module code in a child process that is killed when it takes too long.
import { spawn } from 'node:child_process';
import { expect } from 'vitest';

export interface Outcome { code: number | null; hung: boolean; out: string }

/** Runs `prelude` then `body` (ESM module code) in a child process, killed after `ms`. */
export function scenario(prelude: string, body: string, ms: number): Promise<Outcome> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', `${prelude}\n${body}`], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
  let hung = false;
  const timer = setTimeout(() => { hung = true; child.kill('SIGKILL'); }, ms);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, hung, out });
    });
  });
}

/** The JSON line a scenario printed last, once it is known to have ended by itself and cleanly. */
export function result<T>(o: Outcome): T {
  expect({ hung: o.hung, code: o.code }, `scenario output: ${o.out}`).toEqual({ hung: false, code: 0 });
  return JSON.parse(o.out.trim().split('\n').at(-1) ?? '') as T;
}
