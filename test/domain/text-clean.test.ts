// The text cleaner: the same output as the regexes it replaced for every text within its cut,
// and bounded work for any text at all. No timing here (that is bench/hostile-text.ts): the
// 1 MB and 2 MB cases below took minutes with the old regexes, so a return at all says linear.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_TEXT_CHARS, plainText } from '../../src/domain/normalise.js';
import { MAX_SOURCE_CHARS, cut, htmlToText, stripTags, withoutClosingFence } from '../../src/domain/text-clean.js';

import { oldPlainText, oldStripTags } from '../support/old-text-clean.js';

// What model-provider.ts did before issue 13.
const oldClosingFence = (text: string): string => text.replace(/\s*```$/, '');

/** Strings built from the pieces that matter to the cleaner, so tags, breaks and entities occur often. */
const htmlish = fc.array(fc.constantFrom(
  '<', '>', '</', '/>', '<br', '<BR', '<br/>', '<br >', 'br', ' ', '\n', '\t', '\u00a0', '&', ';', 'amp', 'lt', 'gt', '&amp;',
  '&lt;', '&gt;', '&quot;', '&#39;', '&nbsp;', '&#40;', 'p', 'a', 'x', 'é', '😀', '\ud83d',
), { maxLength: 80 }).map((parts) => parts.join(''));

describe('text cleaner', () => {
  it('normal message HTML becomes the plain text it always did', () => {
    const cases: [string, string][] = [
      ['<p>Hello <b>there</b>!</p>', 'Hello there!'],
      ['line one<br>line two<br/>three<BR />four', 'line one\nline two\nthree\nfour'],
      ['<p>I &lt;3 you &amp; &quot;it&quot; &#39;ok&#39;&nbsp;now</p>', 'I <3 you & "it" \'ok\' now'],
      ['&lt;b&gt;not a tag&lt;/b&gt;', '<b>not a tag</b>'],
      ['  <p>  padded  </p>  ', 'padded'],
      ['5 < 6 and 7 > 3', '5  3'],
      ['a < b', 'a < b'],
      ['<a href="https://example.com/x?y=1&amp;z=2">link</a> &copy; kept', 'link &copy; kept'],
      ['Sample fan message text used in anonymized fixtures.', 'Sample fan message text used in anonymized fixtures.'],
      ['', ''],
    ];
    for (const [html, text] of cases) {
      expect(htmlToText(html, MAX_TEXT_CHARS), html).toBe(text);
      expect(plainText(html), html).toBe(text);
    }
    expect(plainText(42)).toBe('');
    expect(plainText(null)).toBe('');
  });

  it('matches the old regexes on any text within the cut', () => {
    fc.assert(fc.property(htmlish, (html) => {
      expect(htmlToText(html, MAX_TEXT_CHARS)).toBe(oldPlainText(html));
      expect(htmlToText(html, 7)).toBe(oldPlainText(html).slice(0, 7));
      expect(stripTags(html)).toBe(oldStripTags(html, ''));
      expect(stripTags(html, ' ')).toBe(oldStripTags(html, ' '));
    }), { numRuns: 3000 });
    fc.assert(fc.property(fc.string({ unit: fc.constantFrom('`', ' ', '\n', '\t', '\u00a0', '\u2028', '\ufeff', 'x', '{', '}') }), (text) => {
      expect(withoutClosingFence(text)).toBe(oldClosingFence(text));
    }), { numRuns: 3000 });
  });

  it('cuts long texts: at most MAX_SOURCE_CHARS read, at most maxChars kept, no half surrogate pair', () => {
    expect(cut('abc', 5)).toBe('abc');
    expect(cut('abcdef', 4)).toBe('abcd');
    expect(cut('abc😀', 4)).toBe('abc');
    expect(cut('ab😀', 4)).toBe('ab😀');
    const long = 'word '.repeat(50_000);
    expect(htmlToText(long, MAX_TEXT_CHARS)).toHaveLength(MAX_TEXT_CHARS);
    expect(htmlToText(long, MAX_TEXT_CHARS)).toBe(oldPlainText(long));
    // Whatever lies past the cut is not read: a tag closed only there stays open text.
    const closedLate = `${'x'.repeat(10)}<${'y'.repeat(MAX_SOURCE_CHARS)}>tail`;
    expect(htmlToText(closedLate, 20)).toBe(`${'x'.repeat(10)}<${'y'.repeat(9)}`);
    // Markup does not count against the cut of the output: 90,000 characters of tags, then text.
    const markupHeavy = `${'<i>'.repeat(30_000)}after the markup`;
    expect(htmlToText(markupHeavy, MAX_TEXT_CHARS)).toBe('after the markup');
  });

  it('handles 1 MB and 2 MB of pathological markup', () => {
    for (const size of [1_000_000, 2_000_000]) {
      const lt = '<'.repeat(size);
      expect(htmlToText(lt, MAX_TEXT_CHARS)).toBe('<'.repeat(MAX_TEXT_CHARS));
      expect(plainText(lt)).toHaveLength(MAX_TEXT_CHARS);
      // The scan itself is linear, cut or not.
      expect(stripTags(lt)).toBe(lt);
      const nested = 'abcdefghijklmnopqrstuvwxyz'.split('').map((c) => `<${c}`).join('').repeat(Math.ceil(size / 52)).slice(0, size);
      expect(htmlToText(nested, MAX_TEXT_CHARS)).toBe(nested.slice(0, MAX_TEXT_CHARS));
      expect(stripTags(`${nested}>`)).toBe('');
      const breaks = `<br${' '.repeat(size)}`;
      expect(htmlToText(breaks, MAX_TEXT_CHARS)).toBe('<br');
      const spaces = `x${' '.repeat(size)}x`;
      expect(withoutClosingFence(spaces)).toBe(spaces);
      expect(withoutClosingFence(`${spaces}${' '.repeat(size)}\`\`\``)).toBe(spaces);
    }
  });
});
