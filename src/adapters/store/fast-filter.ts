// The filters and projections the read models ask of the embedded store most (an account, a
// time range, a status; a few top-level fields kept or left out), compiled to plain functions.
// mingo evaluates every MongoDB filter correctly but generally: a windowed report's edge reads
// of a thousand messages spent most of their time in it (bench/read-api.ts --api-cpu-prof).
// Only a subset is compiled, and each compiled test answers `undefined` for a document value it
// was not written for (an array, a value of another type than the operand), which the caller
// then hands to mingo: MongoDB's semantics stay mingo's. test/adapters/fast-filter.test.ts holds
// the compiled answers to mingo's over random documents and filters.

type AnyObject = Record<string, unknown>;
/** true / false: the filter's answer; undefined: not decided here (ask mingo). */
export type FastTest = (doc: AnyObject) => boolean | undefined;

type Scalar = string | number | boolean | null;
const isScalar = (v: unknown): v is Scalar => v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

const RANGE_OPS = new Set(['$gte', '$gt', '$lt', '$lte']);

/** One field's condition, or null when it is not in the compiled subset. */
function compileField(field: string, cond: unknown): FastTest | null {
  if (field.startsWith('$') || field.includes('.')) return null;
  if (isScalar(cond)) {
    return (doc) => {
      const v = doc[field];
      if (Array.isArray(v) || (v !== null && typeof v === 'object')) return undefined;
      // An equality with null matches a missing field too.
      return cond === null ? v === null || v === undefined : v === cond;
    };
  }
  if (typeof cond !== 'object' || Array.isArray(cond)) return null;
  const ops = Object.entries(cond as AnyObject);
  if (ops.length === 0) return null;
  const tests: FastTest[] = [];
  for (const [op, operand] of ops) {
    if (RANGE_OPS.has(op) && (typeof operand === 'number' || typeof operand === 'string')) {
      const kind = typeof operand;
      tests.push((doc) => {
        const v = doc[field];
        // A missing or null field matches no range; another type, or an array: mingo decides.
        if (v === undefined || v === null) return false;
        if (typeof v !== kind) return undefined;
        const x = v as number | string;
        const o = operand as number | string;
        return op === '$gte' ? x >= o : op === '$gt' ? x > o : op === '$lt' ? x < o : x <= o;
      });
    } else if (op === '$ne' && operand === null) {
      tests.push((doc) => {
        const v = doc[field];
        if (Array.isArray(v)) return undefined;
        return v !== null && v !== undefined;
      });
    } else if (op === '$in' && Array.isArray(operand) && operand.every((o) => isScalar(o))) {
      const set = new Set<Scalar>(operand);
      const withNull = set.has(null);
      tests.push((doc) => {
        const v = doc[field];
        if (Array.isArray(v) || (v !== null && typeof v === 'object')) return undefined;
        return v === undefined ? withNull : set.has(v as Scalar);
      });
    } else {
      return null;
    }
  }
  return all(tests);
}

function all(tests: readonly FastTest[]): FastTest {
  if (tests.length === 1) return tests[0] as FastTest;
  return (doc) => {
    let undecided = false;
    for (const t of tests) {
      const r = t(doc);
      if (r === false) return false;
      if (r === undefined) undecided = true;
    }
    return undecided ? undefined : true;
  };
}

/** The filter as a plain test, or null when some part of it is outside the compiled subset. */
export function compileFilter(filter: Readonly<AnyObject>): FastTest | null {
  const tests: FastTest[] = [];
  for (const [field, cond] of Object.entries(filter)) {
    const t = compileField(field, cond);
    if (t === null) return null;
    tests.push(t);
  }
  return tests.length === 0 ? () => true : all(tests);
}

export type FastProjection = (doc: AnyObject) => AnyObject;

/**
 * A projection that keeps (1) or leaves out (0) top-level fields, as a plain copy; null for
 * anything else (nested paths, expressions, a mix). Kept fields come with `_id` unless it is
 * left out, as MongoDB does.
 */
export function compileProjection(projection: Readonly<AnyObject> | undefined): FastProjection | null {
  if (projection === undefined) return (doc) => doc;
  const entries = Object.entries(projection);
  if (entries.length === 0 || entries.some(([k, v]) => k.includes('.') || k.startsWith('$') || (v !== 0 && v !== 1))) return null;
  const others = entries.filter(([k]) => k !== '_id');
  const idValue = projection._id;
  if (others.length === 0) {
    // Only _id named: kept alone, or everything but it.
    return idValue === 1 ? (doc) => ('_id' in doc ? { _id: doc._id } : {}) : (doc) => withoutFields(doc, ['_id']);
  }
  const inclusive = others[0]?.[1] === 1;
  if (others.some(([, v]) => (v === 1) !== inclusive)) return null;
  const fields = others.map(([k]) => k);
  if (inclusive) {
    const keepId = idValue !== 0;
    return (doc) => {
      const out: AnyObject = {};
      if (keepId && '_id' in doc) out._id = doc._id;
      for (const f of fields) if (f in doc && doc[f] !== undefined) out[f] = doc[f];
      return out;
    };
  }
  if (idValue === 1) return null;
  const dropped = idValue === 0 ? [...fields, '_id'] : fields;
  return (doc) => withoutFields(doc, dropped);
}

function withoutFields(doc: AnyObject, fields: readonly string[]): AnyObject {
  const out: AnyObject = {};
  for (const k in doc) if (!fields.includes(k)) out[k] = doc[k];
  return out;
}
