// The text cleaning convops did before issue 13 (quadratic on a run of `<`): the reference
// the new cleaner must equal within its cut, and the "before" of bench/hostile-text.ts.
const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&nbsp;': ' ' };

export const oldPlainText = (html: string): string => html
  .replace(/<br\s*\/?>/gi, '\n')
  .replace(/<[^>]*>/g, '')
  .replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (m) => ENTITIES[m] ?? m)
  .trim()
  .slice(0, 10_000);

export const oldStripTags = (text: string, replacement: string): string => text.replace(/<[^>]*>/g, replacement);
