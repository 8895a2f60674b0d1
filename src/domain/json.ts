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
