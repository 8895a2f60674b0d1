// An account's banned phrases (issue 50): words the agency never wants a chatter to write to a
// fan (a competitor's name, a promise it cannot keep). Matching is plain: case and runs of
// white space do not count, and a phrase matches inside a longer word only where it starts and
// ends on a word edge, so "pay" does not fire on "paypal" unless the list says "paypal".

/** At most this many phrases per account, each of MIN_PHRASE–MAX_PHRASE characters. */
export const MAX_PHRASES = 200;
export const MIN_PHRASE = 2;
export const MAX_PHRASE = 100;
/** A reply names at most this many of the phrases it matched. */
const MAX_MATCHES = 10;

const fold = (s: string): string => s.toLowerCase().replace(/\s+/g, ' ').trim();

export type PhrasesCheck = { readonly ok: true; readonly phrases: readonly string[] } | { readonly ok: false; readonly field: string; readonly reason: string };

/** The list as it is kept: each phrase folded (lower case, single spaces), in the order given. */
export function checkPhrases(phrases: readonly string[]): PhrasesCheck {
  if (phrases.length > MAX_PHRASES) return { ok: false, field: 'phrases', reason: `must have at most ${MAX_PHRASES} phrases` };
  const seen = new Map<string, number>();
  const out: string[] = [];
  for (const [i, raw] of phrases.entries()) {
    const p = fold(raw);
    if (p.length < MIN_PHRASE) return { ok: false, field: `phrases/${i}`, reason: `must have at least ${MIN_PHRASE} characters besides white space` };
    if (p.length > MAX_PHRASE) return { ok: false, field: `phrases/${i}`, reason: `must have at most ${MAX_PHRASE} characters` };
    const before = seen.get(p);
    if (before !== undefined) return { ok: false, field: `phrases/${i}`, reason: `repeats phrases/${before} ("${p}"; case and spacing do not count)` };
    seen.set(p, i);
    out.push(p);
  }
  return { ok: true, phrases: out };
}

const isWordChar = (c: string | undefined): boolean => c !== undefined && /[\p{L}\p{N}_]/u.test(c);

/** The phrases (as kept) the text contains, in the list's order. */
export function matchPhrases(text: string, phrases: readonly string[]): string[] {
  if (phrases.length === 0 || text.length === 0) return [];
  const t = fold(text);
  const out: string[] = [];
  for (const p of phrases) {
    for (let i = t.indexOf(p); i >= 0; i = t.indexOf(p, i + 1)) {
      // A word edge on each side, unless the phrase itself starts or ends on a non-word character.
      const startOk = !isWordChar(p[0]) || !isWordChar(t[i - 1]);
      const endOk = !isWordChar(p[p.length - 1]) || !isWordChar(t[i + p.length]);
      if (startOk && endOk) {
        out.push(p);
        break;
      }
    }
    if (out.length >= MAX_MATCHES) break;
  }
  return out;
}
