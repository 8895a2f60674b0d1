// Answers are serialised with their response schemas (fast-json-stringify), but from a
// rewritten copy of each schema. TypeBox writes a nullable field as `anyOf: [X, {type: null}]`
// and a choice of words as `anyOf` of constants; fast-json-stringify serialises every `anyOf`
// by validating the value against each branch with Ajv, which made the inbox's 50 rows 2.5
// times slower than JSON.stringify (bench/serialise.ts). The same meaning as a type list
// (`type: ["string", "null"]`) or an `enum` it writes directly, about as fast as JSON.stringify.
// The document keeps the schemas as written; only the serializer sees the copy.
import fastJson from 'fast-json-stringify';
import type { FastifySerializerCompiler } from 'fastify/types/schema.js';

type Schema = Record<string, unknown>;
const SCALARS = new Set(['string', 'number', 'integer', 'boolean']);

const isNull = (s: Schema): boolean => s.type === 'null';
const isWord = (s: Schema): boolean => typeof s.const === 'string';
const isScalar = (s: Schema): boolean => typeof s.type === 'string' && SCALARS.has(s.type) && s.const === undefined && s.enum === undefined;
const isWordList = (s: Schema): boolean => s.type === 'string' && Array.isArray(s.enum);
/** Keywords a flattened branch may carry up: none that would make the serializer write a value (`default`) or name a schema (`$id`). */
const PLAIN = new Set(['type', 'format', 'description', 'title', 'const', 'enum', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength', 'pattern']);
const isPlain = (s: Schema): boolean => Object.keys(s).every((k) => PLAIN.has(k));

/** One `anyOf` the serializer can write without validating, or null when it must stay as it is. */
function flattened(node: Schema, branches: Schema[]): Schema | null {
  const { anyOf: _anyOf, ...rest } = node;
  if (!branches.every(isPlain)) return null;
  const nullable = branches.some(isNull);
  const others = branches.filter((b) => !isNull(b));
  if (others.length > 0 && others.every(isWord)) {
    return { ...rest, type: nullable ? ['string', 'null'] : 'string', enum: [...others.map((b) => b.const), ...(nullable ? [null] : [])] };
  }
  if (!nullable || others.length !== 1) return null;
  const [only] = others as [Schema];
  if (isScalar(only)) return { ...rest, ...only, type: [only.type, 'null'] };
  if (isWordList(only)) return { ...rest, ...only, type: ['string', 'null'], enum: [...(only.enum as unknown[]), null] };
  return null;
}

/** The schema as the serializer takes it: nullable scalars and choices of words without `anyOf`. */
export function serializerSchema<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(serializerSchema) as T;
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Schema = {};
  for (const [k, v] of Object.entries(schema)) out[k] = serializerSchema(v);
  const branches = out.anyOf;
  if (Array.isArray(branches)) return (flattened(out, branches as Schema[]) ?? out) as T;
  return out as T;
}

export const serializerCompiler: FastifySerializerCompiler<unknown> = ({ schema }) => fastJson(serializerSchema(schema) as Parameters<typeof fastJson>[0]);
