// DistinctKeys counts the union of sets without building it; checked against a plain union.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DistinctKeys, keysAboveZero, unionOf } from '../../src/read-models/report-buckets/distinct-keys.js';
import { propertyRuns } from '../support/property-runs.js';

const setsArb = fc.array(fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'), { maxLength: 6 }).map((l) => new Set(l)), { maxLength: 5 });

describe('DistinctKeys', () => {
  it('counts what the sets hold together, however they are split and added', () => {
    fc.assert(fc.property(setsArb, fc.integer({ min: 0, max: 5 }), (sets, cut) => {
      const [left, right] = [new DistinctKeys(), new DistinctKeys()];
      sets.forEach((s, i) => (i < cut ? left : right).add(s));
      left.addAll(right);
      const union = new Set(sets.flatMap((s) => [...s]));
      expect(left.size).toBe(union.size);
      expect(unionOf(sets.length > 0 ? sets : [new Set()]).size).toBe(union.size);
    }), propertyRuns(200));
  });

  it('takes a histogram\'s keys above zero only (a fan netted back to zero was moved away)', () => {
    expect([...keysAboveZero({ fa: 2, fb: 0, fc: 1 })]).toEqual(['fa', 'fc']);
    expect(keysAboveZero(undefined).size).toBe(0);
  });
});
