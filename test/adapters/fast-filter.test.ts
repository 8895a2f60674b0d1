// The embedded store's compiled filters and projections (src/adapters/store/fast-filter.ts)
// against mingo, the library that defines MongoDB's semantics for it: over random documents
// (numbers, strings, null, missing fields, arrays, objects) and random filters of the compiled
// subset, a compiled test that decides must decide as mingo does, and a compiled projection
// must give mingo's document. A failure prints fast-check's seed (PROPERTY_SEED / PROPERTY_PATH).
import fc from 'fast-check';
import { Query } from 'mingo';
import { describe, expect, it } from 'vitest';
import { compileFilter, compileProjection } from '../../src/adapters/store/fast-filter.js';
import { propertyRuns } from '../support/property-runs.js';

const params = propertyRuns;

const FIELDS = ['a', 'b', 'c'] as const;
const scalar = fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constantFrom('x', 'y', 'z', '', '10', '9'), fc.constant(null), fc.boolean(), fc.double({ min: -3, max: 3, noNaN: true }));
const value = fc.oneof({ weight: 6, arbitrary: scalar }, { weight: 1, arbitrary: fc.array(scalar, { maxLength: 3 }) }, { weight: 1, arbitrary: fc.record({ k: scalar }).map((o) => ({ ...o })) });
// Plain objects, as the store decodes them (fast-check may make prototype-less ones, which mingo cannot hash).
const doc = fc.record({ _id: fc.constantFrom('d1', 'd2'), a: value, b: value, c: value }, { requiredKeys: ['_id'] }).map((o) => ({ ...o }));

const operand = fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constantFrom('x', 'y', '10'));
const condition = fc.oneof(
  scalar,
  fc.record({ $gte: operand, $lt: operand }, { requiredKeys: [] }),
  fc.record({ $gt: operand, $lte: operand }, { requiredKeys: [] }),
  fc.constant({ $ne: null }),
  fc.record({ $in: fc.array(scalar, { maxLength: 4 }) }),
  // Outside the compiled subset: compileFilter must say so.
  fc.record({ $exists: fc.boolean() }),
  fc.record({ $ne: scalar }),
);
const filter = fc.dictionary(fc.constantFrom(...FIELDS, 'a.k'), condition, { maxKeys: 3 });

describe('compiled filters', () => {
  it('decide as mingo does whenever they decide, and leave out what they do not compile', () => {
    fc.assert(fc.property(filter, fc.array(doc, { minLength: 1, maxLength: 8 }), (f, docs) => {
      const test = compileFilter(f);
      const outside = Object.entries(f).some(([k, v]) => k.includes('.') || (typeof v === 'object' && v !== null && ('$exists' in v || ('$ne' in v && (v as { $ne: unknown }).$ne !== null) || Object.keys(v).length === 0)));
      if (outside) {
        expect(test).toBeNull();
        return;
      }
      expect(test).not.toBeNull();
      const q = new Query(f);
      for (const d of docs) {
        const r = test?.(d);
        if (r !== undefined) expect(r, JSON.stringify({ f, d })).toBe(q.test(d));
      }
    }), params(2_000));
  });

  it('decide the read models\' common cases without mingo', () => {
    const test = compileFilter({ accountId: 'a1', sentAt: { $gte: 10, $lt: 20 } });
    expect(test?.({ accountId: 'a1', sentAt: 10 })).toBe(true);
    expect(test?.({ accountId: 'a1', sentAt: 20 })).toBe(false);
    expect(test?.({ accountId: 'a2', sentAt: 15 })).toBe(false);
    expect(test?.({ accountId: 'a1' })).toBe(false);
    expect(compileFilter({ status: 'open', firstResponseSec: null, firstFanMessageAt: { $ne: null } })?.({ status: 'open', firstFanMessageAt: 5 })).toBe(true);
  });
});

describe('compiled projections', () => {
  const projection = fc.oneof(
    fc.uniqueArray(fc.constantFrom('a', 'b', 'c', '_id'), { minLength: 1, maxLength: 3 }).map((ks) => Object.fromEntries(ks.map((k) => [k, 1]))),
    fc.uniqueArray(fc.constantFrom('a', 'b', 'c', '_id'), { minLength: 1, maxLength: 3 }).map((ks) => Object.fromEntries(ks.map((k) => [k, 0]))),
    fc.uniqueArray(fc.constantFrom('a', 'b', 'c'), { minLength: 1, maxLength: 2 }).map((ks) => ({ ...Object.fromEntries(ks.map((k) => [k, 1])), _id: 0 })),
  );
  it('give mingo\'s document', () => {
    fc.assert(fc.property(projection, doc, (p, d) => {
      const project = compileProjection(p);
      expect(project).not.toBeNull();
      const want = new Query({}).find([structuredClone(d)], p as never).all()[0];
      expect(project?.(d), JSON.stringify({ p, d })).toEqual(want);
    }), params(1_000));
  });

  it('leave nested paths and mixes to mingo', () => {
    expect(compileProjection({ 'a.k': 1 })).toBeNull();
    expect(compileProjection({ a: 1, b: 0 })).toBeNull();
    expect(compileProjection({ a: 0, _id: 1 })).toBeNull();
  });
});
