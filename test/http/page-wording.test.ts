// The pages and the server's sentences write a figure one way: a duration in an alert's reason
// or the inbox's "Why first" reads as the same duration in the table beside it, and every alert
// rule the server raises has a name on the pages.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { duration } from '../../src/domain/wording.js';
import { RULES } from '../../src/intelligence/rules.js';

interface PageHelpers {
  duration(sec: number): string;
  ruleName(id: string): string;
  RULE_NAMES: Record<string, string>;
  accountName(id: string, displayName: string | null): string;
}
const page = await import(pathToFileURL(join(import.meta.dirname, '..', '..', 'web', 'common.js')).href) as PageHelpers;

describe('the pages\' wording', () => {
  it('writes every duration as the server does', () => {
    const samples = [0, 1, 59, 60, 61, 300, 599, 3599, 3600, 3661, 86_399, 86_400, 90_061, 10 * 86_400 + 7200];
    for (let s = 0; s < 200_000; s += 997) samples.push(s);
    for (const s of samples) expect(page.duration(s), `${s} s`).toBe(duration(s));
    expect(duration(300)).toBe('5m 00s');
    expect(duration(3661)).toBe('1h 01m');
  });

  it('names every alert rule in words, none by its id', () => {
    expect(Object.keys(page.RULE_NAMES).sort()).toEqual(RULES.map((r) => r.id).sort());
    for (const r of RULES) expect(page.ruleName(r.id)).not.toBe(r.id);
  });

  it('shortens a raw account id and keeps a display name whole', () => {
    expect(page.accountName('acct_01000000000000000000000000000000', null)).toBe('acct_0100…0000');
    expect(page.accountName('acct_short', null)).toBe('acct_short');
    expect(page.accountName('acct_01000000000000000000000000000000', 'Demo: A rather long creator name')).toBe('Demo: A rather long creator name');
  });
});
