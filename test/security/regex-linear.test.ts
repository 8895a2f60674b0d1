// Every regular expression in src/ and machines/ must match in linear time (issue 13: one
// record with 300,000 `<` held the event loop 28 s in `/<[^>]*>/g`). The TypeScript compiler
// finds them all: regex literals, `new RegExp(…)` / `RegExp(…)`, string patterns given to
// `.match`/`.matchAll`/`.search`, TypeBox `pattern`s (ajv compiles them with the `u` flag) and
// Mongo `$regex`es. A pattern whose value the type checker knows (a literal, a constant, a
// template over constants or unions of string literals) is checked as is; one built at run
// time must be listed in REVIEWED_DYNAMIC below with the RegExp values to check. recheck
// decides, on its pure-JavaScript backend (offline, no Java, no native binary): anything not
// `safe` fails, naming file:line and recheck's attack string.
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { check, type Diagnostics } from 'recheck';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHURN_PATTERN } from '../../src/intelligence/rules.js';
import { tempDir } from '../support/temp-dirs.js';

const ROOT = join(import.meta.dirname, '../..');

/** One place a regular expression is made. `values` is undefined when it is built at run time. */
interface RegexSite {
  readonly file: string;
  readonly line: number;
  readonly kind: 'literal' | 'RegExp()' | 'string method' | 'schema pattern' | '$regex';
  /** Source text of the pattern expression: the key of a REVIEWED_DYNAMIC entry. */
  readonly expression: string;
  readonly values: readonly { readonly source: string; readonly flags: string }[] | undefined;
}

interface DynamicReview {
  /** Why the built pattern is linear. */
  readonly why: string;
  /** The patterns it builds (or representative ones), which recheck checks too. */
  readonly evaluate: () => readonly RegExp[];
}

// Patterns built at run time, keyed by file and the pattern expression's source text (spaces
// collapsed): changing the expression drops it from this list, so it must be reviewed again.
const REVIEWED_DYNAMIC: Record<string, DynamicReview> = {
  "src/intelligence/rules.ts: `\\\\b(${CHURN_PHRASES.map((p) => p.replace(/ /g, '\\\\s+')).join('|')})\\\\b`": {
    why: 'an alternation of fixed phrases (spaces become \\s+) between word boundaries, with no repetition around it: '
      + 'a search does the work of each alternative in turn, so it is linear when each `\\b(phrase)\\b` is, and those are '
      + "checked one by one (recheck's exact checker times out on the whole 25-way alternation)",
    evaluate: () => {
      const inner = /^\\b\((.*)\)\\b$/.exec(CHURN_PATTERN.source)?.[1] ?? '';
      const phrases = inner.split('|');
      // Only words joined by \s+: anything else in there needs a new review.
      if (!phrases.every((p) => /^[a-z]+(\\s\+[a-z]+)*$/.test(p))) throw new Error(`CHURN_PATTERN changed shape (${CHURN_PATTERN.source}): review it again`);
      return phrases.map((p) => new RegExp(`\\b(${p})\\b`, CHURN_PATTERN.flags));
    },
  },
  "src/intelligence/intelligence.ts: `^(${accountIds.map(escapeRegex).join('|')}):`": {
    why: 'anchored at the start, an alternation of regex-escaped account ids and a colon: one attempt per session id, reading at most the longest id plus one character',
    evaluate: () => [new RegExp(`^(${['acct_00000000000000000000000000000001', 'fansly_acct_0000000000000000000000000000000a', 'acct_demo'].join('|')}):`)],
  },
  "src/processor/purge.ts: `^(${accountIds.map(escapeRegex).join('|')}):`": {
    why: 'anchored at the start, an alternation of regex-escaped account ids and a colon: one attempt per chat key, reading at most the longest id plus one character',
    evaluate: () => [new RegExp(`^(${['acct_00000000000000000000000000000001', 'fansly_acct_0000000000000000000000000000000a', 'acct_demo'].join('|')}):`)],
  },
};

// Super-linear regexes whose input cannot hold the attack: each names why. Keyed by file and
// pattern; an entry whose regex is fixed or gone fails the test until it is removed. These
// belong to files outside the text cleaner and are worth rewriting linear all the same.
const REVIEWED_SUPERLINEAR: Record<string, string> = {
};

const collapse = (s: string): string => s.replace(/\s+/g, ' ').trim();
const dynamicKey = (site: RegexSite): string => `${site.file}: ${collapse(site.expression)}`;
const superlinearKey = (file: string, source: string): string => `${file} /${source}/`;

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return tsFiles(path);
    return e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

