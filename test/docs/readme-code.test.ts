// The README's TypeScript is what a newcomer pastes first, so it must compile as written: each
// ```ts block is type-checked, strict, against the generated API types (examples/convops-api.d.ts)
// the way a client project would, next to this repo's node_modules (openapi-fetch).
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
// Under node_modules, so imports resolve from this repo's packages and git never sees the files.
const DIR = join(ROOT, 'node_modules', '.cache', `readme-code-${process.pid}`);

/** The ```ts blocks of a Markdown text, with the line each starts on. */
function tsBlocks(markdown: string): { line: number; code: string }[] {
  const out: { line: number; code: string }[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]?.trim() !== '```ts') continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end]?.trim() !== '```') end++;
    out.push({ line: start + 1, code: lines.slice(start, end).join('\n') });
    i = end;
  }
  return out;
}

function diagnostics(files: readonly string[]): string[] {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true, noUncheckedIndexedAccess: true, skipLibCheck: true, noEmit: true, types: ['node'],
  };
  const program = ts.createProgram(files, options);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file && d.start !== undefined ? `${d.file.fileName.split('/').pop()}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}` : '';
    return `${where} TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}

describe("the README's TypeScript", () => {
  afterAll(() => rmSync(DIR, { recursive: true, force: true }));

  it('compiles as written against the generated API types', () => {
    const blocks = tsBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'));
    expect(blocks.length).toBeGreaterThan(0);
    mkdirSync(DIR, { recursive: true });
    // An ES module, as a client project that uses top-level await is.
    writeFileSync(join(DIR, 'package.json'), JSON.stringify({ type: 'module' }));
    copyFileSync(join(ROOT, 'examples', 'convops-api.d.ts'), join(DIR, 'convops-api.d.ts'));
    const files = blocks.map((b) => {
      const file = join(DIR, `readme-line-${b.line}.ts`);
      writeFileSync(file, `${b.code}\nexport {};\n`);
      return file;
    });
    expect(diagnostics(files)).toEqual([]);
  });

  it('is checked for real: a block that uses an undefined name fails', () => {
    mkdirSync(DIR, { recursive: true });
    writeFileSync(join(DIR, 'package.json'), JSON.stringify({ type: 'module' }));
    const file = join(DIR, 'broken.ts');
    writeFileSync(file, 'console.log(token);\nexport {};\n');
    expect(diagnostics([file]).join('\n')).toContain("Cannot find name 'token'");
  });
});
