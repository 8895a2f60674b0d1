// JSON parsing that never loses an id: platform ids are integers that can exceed 2^53.

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/**
 * Whether a number may have been rounded by JSON.parse: an integer literal beyond 2^53 - 1
 * parses to a double of at least 2^53 in magnitude, so only then is the text looked at again.
 * A walk over what JSON.parse built (walk, below) costs less than a pass over the text, which
 * had to look at the long digit runs inside strings (URLs, hashes) that most bodies hold.
 */
const rounded = (n: number): boolean => n > MAX_SAFE || n < -MAX_SAFE;

const isDigit = (c: number): boolean => c >= 48 && c <= 57;

/**
 * The text with every integer literal that a JS number cannot hold exactly put in quotes, so
 * JSON.parse keeps it as its decimal string; null when there is none (the digits were inside
 * strings, as in a fan's message, or the integers are safe). One pass, outside strings only.
 * Invalid JSON is left for JSON.parse to refuse.
 */
function quoteUnsafeIntegers(text: string): string | null {
  const parts: string[] = [];
  let copied = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // Skip the string, escapes included.
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 92) i++;
        else if (d === 34) break;
      }
      continue;
    }
    if (c !== 45 && !isDigit(c)) continue;
    let j = c === 45 ? i + 1 : i;
    while (j < text.length && isDigit(text.charCodeAt(j))) j++;
    const next = text.charCodeAt(j);
    if (next === 46 || next === 101 || next === 69) {
      // A fraction or an exponent: a float, which JSON.parse reads as lossily as ever.
      while (j < text.length && /[0-9eE+\-.]/.test(text.charAt(j))) j++;
    } else if (j - i >= 16 && text.charCodeAt(c === 45 ? i + 1 : i) !== 48 && !Number.isSafeInteger(Number(text.slice(i, j)))) {
      // (A leading zero is no JSON number: left as it is, for JSON.parse to refuse.)
      parts.push(text.slice(copied, i), '"', text.slice(i, j), '"');
      copied = j;
    }
    i = j - 1;
  }
  if (parts.length === 0) return null;
  parts.push(text.slice(copied));
  return parts.join('');
}

/**
 * Parses JSON; integers beyond Number.MAX_SAFE_INTEGER come back as their exact decimal
 * strings. The native parser, and only when what it built holds such a number, a quoting pass
 * and the native parser again: a general lossless parser costs ~140 ms per MB, which a fan
 * could trigger by typing a long number into a message.
 */
export function parseJson(text: string): unknown {
  const value: unknown = JSON.parse(text);
  // No depth limit; a walk that stops at an unsafe key has not looked at everything, so that
  // (rare, refused at the door) value is parsed the careful way.
  const walked = walk(value, Number.POSITIVE_INFINITY);
  if (walked.unsafe === undefined && !walked.rounded) return value;
  return JSON.parse(quoteUnsafeIntegers(text) ?? text);
}

/** Why a body is refused, and where: `at` is the path of the key it is about (a duplicate), else the body as a whole. */
export interface Unsafe {
  readonly reason: string;
  readonly at?: string;
}

/**
 * A request body parsed once, as the door needs it: lossless like parseJson (unless `lossless`
 * is false: the API's own bodies, whose schemas type their numbers), and in the same walk the
 * structure check of unsafeStructure and the duplicate-key check. `unsafe` says why it must be
 * refused (then `value` may still hold rounded numbers or a duplicate's last value: it is not
 * to be kept).
 */
export function parseCheckedJson(text: string, maxDepth = MAX_JSON_DEPTH, lossless = true): { readonly value: unknown; readonly unsafe: Unsafe | undefined } {
  const value: unknown = JSON.parse(text);
  const walked = walk(value, maxDepth);
  if (walked.unsafe !== undefined) return { value, unsafe: { reason: walked.unsafe } };
  // JSON.parse keeps the last of two equal keys, silently: {"amount":1,"amount":99999} would be
  // read as 99999 while a reader of the text sees 1 (and both are "signed"). A text holding more
  // keys than the value is a text with a duplicate; only then is it read again to name it.
  if (keyCount(text) > walked.keys) {
    const dup = firstDuplicateKey(text);
    return { value, unsafe: { reason: 'is given more than once (a duplicate JSON key; JSON parsers disagree on which one counts)', at: dup ?? '' } };
  }
  if (!walked.rounded || !lossless) return { value, unsafe: undefined };
  // Quoting long integers changes no structure: the check stands.
  return { value: JSON.parse(quoteUnsafeIntegers(text) ?? text), unsafe: undefined };
}

const isJsonSpace = (c: number): boolean => c === 32 || c === 10 || c === 13 || c === 9;

/** The index of the quote closing the string that opens at `open`, or -1. */
function closingQuote(text: string, open: number): number {
  let j = open + 1;
  for (;;) {
    j = text.indexOf('"', j);
    if (j === -1) return -1;
    let b = j - 1;
    while (text.charCodeAt(b) === 92) b--;
    // An even run of backslashes before it escapes only themselves.
    if ((j - 1 - b) % 2 === 0) return j;
    j++;
  }
}

/** Whether the string closing at `close` is an object key: the next thing after it is a colon. */
function isKey(text: string, close: number): boolean {
  let k = close + 1;
  while (k < text.length && isJsonSpace(text.charCodeAt(k))) k++;
  return text.charCodeAt(k) === 58;
}