function compilerOptions(): ts.CompilerOptions {
  const configPath = join(ROOT, 'tsconfig.json');
  const read = ts.readConfigFile(configPath, (p) => ts.sys.readFile(p));
  // Only the project's own files and the ES library: the values that matter are the project's
  // constants, and parsing the dependencies' types would double the time.
  return { ...ts.parseJsonConfigFileContent(read.config, ts.sys, ROOT).options, noEmit: true, noResolve: true, types: [], lib: ['lib.es2022.d.ts'] };
}

function unwrap(e: ts.Expression): ts.Expression {
  while (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e) || ts.isNonNullExpression(e)) e = e.expression;
  return e;
}

/** Every string the expression can be, when the type checker knows them all (at most 64). */
function stringValues(expr: ts.Expression, checker: ts.TypeChecker): string[] | undefined {
  const e = unwrap(expr);
  if (ts.isStringLiteralLike(e)) return [e.text];
  if (ts.isTemplateExpression(e)) {
    let acc = [e.head.text];
    for (const span of e.templateSpans) {
      const parts = stringValues(span.expression, checker);
      if (!parts) return undefined;
      acc = acc.flatMap((a) => parts.map((p) => a + p + span.literal.text));
      if (acc.length > 64) return undefined;
    }
    return acc;
  }
  const type = checker.getTypeAtLocation(e);
  const members = type.isUnion() ? type.types : [type];
  if (members.length > 64 || !members.every((t) => t.isStringLiteral() || t.isNumberLiteral())) return undefined;
  return members.map((t) => String((t as ts.LiteralType).value));
}

/** Every place a regular expression is made in the given files. */
function findRegexSites(files: readonly string[], root: string, options: ts.CompilerOptions = compilerOptions()): RegexSite[] {
  const program = ts.createProgram(files, options);
  const checker = program.getTypeChecker();
  const sites: RegexSite[] = [];
  for (const path of files) {
    const sf = program.getSourceFile(path);
    if (!sf) throw new Error(`${path}: not in the program`);
    const file = relative(root, path);
    const add = (node: ts.Node, kind: RegexSite['kind'], pattern: ts.Expression, flags: string[] | undefined): void => {
      const sources = stringValues(pattern, checker);
      const values = sources && flags ? sources.flatMap((source) => flags.map((f) => ({ source, flags: f }))) : undefined;
      sites.push({ file, line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1, kind, expression: pattern.getText(sf), values });
    };
    const visit = (node: ts.Node): void => {
      if (ts.isRegularExpressionLiteral(node)) {
        const slash = node.text.lastIndexOf('/');
        sites.push({
          file, line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1, kind: 'literal', expression: node.text,
          values: [{ source: node.text.slice(1, slash), flags: node.text.slice(slash + 1) }],
        });
      } else if ((ts.isNewExpression(node) || ts.isCallExpression(node)) && ts.isIdentifier(unwrap(node.expression)) && unwrap(node.expression).getText(sf) === 'RegExp') {
        const [pattern, flagArg] = node.arguments ?? [];
        const literal = pattern && unwrap(pattern);
        if (literal && ts.isRegularExpressionLiteral(literal)) {
          // new RegExp(/literal/, flags): the literal's source with the given flags.
          const slash = literal.text.lastIndexOf('/');
          const flags = flagArg ? stringValues(flagArg, checker) : [literal.text.slice(slash + 1)];
          sites.push({
            file, line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1, kind: 'RegExp()', expression: node.getText(sf),
            values: flags?.map((f) => ({ source: literal.text.slice(1, slash), flags: f })),
          });
        } else if (pattern) {
          add(node, 'RegExp()', pattern, flagArg ? stringValues(flagArg, checker) : ['']);
        }
      } else if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)
        && ['match', 'matchAll', 'search'].includes(node.expression.name.text) && node.arguments[0]) {
        const target = checker.getTypeAtLocation(node.expression.expression);
        const arg = node.arguments[0];
        // A string argument to String.prototype.match/matchAll/search is compiled as a RegExp.
        if (target.flags & ts.TypeFlags.StringLike && checker.getTypeAtLocation(arg).flags & ts.TypeFlags.StringLike) add(node, 'string method', arg, ['']);
      } else if (ts.isPropertyAssignment(node) && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name))) {
        // A schema's `pattern` (ajv compiles it with `u`) and Mongo `$regex` (mingo or the server).
        if (node.name.text === 'pattern' && isSchema(node.parent, sf)) add(node, 'schema pattern', node.initializer, ['u']);
        if (node.name.text === '$regex') add(node, '$regex', node.initializer, ['']);
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return sites;
}

