// parseJson against an independent lossless parser: the same value for any JSON text, with
// integers beyond 2^53 kept as their exact decimal strings, wherever they sit and whatever
// strings around them hold (long digit runs in message text must not change anything).
import fc from 'fast-check';
import { parse as losslessParse } from 'lossless-json';
import { describe, expect, it } from 'vitest';
import { renderJson } from '../support/json-text.js';
import { parseCheckedJson, parseJson, unsafeStructure } from '../../src/domain/json.js';

const reference = (text: string): unknown =>
  losslessParse(text, null, (literal: string) => {
    const n = Number(literal);
    return Number.isSafeInteger(n) || !/^-?\d+$/.test(literal) ? n : literal;
  });

/** JSON text with raw integer literals of any size spliced in where numbers go. */
const bigInteger = fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map((b) => ({ raw: b.toString() }));
type Node = { raw: string } | string | number | boolean | null | Node[] | { [k: string]: Node };
const value: fc.Arbitrary<Node> = fc.letrec<{ node: Node }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    bigInteger,
    fc.string({ unit: fc.constantFrom('1', '2', '9', '"', '\\', 'a', ' ', '-', 'é') }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('node'), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 5 }), tie('node'), { maxKeys: 4 }),
  ),
})).node;

describe('parseJson', () => {
  it('equals a lossless parser on any JSON text, big integers included', () => {
    fc.assert(fc.property(value, (v) => {
      const text = renderJson(v);
      expect(parseJson(text)).toEqual(reference(text));
    }), { numRuns: 3000 });
  });

  it('parsed once at the door (parseCheckedJson): refuses the keys unsafeStructure refuses, wherever they sit', () => {
    // Keys that pollute prototypes, spliced in by hand: fast-check's dictionaries never make
    // them, and only JSON.parse (not an object literal) makes an own "__proto__" key.
    const risky = fc.constantFrom('"__proto__":{"a":1}', '"constructor":{"prototype":{}}', '"constructor":{"x":1}', '"prototype":{}', '"__proto__":12345678901234567890', '"constructor":"fine"');
    fc.assert(fc.property(value, risky, fc.nat(), (v, key, at) => {
      const text = renderJson(v);
      // Into the at-th object of the text (if it has one), as its first key.
      const opens = [...text.matchAll(/\{/g)].map((m) => m.index);
      if (opens.length === 0) return;
      const i = (opens[at % opens.length] as number) + 1;
      const spliced = `${text.slice(0, i)}${key}${text[i] === '}' ? '' : ','}${text.slice(i)}`;
      let native: unknown;
      try {
        native = JSON.parse(spliced);
      } catch {
        return; // a brace inside a string: not an object
      }
      expect(parseCheckedJson(spliced).unsafe?.reason).toBe(unsafeStructure(native));
    }), { numRuns: 2000 });
  });

  it('parsed once at the door (parseCheckedJson): the same value, and the structure check of unsafeStructure', () => {
    fc.assert(fc.property(value, fc.integer({ min: 1, max: 6 }), (v, maxDepth) => {
      const text = renderJson(v);
      const checked = parseCheckedJson(text, maxDepth);
      const want = reference(text);
      expect(checked.unsafe?.reason).toBe(unsafeStructure(want, maxDepth));
      if (checked.unsafe === undefined) expect(checked.value).toEqual(want);
    }), { numRuns: 3000 });
  });

  it('parsed once at the door (parseCheckedJson): a key given twice in one object is found wherever it sits, however it is spelled', () => {
    // Any object of any text, with one of its own keys given again (as written, or with its
    // first character \u-escaped) and any value: refused, naming that key. The property above
    // holds texts without one to no refusal, whatever quotes and backslashes their strings hold.
    fc.assert(fc.property(value, fc.nat(), fc.boolean(), value, (v, at, escaped, second) => {
      const text = renderJson(v);
      const keyed: { start: number; key: string }[] = [];
      for (const m of text.matchAll(/\{"((?:[^"\\]|\\.)*)":/g)) keyed.push({ start: (m.index ?? 0) + 1, key: m[1] as string });
      if (keyed.length === 0) return;
      const { start, key } = keyed[at % keyed.length] as { start: number; key: string };
      let name: string;
      try {
        name = JSON.parse(`"${key}"`) as string;
      } catch {
        return;
      }
      // The name's first character \u-escaped (not the first character of its JSON spelling,
      // which for a name such as "\n" is the escape's backslash: another name).
      const spelled = escaped && name.length > 0 ? `"\\u${name.charCodeAt(0).toString(16).padStart(4, '0')}${JSON.stringify(name.slice(1)).slice(1)}` : JSON.stringify(name);
      const spliced = `${text.slice(0, start)}${spelled}:${renderJson(second)},${text.slice(start)}`;
      try {
        JSON.parse(spliced);
      } catch {
        return; // the brace was inside a string
      }
      const checked = parseCheckedJson(spliced);
      expect(checked.unsafe?.reason, spliced).toMatch(/is given more than once/);
      // Named as written when a plain name, quoted otherwise (keys here are at most 5 characters).
      const shown = /^[A-Za-z0-9_$@{}-]+$/.test(name) ? name : JSON.stringify(name);
      expect(checked.unsafe?.at?.endsWith(shown), `${spliced} → ${checked.unsafe?.at}`).toBe(true);
    }), { numRuns: 2000 });
  });

  it('keeps a platform id beyond 2^53 exact, and digits inside strings as they are', () => {
    const text = '{"id": 1234567890123456789, "text": "call me at 12345678901234567890", "small": 9007199254740991, "neg": -9007199254740993}';
    expect(parseJson(text)).toEqual({ id: '1234567890123456789', text: 'call me at 12345678901234567890', small: 9007199254740991, neg: '-9007199254740993' });
  });

  it('refuses what is not JSON, long digits or not', () => {
    for (const bad of ['{"a": 12345678901234567890', '{"a": 01234567890123456789}', '[1234567890123456789,]', '{"a":"12345678901234567890}']) {
      expect(() => parseJson(bad)).toThrow();
    }
  });
});
