// Temporary folders that go away with the test file that made them: test/infra/remove-temp-dirs.ts
// (a setup file of every test file) removes them after the file's own afterAll hooks, which close
// what was opened in them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

/** A new folder in the system's temporary directory, named `<prefix>XXXXXX`, removed when the file's tests are done. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Removes every folder tempDir() made so far. */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}