/** A JSON schema: an object literal given to `Type.Something(…)` (TypeBox), or one with a `type`. */
function isSchema(obj: ts.Node, sf: ts.SourceFile): boolean {
  if (!ts.isObjectLiteralExpression(obj)) return false;
  if (ts.isCallExpression(obj.parent) && obj.parent.expression.getText(sf).startsWith('Type.')) return true;
  return obj.properties.some((p) => ts.isPropertyAssignment(p) && p.name.getText(sf).replace(/['"]/g, '') === 'type');
}

const RECHECK_TIMEOUT_MS = 60_000;

/** A pattern whose backtracking does at least the work of the original's on every input:
 *  word boundaries dropped (an assertion only prunes paths) and long bounded repeats
 *  `{m,n}` made `{m,}` (every way to match the bounded one is a way to match the open one).
 *  Both keep recheck's exact automaton checker in play: it refuses `\b`, and a `{1,512}`
 *  overflows its stack. */
function relaxed(source: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i] ?? '';
    if (c === '\\') {
      const next = source[i + 1] ?? '';
      i++;
      if (!inClass && (next === 'b' || next === 'B')) continue;
      out += c + next;
    } else if (inClass) {
      if (c === ']') inClass = false;
      out += c;
    } else if (c === '[') {
      inClass = true;
      out += c;
    } else {
      const repeat = c === '{' ? /^\{(\d+),(\d+)\}/.exec(source.slice(i)) : null;
      if (repeat && Number(repeat[2]) > 30) {
        out += `{${repeat[1]},}`;
        i += repeat[0].length - 1;
      } else {
        out += c;
      }
    }
  }
  return out;
}

/** recheck's verdict. The automaton checker proves what it says and is fast, so it goes first,
 *  on the relaxed pattern: safe there is safe here. Anything else (vulnerable only once
 *  relaxed, a construct it refuses, a failure) goes to recheck's default checker on the
 *  pattern itself, which fuzzes. */
async function judge(source: string, flags: string): Promise<Diagnostics> {
  const loose = relaxed(source);
  const proof = await check(loose, flags, { checker: 'automaton', timeout: RECHECK_TIMEOUT_MS }).catch(() => undefined);
  if (proof?.status === 'safe') return { ...proof, source, flags };
  if (proof?.status === 'vulnerable' && loose === source) return proof;
  return check(source, flags, { timeout: RECHECK_TIMEOUT_MS });
}

interface Finding {
  readonly where: string;
  readonly problem: string;
}

/** Checks every site with recheck; what is not safe (or a dynamic pattern nobody reviewed) is a finding. */
async function findProblems(sites: readonly RegexSite[], reviewed: Record<string, DynamicReview>, superlinear: Record<string, string>): Promise<{ findings: Finding[]; checked: number; usedReviews: Set<string>; usedSuperlinear: Set<string> }> {
  const findings: Finding[] = [];
  const usedReviews = new Set<string>();
  const usedSuperlinear = new Set<string>();
  const verdicts = new Map<string, Promise<Diagnostics>>();
  const verdict = (source: string, flags: string): Promise<Diagnostics> => {
    const key = `/${source}/${flags}`;
    let v = verdicts.get(key);
    if (!v) {
      v = judge(source, flags);
      verdicts.set(key, v);
    }
    return v;
  };
  let checked = 0;
  for (const site of sites) {
    const where = `${site.file}:${site.line}`;
    let values = site.values;
    if (!values) {
      const review = reviewed[dynamicKey(site)];
      if (!review) {
        findings.push({ where, problem: `${site.kind} built at run time, not reviewed: ${collapse(site.expression)} (add it to REVIEWED_DYNAMIC with why it is linear and the values to check)` });
        continue;
      }
      usedReviews.add(dynamicKey(site));
      values = review.evaluate().map((r) => ({ source: r.source, flags: r.flags }));
    }
    for (const { source, flags } of values) {
      checked++;
      const started = Date.now();
      const d = await verdict(source, flags);
      // REGEX_LINEAR_DEBUG=1 shows what each check cost, when this test gets slow.
      if (process.env.REGEX_LINEAR_DEBUG) console.warn(`${Date.now() - started} ms ${d.status} ${d.checker ?? ''} /${source}/${flags}`);
      if (d.status === 'safe') continue;
      if (superlinear[superlinearKey(site.file, source)] !== undefined) {
        usedSuperlinear.add(superlinearKey(site.file, source));
        continue;
      }
      findings.push({
        where,
        problem: d.status === 'vulnerable'
          ? `/${source}/${flags} is ${d.complexity.summary}; attack string: ${d.attack.pattern}`
          : `/${source}/${flags} could not be checked (${d.error.kind}${'message' in d.error ? `: ${d.error.message}` : ''})`,
      });
    }
  }
  return { findings, checked, usedReviews, usedSuperlinear };
}

const backend = process.env.RECHECK_BACKEND;
beforeAll(() => {
  // Pure JavaScript: no JVM and no native agent, so the check runs offline and anywhere.
  process.env.RECHECK_BACKEND = 'pure';
});
afterAll(() => {
  if (backend === undefined) delete process.env.RECHECK_BACKEND;
  else process.env.RECHECK_BACKEND = backend;
});

describe('regular expressions run in linear time', () => {
  it('the check itself reports a super-linear regex with its place and attack string, and an unreviewed dynamic one', async () => {
    const dir = tempDir('regex-linear-');
    try {
      const fixture = join(dir, 'fixture.ts');
      writeFileSync(fixture, [
        'declare const input: string;',
        'export const exponential = /^(a+)+$/;',
        "export const quadratic = input.replace(new RegExp('<[^>]*>', 'g'), '');",
        "export const fine = /^acct_[0-9a-f]{32}$/.test(input) || input.match('^x+$');",
        'export const unknown = new RegExp(input);',
        // Vulnerable once relaxed for the exact checker (no \\b): then the original itself is judged.
        'export const guarded = /\\b(a|a)+$/;',
        "export const schema = { type: 'string', pattern: '^[0-9]*[0-9]*x$' };",
        "export const reflagged = new RegExp(/^[a-z]+$/, 'i');",
      ].join('\n'));
      const sites = findRegexSites([fixture], dir);
      expect(sites.map((s) => `${s.line}:${s.kind}`)).toEqual(['2:literal', '3:RegExp()', '4:literal', '4:string method', '5:RegExp()', '6:literal', '7:schema pattern', '8:RegExp()', '8:literal']);
      expect(sites[7]?.values).toEqual([{ source: '^[a-z]+$', flags: 'i' }]);
      const { findings } = await findProblems(sites, {}, {});
      expect(findings.map((f) => f.where)).toEqual(['fixture.ts:2', 'fixture.ts:3', 'fixture.ts:5', 'fixture.ts:6', 'fixture.ts:7']);
      expect(findings[0]?.problem).toMatch(/^\/\^\(a\+\)\+\$\/ is exponential; attack string: 'a'/);
      expect(findings[1]?.problem).toMatch(/^\/<\[\^>\]\*>\/g is 2nd degree polynomial; attack string: '<'\.repeat\(\d+\)/);
      expect(findings[2]?.problem).toMatch(/built at run time, not reviewed: input/);
      expect(findings[3]?.problem).toMatch(/^\/\\b\(a\|a\)\+\$\/ is exponential/);
      expect(findings[4]?.problem).toMatch(/^\/\^\[0-9\]\*\[0-9\]\*x\$\/u is 2nd degree polynomial; attack string: /);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('every regex in src/ and machines/ is safe', async () => {
    const files = [...tsFiles(join(ROOT, 'src')), ...tsFiles(join(ROOT, 'machines'))];
    const sites = findRegexSites(files, ROOT);
    // Sanity: the walk sees the kinds of site the code has (a silent walk would pass anything).
    for (const kind of ['literal', 'RegExp()', 'schema pattern', '$regex'] as const) expect(sites.some((s) => s.kind === kind), kind).toBe(true);
    const { findings, checked, usedReviews, usedSuperlinear } = await findProblems(sites, REVIEWED_DYNAMIC, REVIEWED_SUPERLINEAR);
    console.log(`regex-linear: ${sites.length} sites in ${files.length} files, ${checked} patterns checked by recheck`);
    expect(findings.map((f) => `${f.where}: ${f.problem}`)).toEqual([]);
    // Entries whose code is gone are dropped, so the lists stay a true record of what was reviewed.
    expect(Object.keys(REVIEWED_DYNAMIC).filter((k) => !usedReviews.has(k)), 'stale REVIEWED_DYNAMIC entries').toEqual([]);
    expect(Object.keys(REVIEWED_SUPERLINEAR).filter((k) => !usedSuperlinear.has(k)), 'stale REVIEWED_SUPERLINEAR entries').toEqual([]);
  }, 300_000);
});
