// Cleaning text that anyone can write (message HTML from the platform, model answers) in time
// bounded by a fixed length, whatever the text holds. Everything here cuts first and then
// reads the text once, left to right: `/<[^>]*>/g` over 300,000 `<` held the event loop 28 s
// (each `<` searched to the end for a `>`), which stalled every chat of the partition (issue 13).
// Any regex applied here is checked linear by test/security/regex-linear.test.ts.

/** How much of a text is looked at: ten times the longest text a read model keeps (10,000
 *  characters), so a normal message, markup and all, is never cut. */
export const MAX_SOURCE_CHARS = 100_000;

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;

/** The first `max` characters, without leaving half of a surrogate pair at the end. */
export function cut(text: string, max = MAX_SOURCE_CHARS): string {
  if (text.length <= max) return text;
  return text.slice(0, isHighSurrogate(text.charCodeAt(max - 1)) ? max - 1 : max);
}

/** Replaces every `<…>` exactly as `text.replace(/<[^>]*>/g, replacement)` does, in one pass:
 *  when a `<` has no `>` after it, no later `<` has one either, so the search stops there. */
export function stripTags(text: string, replacement = ''): string {
  let out = '';
  let from = 0;
  for (;;) {
    const open = text.indexOf('<', from);
    if (open < 0) break;
    const close = text.indexOf('>', open + 1);
    if (close < 0) break;
    out += text.slice(from, open) + replacement;
    from = close + 1;
  }
  return from === 0 ? text : out + text.slice(from);
}

// Both linear: a `<br` owns the whitespace after it, and an entity is at most 6 characters.
const LINE_BREAK = /<br\s*\/?>/gi;
const ENTITY = /&(amp|lt|gt|quot|#39|nbsp);/g;
const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&nbsp;': ' ' };

/** Message HTML to plain text of at most `maxChars`: line breaks kept, tags dropped, the
 *  common entities decoded, trimmed. Reads at most MAX_SOURCE_CHARS of the input. */
export function htmlToText(html: string, maxChars: number): string {
  return stripTags(cut(html).replace(LINE_BREAK, '\n'))
    .replace(ENTITY, (m) => ENTITIES[m] ?? m)
    .trim()
    .slice(0, maxChars);
}

/** Drops a closing code fence and the whitespace before it, exactly as
 *  `text.replace(/\s*```$/, '')` does (`\s` and `trimEnd` strip the same characters), without
 *  that regex's quadratic search through long runs of whitespace. */
export function withoutClosingFence(text: string): string {
  return text.endsWith('```') ? text.slice(0, -3).trimEnd() : text;
}
