// Secondary indexes for the embedded store: key encoding and query planning. An index entry's
// key is (rank, value) per indexed field, then the document's _id, where rank follows MongoDB's
// order of types (null < numbers < strings < other < booleans), so LMDB's byte order is the
// sort order. Every candidate an index yields is still tested against the whole filter, so a
// plan only decides which documents are read, never which match.
import type { Filter, IndexSpec, SortSpec } from './store.js';

export type KeyPart = string | number;
const MAX_STRING = 400;
const RANK = { null: 1, number: 2, string: 3, other: 4, boolean: 8, end: 99 } as const;

export function encodeValue(v: unknown): [number, KeyPart] {
  if (v === null || v === undefined) return [RANK.null, 0];
  if (typeof v === 'number') return Number.isFinite(v) ? [RANK.number, v] : [RANK.number, v > 0 ? Number.MAX_VALUE : -Number.MAX_VALUE];
  if (typeof v === 'string') return [RANK.string, v.slice(0, MAX_STRING)];
  if (typeof v === 'boolean') return [RANK.boolean, v ? 1 : 0];
  return [RANK.other, JSON.stringify(v).slice(0, MAX_STRING)];
}

/** Each index's field paths, split once: every document written computes every index's key. */
const PATHS = new WeakMap<IndexSpec, readonly (readonly string[])[]>();

function pathsOf(spec: IndexSpec): readonly (readonly string[])[] {
  let paths = PATHS.get(spec);
  if (!paths) {
    paths = Object.keys(spec.keys).map((f) => f.split('.'));
    PATHS.set(spec, paths);
  }
  return paths;
}

export function indexKey(spec: IndexSpec, doc: { _id: string }): KeyPart[] {
  const key: KeyPart[] = [];
  for (const path of pathsOf(spec)) {
    let v: unknown = doc;
    for (const k of path) v = typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[k] : undefined;
    const [rank, part] = encodeValue(v);
    key.push(rank, part);
  }
  key.push(RANK.string, doc._id);
  return key;
}

export const indexName = (spec: IndexSpec): string => spec.name ?? Object.entries(spec.keys).map(([k, d]) => `${k}_${d}`).join('_');

export interface IndexPlan {
  readonly spec: IndexSpec;
  readonly start: KeyPart[];
  readonly end: KeyPart[];
  readonly reverse: boolean;
  /** The index yields documents already in the requested order. */
  readonly sorted: boolean;
  /** Where, in an index key, the sorted fields' parts lie (for finding ties at a page's end). */
  readonly sortParts: readonly [number, number];
}

function plainEquality(v: unknown): { ok: true; value: unknown } | { ok: false } {
  if (v === null || ['string', 'number', 'boolean'].includes(typeof v)) return { ok: true, value: v };
  if (typeof v === 'object' && !Array.isArray(v)) {
    const keys = Object.keys(v as object);
    if (keys.length === 1 && keys[0] === '$eq') return plainEquality((v as { $eq: unknown }).$eq);
  }
  return { ok: false };
}

/** Bounds on one field from $ne: null and numeric comparisons; undefined when there are none. */
function rangeOf(v: unknown): { start: KeyPart[]; end: KeyPart[] } | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const ops = v as Record<string, unknown>;
  let start: KeyPart[] | undefined;
  let end: KeyPart[] | undefined;
  if ('$ne' in ops && ops.$ne === null) start = [RANK.number];
  const num = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
  if (num(ops.$gte)) start = [RANK.number, ops.$gte];
  if (num(ops.$gt)) start = [RANK.number, ops.$gt, RANK.end];
  if (num(ops.$lte)) end = [RANK.number, ops.$lte, RANK.end];
  if (num(ops.$lt)) end = [RANK.number, ops.$lt];
  if (!start && !end) return undefined;
  return { start: start ?? [RANK.null], end: end ?? [RANK.end] };
}

export function plan(indexes: readonly IndexSpec[], filter: Filter, sort: SortSpec | undefined): IndexPlan | undefined {
  const sortFields = Object.entries(sort ?? {}).filter(([k]) => k !== '_id');
  let best: { plan: IndexPlan; score: number } | undefined;
  for (const spec of indexes) {
    const fields = Object.entries(spec.keys);
    const prefix: KeyPart[] = [];
    let eq = 0;
    for (const [field] of fields) {
      const e = field in filter ? plainEquality(filter[field]) : { ok: false as const };
      if (!e.ok) break;
      prefix.push(...encodeValue(e.value));
      eq++;
    }
    const rest = fields.slice(eq);
    // The sort must follow the remaining index fields.
    let sorted = sortFields.length === 0;
    let reverse = false;
    if (sortFields.length > 0 && sortFields.length <= rest.length) {
      // Keys are stored ascending whatever direction the index names, so one direction of
      // iteration serves a sort only when all its fields go the same way.
      const same = sortFields.every(([k, d], i) => rest[i]?.[0] === k && d === 1);
      const flipped = sortFields.every(([k, d], i) => rest[i]?.[0] === k && d === -1);
      sorted = same || flipped;
      reverse = flipped && !same;
    }
    const next = rest[0];
    const range = next ? rangeOf(filter[next[0]]) : undefined;
    // Equality narrows most (an id, a chat), so it outweighs following the sort.
    const score = eq * 4 + (sorted && sortFields.length > 0 ? 3 : 0) + (range ? 1 : 0);
    if (score === 0) continue;
    const p: IndexPlan = {
      spec,
      start: [...prefix, ...(range?.start ?? [RANK.null])],
      end: [...prefix, ...(range?.end ?? [RANK.end])],
      reverse,
      sorted,
      sortParts: [prefix.length, prefix.length + sortFields.length * 2],
    };
    if (!best || score > best.score) best = { plan: p, score };
  }
  return best?.plan;
}
