// The serializer's copy of a schema means what the schema means: nullable scalars and choices
// of words lose their `anyOf` (which fast-json-stringify would validate branch by branch), and
// any value the schema admits is written byte for byte as JSON.stringify writes it. Property
// test (fast-check; a failure prints its seed), plus the inbox's real schema.
import fc from 'fast-check';
import fastJson from 'fast-json-stringify';
import { Type } from '@fastify/type-provider-typebox';
import { describe, expect, it } from 'vitest';
import { serializerSchema } from '../../src/http/serializer.js';
import { SessionListSchema } from '../../src/http/routes/reads.js';

const Nullable = <T extends object>(t: T) => Type.Union([t as never, Type.Null()]);
const Row = Type.Object({
  at: Nullable(Type.String({ format: 'date-time' })),
  count: Nullable(Type.Integer()),
  ratio: Nullable(Type.Number()),
  flag: Nullable(Type.Boolean()),
  status: Type.Union([Type.Literal('open'), Type.Literal('closed')]),
  reason: Nullable(Type.Union([Type.Literal('idle'), Type.Literal('forced')])),
  either: Type.Union([Type.Object({ kind: Type.Literal('a'), n: Type.Integer() }), Type.Object({ kind: Type.Literal('b'), s: Type.String() })]),
  reasons: Type.Array(Type.Object({ kind: Type.Union([Type.Literal('waiting'), Type.Literal('spend')]), text: Type.String() })),
});
const Answer = Type.Object({ items: Type.Array(Row) });

const row = fc.record({
  at: fc.option(fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString()), { nil: null }),
  count: fc.option(fc.integer(), { nil: null }),
  ratio: fc.option(fc.double({ noNaN: true, noDefaultInfinity: true }), { nil: null }),
  flag: fc.option(fc.boolean(), { nil: null }),
  status: fc.constantFrom('open', 'closed'),
  reason: fc.option(fc.constantFrom('idle', 'forced'), { nil: null }),
  either: fc.oneof(fc.record({ kind: fc.constant('a'), n: fc.integer() }), fc.record({ kind: fc.constant('b'), s: fc.string() })),
  reasons: fc.array(fc.record({ kind: fc.constantFrom('waiting', 'spend'), text: fc.string() }), { maxLength: 3 }),
});

describe('the serializer schema', () => {
  it('writes every admitted value as JSON.stringify does', () => {
    const serialise = fastJson(serializerSchema(Answer) as Parameters<typeof fastJson>[0]);
    fc.assert(fc.property(fc.array(row, { maxLength: 5 }), (items) => {
      const answer = { items };
      expect(serialise(answer)).toBe(JSON.stringify(answer));
    }), { numRuns: 300 });
  });

  it('takes the anyOf out of nullable scalars and words, and leaves a choice of objects alone', () => {
    const copy = serializerSchema(Row) as unknown as { properties: Record<string, Record<string, unknown>> };
    expect(copy.properties.at).toMatchObject({ type: ['string', 'null'], format: 'date-time' });
    expect(copy.properties.count).toMatchObject({ type: ['integer', 'null'] });
    expect(copy.properties.status).toMatchObject({ type: 'string', enum: ['open', 'closed'] });
    expect(copy.properties.reason).toMatchObject({ type: ['string', 'null'], enum: ['idle', 'forced', null] });
    expect(copy.properties.either?.anyOf).toHaveLength(2);
    // The inbox's schema: nothing the serializer would validate per value is left.
    expect(JSON.stringify(serializerSchema(SessionListSchema))).not.toContain('anyOf');
    // The document's copy is untouched.
    expect(JSON.stringify(SessionListSchema)).toContain('anyOf');
  });
});
