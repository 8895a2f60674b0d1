// The embedded store's own path for plain updates must leave a document exactly as mingo's
// general updater does, and say "changed" exactly when mingo does: a missed change is a write
// that never lands, a false one a needless write and a wrong modified count.
import fc from 'fast-check';
import { update as mingoUpdate } from 'mingo';
import { describe, expect, it } from 'vitest';
import { applyPlainUpdate } from '../../src/adapters/store/plain-update.js';

type Plain = Record<string, unknown>;

const name = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'w', 'n', 'o');
const path = fc.array(name, { minLength: 1, maxLength: 3 }).map((p) => p.join('.'));
const leaf: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.integer({ min: -5, max: 5 }), weight: 4 },
  fc.constantFrom('x', 'y', null, true),
  fc.record({ o: fc.integer({ min: 0, max: 3 }), n: fc.integer({ min: 0, max: 3 }) }),
  fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 2 }),
);
const doc: fc.Arbitrary<Plain> = fc.letrec<{ obj: Plain; value: unknown }>((tie) => ({
  obj: fc.dictionary(name, tie('value'), { maxKeys: 4 }),
  value: fc.oneof({ depthSize: 'small' }, leaf, tie('obj')),
})).obj;
const modifier = fc.record(
  {
    $set: fc.dictionary(path, leaf, { minKeys: 1, maxKeys: 2 }),
    $inc: fc.dictionary(path, fc.integer({ min: -3, max: 3 }), { minKeys: 1, maxKeys: 2 }),
    $min: fc.dictionary(path, fc.integer({ min: -5, max: 5 }), { minKeys: 1, maxKeys: 2 }),
    $max: fc.dictionary(path, fc.integer({ min: -5, max: 5 }), { minKeys: 1, maxKeys: 2 }),
  },
  { requiredKeys: [] },
).filter((m) => Object.keys(m).length > 0);

/** mingo's answer, or the error it throws. */
function byMingo(d: Plain, m: Plain): { doc: Plain; changed: boolean } | { error: true } {
  const copy = structuredClone(d);
  try {
    const changed = mingoUpdate(copy, m, undefined, undefined, { cloneMode: 'deep' }).length > 0;
    return { doc: copy, changed };
  } catch {
    return { error: true };
  }
}

describe('plain updates', () => {
  it('leave the document as mingo does and report a change exactly when mingo does', () => {
    let handled = 0;
    fc.assert(
      fc.property(doc, modifier, (d, m) => {
        const mine = structuredClone(d);
        const changed = applyPlainUpdate(mine, m);
        if (changed === undefined) {
          // Not plain: the document is untouched, for mingo to update.
          expect(mine).toEqual(d);
          return;
        }
        handled++;
        const theirs = byMingo(d, m);
        expect(theirs).not.toHaveProperty('error');
        if ('error' in theirs) return;
        expect(mine).toEqual(theirs.doc);
        expect(changed).toBe(theirs.changed);
      }),
      { numRuns: 3000 },
    );
    // The plain path must be the common one, or the comparison above says little.
    expect(handled).toBeGreaterThan(600);
  });

  it('report no change for updates that change nothing, as mingo does', () => {
    const d: Plain = { a: 1, w: { k: { o: 1, n: 2 } }, lo: 5 };
    const noOps: Plain[] = [
      { $inc: { a: 0 } },
      { $set: { a: 1 } },
      { $set: { 'w.k': { o: 1, n: 2 } } },
      { $min: { lo: 7 } },
      { $max: { lo: 5 } },
      { $set: { 'w.k.o': 1 }, $inc: { a: 0 }, $max: { lo: 1 } },
    ];
    for (const m of noOps) {
      const mine = structuredClone(d);
      expect([JSON.stringify(m), applyPlainUpdate(mine, m)]).toEqual([JSON.stringify(m), false]);
      expect(byMingo(d, m)).toEqual({ doc: d, changed: false });
      expect(mine).toEqual(d);
    }
  });

  it('copies a $set object, so the caller changing it later does not change the document', () => {
    const d: Plain = {};
    const mark = { o: 1, n: 2 };
    expect(applyPlainUpdate(d, { $set: { 'w.k': mark } })).toBe(true);
    mark.o = 9;
    expect(d).toEqual({ w: { k: { o: 1, n: 2 } } });
  });

  it('leaves arrays on the path, numeric segments and non-numbers under $inc to mingo', () => {
    expect(applyPlainUpdate({ a: [1, 2] }, { $set: { 'a.b': 1 } })).toBeUndefined();
    expect(applyPlainUpdate({ a: {} }, { $set: { 'a.0': 1 } })).toBeUndefined();
    expect(applyPlainUpdate({ a: 'x' }, { $inc: { a: 1 } })).toBeUndefined();
    expect(applyPlainUpdate({}, { $set: { a: 1, 'a.b': 2 } })).toBeUndefined();
    expect(applyPlainUpdate({}, { $push: { a: 1 } })).toBeUndefined();
  });
});