/**
 * How many object keys a valid JSON text spells. In valid JSON every unescaped quote opens or
 * closes a string, so jumping from quote to quote (native indexOf) visits every string without
 * a character-by-character pass over the 8 KB of a webhook.
 */
function keyCount(text: string): number {
  let count = 0;
  for (let open = text.indexOf('"'); open !== -1;) {
    const close = closingQuote(text, open);
    if (close === -1) return count;
    if (isKey(text, close)) count++;
    open = text.indexOf('"', close + 1);
  }
  return count;
}

/** The path (payload.amount, items[2].id) of the first key a valid JSON text gives twice in one object; undefined when none is. */
export function firstDuplicateKey(text: string): string | undefined {
  // One frame per open object or array: its keys so far, and the key or index being read.
  const frames: { keys: Set<string> | null; at: string | number }[] = [];
  // A key is named as written when it is a plain name, else quoted; either way cut to 64
  // characters: the name goes back to the sender and into the logs.
  const name = (key: string): string => {
    const cut = key.slice(0, 64);
    return `${/^[A-Za-z0-9_$@{}-]+$/.test(cut) ? cut : JSON.stringify(cut)}${key.length > 64 ? '…' : ''}`;
  };
  const path = (last: string): string => [...frames.slice(0, -1).map((f) => f.at), last]
    .reduce<string>((p, seg) => (typeof seg === 'number' ? `${p}[${seg}]` : p === '' ? name(seg) : `${p}.${name(seg)}`), '');
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 123) frames.push({ keys: new Set(), at: '' });
    else if (c === 91) frames.push({ keys: null, at: 0 });
    else if (c === 125 || c === 93) frames.pop();
    else if (c === 44) {
      const top = frames[frames.length - 1];
      if (top && top.keys === null) top.at = (top.at as number) + 1;
    } else if (c === 34) {
      const close = closingQuote(text, i);
      if (close === -1) return undefined;
      const top = frames[frames.length - 1];
      if (top?.keys && isKey(text, close)) {
        const key = JSON.parse(text.slice(i, close + 1)) as string;
        if (top.keys.has(key)) return path(key);
        top.keys.add(key);
        top.at = key;
      }
      i = close;
    }
  }
  return undefined;
}

export type JsonObject = Record<string, unknown>;

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** An id as the platform meant it: numbers and numeric strings become their decimal string. */
export function idString(v: unknown): string | undefined {
  if (typeof v === 'string') return v.length > 0 ? v : undefined;
  if (typeof v === 'number' && Number.isFinite(v)) return Number.isInteger(v) ? String(v) : undefined;
  if (typeof v === 'bigint') return v.toString();
  return undefined;
}

/** Deeper than any platform body; a deeper one is an attack on whoever walks it later. */
export const MAX_JSON_DEPTH = 64;

/**
 * Why a parsed body is unsafe to keep, or undefined: nesting beyond `maxDepth`, or the keys
 * that pollute prototypes when a consumer merges the object (`__proto__`, and `constructor`
 * holding `prototype`), refused everywhere like Fastify refuses them in parsed bodies.
 * Iterative, so no depth can overflow the stack.
 */
export function unsafeStructure(root: unknown, maxDepth = MAX_JSON_DEPTH): string | undefined {
  return walk(root, maxDepth).unsafe;
}

/** unsafeStructure's answer, and whether a number JSON.parse may have rounded was seen on the way (up to where it stopped). */
function walk(root: unknown, maxDepth: number): { unsafe: string | undefined; rounded: boolean; keys: number } {
  if (typeof root === 'number') return { unsafe: undefined, rounded: rounded(root), keys: 0 };
  if (typeof root !== 'object' || root === null) return { unsafe: undefined, rounded: false, keys: 0 };
  // Only objects and arrays are stacked (with their depth alongside): every webhook body is
  // walked, and stacking each value in a small object was a third of the walk's cost.
  const values: object[] = [root];
  const depths: number[] = [0];
  let sawRounded = false;
  let keys = 0;
  while (values.length > 0) {
    const v = values.pop() as object;
    const depth = depths.pop() as number;
    if (depth >= maxDepth) return { unsafe: `is nested deeper than ${maxDepth} levels`, rounded: sawRounded, keys };
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const item: unknown = v[i];
        if (typeof item === 'number') {
          if (rounded(item)) sawRounded = true;
        } else if (typeof item === 'object' && item !== null) {
          values.push(item);
          depths.push(depth + 1);
        }
      }
      continue;
    }
    const own = Object.keys(v);
    keys += own.length;
    for (const key of own) {
      const child = (v as JsonObject)[key];
      if (key === '__proto__') return { unsafe: 'must not contain a "__proto__" key', rounded: sawRounded, keys };
      if (typeof child === 'number') {
        if (rounded(child)) sawRounded = true;
      } else if (typeof child === 'object' && child !== null) {
        if (key === 'constructor' && !Array.isArray(child) && Object.hasOwn(child, 'prototype')) return { unsafe: 'must not contain a "constructor.prototype" key', rounded: sawRounded, keys };
        values.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return { unsafe: undefined, rounded: sawRounded, keys };
}
