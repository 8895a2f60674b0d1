// The README's "Try it" commands, as written (they read PORT, as the README says to set it), run by bash in a
// copy of the repository's files with nothing beside it (as a fresh clone has no ../shared)
// against a running service: what a newcomer types first must work.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../src/app.js';
import { deploymentEnv, removeDataDirs, startWithEnv } from '../support/deployments.js';
import { tempDir } from '../support/temp-dirs.js';

const root = join(import.meta.dirname, '..', '..');

/** The first `sh` block after "Try it:" in the README. */
function tryItCommands(): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const from = readme.indexOf('Try it:');
  expect(from, 'the README has a "Try it" section').toBeGreaterThan(-1);
  const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(from));
  expect(block, 'the "Try it" section has an sh block').not.toBeNull();
  return block?.[1] ?? '';
}

/** The repository's files (tracked, or new and not ignored) in a folder of their own. */
async function cloneLike(): Promise<string> {
  const dir = join(tempDir('convops-try-it-'), 'convops');
  const { stdout } = await promisify(execFile)('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  // A tracked file deleted in the working tree is not part of what a clone of it would hold.
  for (const f of stdout.split('\0').filter((f) => f !== '' && existsSync(join(root, f)))) {
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    cpSync(join(root, f), join(dir, f));
  }
  return dir;
}

describe('the README\'s "Try it"', () => {
  let app: RunningApp | undefined;
  let clone: string | undefined;
  afterAll(async () => {
    await app?.stop();
    removeDataDirs();
    if (clone) rmSync(dirname(clone), { recursive: true, force: true });
  });

  it('posts the sample and reads its session and message back, as written', async () => {
    const commands = tryItCommands();
    expect(commands).toContain('localhost:${PORT:-3000}');
    clone = await cloneLike();
    app = await startWithEnv(await deploymentEnv('embedded'));
    const port = new URL(app.url ?? '').port;
    // A newline after each command (each line that does not continue), so the answers can be told apart.
    const script = commands.replace(/^(?!.*\\$)(.+)$/gm, '$1; echo');
    // Asynchronously: the service answers from this very process.
    const run = async () => (await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script], { cwd: clone, encoding: 'utf8', timeout: 30_000, env: { ...process.env, PORT: port } })).stdout.trim().split('\n');
    let answers = await run();
    // The pipeline is asynchronous: reads may run before the projector has folded the record.
    for (let i = 0; i < 50 && !(answers[1]?.includes('"1000005"') && answers[2]?.includes('"1000006"')); i++) {
      await new Promise((r) => setTimeout(r, 200));
      answers = await run();
    }
    const [posted, sessions, messages] = answers.map((a) => JSON.parse(a) as Record<string, unknown>);
    expect(posted).toMatchObject({ accepted: true, chatId: '1000005' });
    expect((sessions?.items as { chatId: string }[]).map((s) => s.chatId)).toContain('1000005');
    expect((messages?.items as { id: string; sender: string }[])).toEqual([expect.objectContaining({ id: '1000006', sender: 'fan' })]);
  });
});
