// JSON parsing that never loses an id: platform ids are integers that can exceed 2^53.

// Any integer literal of 16+ digits might not survive a JS number; only then look closer.
const LONG_INTEGER = /\d{16,}/g;

/** Whether some run of digits is too long for a JS number, wherever it is (strings included). */
function hasUnsafeDigits(text: string): boolean {
  // Most long runs are safe 16-digit ids, or digits inside strings (URLs, signatures): the
  // string-aware pass below costs as much as JSON.parse itself, so it runs only when needed.
  for (const m of text.matchAll(LONG_INTEGER)) if (!Number.isSafeInteger(Number(m[0]))) return true;
  return false;
}

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
 * strings. A quoting pass and the native parser: a general lossless parser costs ~140 ms per
 * MB, which a fan could trigger by typing a long number into a message.
 */
export function parseJson(text: string): unknown {
  if (!hasUnsafeDigits(text)) return JSON.parse(text);
  return JSON.parse(quoteUnsafeIntegers(text) ?? text);
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
  // Only objects and arrays are stacked (with their depth alongside): every webhook body is
  // walked, and stacking each value in a small object was a third of the walk's cost.
  if (typeof root !== 'object' || root === null) return undefined;
  const values: object[] = [root];
  const depths: number[] = [0];
  while (values.length > 0) {
    const v = values.pop() as object;
    const depth = depths.pop() as number;
    if (depth >= maxDepth) return `is nested deeper than ${maxDepth} levels`;
    if (Array.isArray(v)) {
      for (const item of v) {
        if (typeof item === 'object' && item !== null) {
          values.push(item);
          depths.push(depth + 1);
        }
      }
      continue;
    }
    for (const key of Object.keys(v)) {
      const child = (v as JsonObject)[key];
      if (key === '__proto__') return 'must not contain a "__proto__" key';
      if (key === 'constructor' && isObject(child) && Object.hasOwn(child, 'prototype')) return 'must not contain a "constructor.prototype" key';
      if (typeof child === 'object' && child !== null) {
        values.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return undefined;
}
