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

/**
 * A request body parsed once, as the door needs it: lossless like parseJson, and in the same
 * walk the structure check of unsafeStructure. `unsafe` says why it must be refused (then
 * `value` may still hold rounded numbers: it is not to be kept).
 */
export function parseCheckedJson(text: string, maxDepth = MAX_JSON_DEPTH): { readonly value: unknown; readonly unsafe: string | undefined } {
  const value: unknown = JSON.parse(text);
  const walked = walk(value, maxDepth);
  if (walked.unsafe !== undefined || !walked.rounded) return { value, unsafe: walked.unsafe };
  // Quoting long integers changes no structure: the check stands.
  return { value: JSON.parse(quoteUnsafeIntegers(text) ?? text), unsafe: undefined };
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
function walk(root: unknown, maxDepth: number): { unsafe: string | undefined; rounded: boolean } {
  if (typeof root === 'number') return { unsafe: undefined, rounded: rounded(root) };
  if (typeof root !== 'object' || root === null) return { unsafe: undefined, rounded: false };
  // Only objects and arrays are stacked (with their depth alongside): every webhook body is
  // walked, and stacking each value in a small object was a third of the walk's cost.
  const values: object[] = [root];
  const depths: number[] = [0];
  let sawRounded = false;
  while (values.length > 0) {
    const v = values.pop() as object;
    const depth = depths.pop() as number;
    if (depth >= maxDepth) return { unsafe: `is nested deeper than ${maxDepth} levels`, rounded: sawRounded };
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
    for (const key of Object.keys(v)) {
      const child = (v as JsonObject)[key];
      if (key === '__proto__') return { unsafe: 'must not contain a "__proto__" key', rounded: sawRounded };
      if (typeof child === 'number') {
        if (rounded(child)) sawRounded = true;
      } else if (typeof child === 'object' && child !== null) {
        if (key === 'constructor' && !Array.isArray(child) && Object.hasOwn(child, 'prototype')) return { unsafe: 'must not contain a "constructor.prototype" key', rounded: sawRounded };
        values.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return { unsafe: undefined, rounded: sawRounded };
}
