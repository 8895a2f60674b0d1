// JSON parsing that never loses an id: platform ids are integers that can exceed 2^53.
import { parse as losslessParse } from 'lossless-json';

// Any integer literal of 16+ digits might not survive a JS number; only then pay for the slow parser.
const LONG_INTEGER = /\d{16,}/;

function keepUnsafeIntegersAsStrings(literal: string): number | string {
  const n = Number(literal);
  return Number.isSafeInteger(n) || !/^-?\d+$/.test(literal) ? n : literal;
}

/** Parses JSON; integers beyond Number.MAX_SAFE_INTEGER come back as their exact decimal strings. */
export function parseJson(text: string): unknown {
  if (!LONG_INTEGER.test(text)) return JSON.parse(text);
  return losslessParse(text, null, keepUnsafeIntegersAsStrings);
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
  const stack: { v: unknown; depth: number }[] = [{ v: root, depth: 0 }];
  while (stack.length > 0) {
    const { v, depth } = stack.pop() as { v: unknown; depth: number };
    if (typeof v !== 'object' || v === null) continue;
    if (depth >= maxDepth) return `is nested deeper than ${maxDepth} levels`;
    if (Array.isArray(v)) {
      for (const item of v) stack.push({ v: item, depth: depth + 1 });
      continue;
    }
    for (const key of Object.keys(v)) {
      const child = (v as JsonObject)[key];
      if (key === '__proto__') return 'must not contain a "__proto__" key';
      if (key === 'constructor' && isObject(child) && Object.hasOwn(child, 'prototype')) return 'must not contain a "constructor.prototype" key';
      stack.push({ v: child, depth: depth + 1 });
    }
  }
  return undefined;
}
