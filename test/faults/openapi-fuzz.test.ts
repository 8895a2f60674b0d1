// A second fuzz pass, driven by the OpenAPI document (issue 27): every operation /docs/json lists
// gets requests generated from its own schema with fast-check, in-process through inject():
// first values that fit the schema more or less (enums, patterns, bounds, ids that exist), then
// broken ones (wrong types, 1 MB strings, lone surrogates, JSON null and empty bodies, NaN-like
// and huge numbers, impossible dates and zones, unknown and repeated query parameters, path
// segments with %ZZ or far too long, prototype keys, wrong content types). Most requests carry
// the credential the operation needs; a slice carries none, a wrong one or a malformed one.
//
// Every answer must be below 500 (a 503 NOT_READY only from the operations that need the
// platform API, which this deployment does not configure, saying so), and every error must be
// in the catalogue's shape: {statusCode, error, code, message, requestId}, code one of
// ERROR_CATALOGUE's, requestId the x-request-id header, a 400 naming the field and the reason.
//
// Skipped, on purpose: POST /api/admin/purge-demo with full=true (it resets the whole pipeline
// under the requests that follow; its other bodies, broken ones included, are sent). The event
// stream GET /api/floor/stream never ends, and opens for any query (it takes none, and refuses
// no unknown parameter): its requests are read as they come (the harness's stream()), an
// opened stream's status and headers are its answer, and then the caller hangs up.
//
// The app is the test harness's (test/support/app-harness.ts): the real app, store and log in a
// temporary folder, through inject(), no port; nothing here needs a socket.
//
// Bounded: OPENAPI_FUZZ_RUNS (default 50) requests per operation, a quarter valid-ish and the
// rest broken, about 2,400 in all (20 to 40 s on two cores). Operations whose accepted requests
// are costly (seed-demo, replay, intelligence run) get few valid-ish ones and go last. A
// failure names the operation, the request (method, url and body prefix), the answer and the
// seeds: OPENAPI_FUZZ_SEED=<seed> makes the same choices again (the ids the setup creates
// aside). OPENAPI_FUZZ_VERBOSE=1 prints every request and its answer.
import { readFileSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../../src/http/errors.js';
import { startHarness, type Harness } from '../support/app-harness.js';
import { sample } from '../support/platform.js';

const ADMIN_TOKEN = 'admin-token-for-openapi-fuzz-00000001';
const CONNECTOR_TOKEN = 'connector-token-for-openapi-fuzz-0001';
const RUNS = Number(process.env.OPENAPI_FUZZ_RUNS ?? 50);
const BASE_SEED = process.env.OPENAPI_FUZZ_SEED !== undefined ? Number(process.env.OPENAPI_FUZZ_SEED) : Math.floor(Math.random() * 0x7fffffff);
const MB = 1_000_000;
const STREAM_PATH = '/api/floor/stream';
/** Operations that call the platform API; without PLATFORMAPI_KEY they answer 503 NOT_READY once the input is valid. */
const PLATFORM_OPERATIONS = new Set([
  'POST /api/admin/accounts/sync', 'POST /api/admin/accounts/auth/start', 'POST /api/admin/accounts/auth/poll',
  'POST /api/admin/accounts/auth/2fa', 'POST /api/admin/backfill', 'POST /api/admin/backfill-transactions',
]);
/**
 * Operations whose accepted requests are costly (a seed appends all 3,869 demo records again, a
 * run analyses twenty sessions, a replay rebuilds the read models): only this many valid-ish
 * requests, and their broken pass breaks the body only (an unknown query parameter is not
 * refused on a POST, so a broken query would be one more seed).
 */
const COSTLY: Record<string, number> = { 'POST /api/admin/seed-demo': 1, 'POST /api/admin/intelligence/run': 5, 'POST /api/admin/replay': 4 };

// ---------------------------------------------------------------------------------------------
// The document

interface Schema {
  readonly type?: string | readonly string[];
  readonly enum?: readonly unknown[];
  readonly anyOf?: readonly Schema[];
  readonly pattern?: string;
  readonly format?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly items?: Schema;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly properties?: Readonly<Record<string, Schema>>;
  readonly required?: readonly string[];
  readonly default?: unknown;
}

interface Parameter {
  readonly in: 'path' | 'query' | 'header' | 'cookie';
  readonly name: string;
  readonly required?: boolean;
  readonly schema: Schema;
}

interface Operation {
  readonly key: string;
  readonly method: string;
  readonly path: string;
  readonly params: readonly Parameter[];
  readonly body: Schema | undefined;
  readonly security: 'admin' | 'connector' | 'none';
}

function operationsOf(doc: any): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      const security = JSON.stringify(op.security ?? []);
      out.push({
        key: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        params: (op.parameters ?? []) as Parameter[],
        body: op.requestBody?.content?.['application/json']?.schema as Schema | undefined,
        security: security.includes('connectorToken') ? 'connector' : security.includes('adminToken') ? 'admin' : 'none',
      });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Values: JSON with pieces that JSON.stringify cannot write (1e309, -0) and megabyte strings
// built only when sent, so a counterexample prints short.

const short = (s: string, n = 120): string => (s.length <= n ? s : `${s.slice(0, n)}…(${s.length} chars)`);

/** Text written into the JSON (or the query string, or the path) exactly as it is. */
class Raw {
  constructor(readonly text: string) {}
  [fc.toStringMethod](): string {
    return `Raw(${JSON.stringify(short(this.text, 60))})`;
  }
}

/** A string of `size` repetitions of `unit`, made when the request is built. */
class Big {
  constructor(readonly size: number, readonly unit = 'x') {}
  get value(): string {
    return this.unit.repeat(this.size);
  }
  [fc.toStringMethod](): string {
    return `Big(${this.size} × ${JSON.stringify(this.unit)})`;
  }
}

type J = null | boolean | number | string | Raw | Big | J[] | { [k: string]: J };

function toJson(v: J | undefined): string {
  if (v === undefined) return 'null';
  if (v instanceof Raw) return v.text;
  if (v instanceof Big) return JSON.stringify(v.value);
  if (Array.isArray(v)) return `[${v.map(toJson).join(',')}]`;
  if (v !== null && typeof v === 'object') return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}:${toJson(x)}`).join(',')}}`;
  return JSON.stringify(v);
}

/** A copy of `o` with `key` set, `__proto__` included (as an own key, the way JSON text has it). */
function withKey(o: { [k: string]: J }, key: string, value: J): { [k: string]: J } {
  const copy: { [k: string]: J } = {};
  for (const [k, x] of Object.entries(o)) Object.defineProperty(copy, k, { value: x, enumerable: true, writable: true, configurable: true });
  Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

/** Percent-encodes text for a URL; a lone surrogate goes as the three bytes a careless encoder writes (%ED%A0%80). */
function enc(v: string | Raw | Big): string {
  if (v instanceof Raw) return v.text;
  const s = v instanceof Big ? v.value : v;
  try {
    return encodeURIComponent(s);
  } catch {
    let out = '';
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      const next = s.charCodeAt(i + 1);
      if (c >= 0xd800 && c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        out += encodeURIComponent(s.slice(i, i + 2));
        i++;
      } else if (c >= 0xd800 && c <= 0xdfff) {
        out += [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
      } else {
        out += encodeURIComponent(s[i] ?? '');
      }
    }
    return out;
  }
}

const IMPOSSIBLE_TIMES = [
  '2026-02-30T25:61:00Z', '+275760-09-13T00:00:01Z', '-271821-04-20T00:00:00Z', '2026-13-01T00:00:00Z', '2026-00-10',
  '0000-01-01T00:00:00Z', '1969-12-31T23:59:59Z', '9999-12-31T23:59:59.999Z', '2026-06-10T24:00:00Z', '2026-06-10T23:59:60Z',
  '2026-06-10T12:00:00+25:00', '2026-06-10T12:00:00.123456789Z', '2026-06-10T12:00:00', '2026-W23', '2026-06-10T12:00:00 Mars/Olympus',
  '2026-06-10T12:00:00[Mars/Olympus]', 'Mars/Olympus', 'now', '1e300', '8.7e15', '-8.64e15',
  // Spellings Date.parse takes and rolls over or reads in the server's zone (issue 54).
  'Feb 30 2026', '2026/02/30', 'Nov 28 2026 10:00', 'Sat, 28 Nov 2026 10:00:00 GMT',
] as const;
const NAN_LIKE = ['NaN', 'Infinity', '-Infinity', '1e309', '-1e309', '-0', '0x10', '0b11', '0o17', '1e3', '1_000', ' 1', '1 ', '+1', '.5', '1e-400', '9007199254740993'] as const;
const SURROGATES = ['\ud800', '\udfff', 'a\udc00b', '\udfff\ud800', `${'x'.repeat(50)}\ud83d`] as const;
const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString'] as const;

/** Values that break a field, whatever its schema: wrong types, bounds, text and numbers at their edges. */
function brokenValue(s: Schema | undefined): fc.Arbitrary<J> {
  const edges: J[] = [];
  if (s?.maxLength !== undefined) edges.push(new Big(s.maxLength + 1, 'a'), new Big(s.maxLength + 1, 'é'));
  if (s?.minLength !== undefined && s.minLength > 0) edges.push('a'.repeat(s.minLength - 1));
  if (s?.minimum !== undefined) edges.push(s.minimum - 1, s.minimum - 0.5);
  if (s?.maximum !== undefined) edges.push(s.maximum + 1, s.maximum + 0.5);
  return fc.oneof(
    fc.constantFrom<J>(null, true, false, 0, -1, 0.5, 1e308, -1e308, [], {}, [1, 'a'], { a: 1 }, '', ' ', '\u0000', 'null', 'undefined', 'true'),
    fc.constantFrom<J>(new Raw('1e309'), new Raw('-1e309'), new Raw('-0'), new Raw('9007199254740993'), new Raw('123456789012345678901234567890'), new Raw('1e-400')),
    fc.constantFrom<J>(...NAN_LIKE),
    fc.constantFrom<J>(...IMPOSSIBLE_TIMES, 1e300, 8.7e15, -8.64e15),
    fc.constantFrom<J>(...SURROGATES),
    fc.constantFrom<J>(...PROTO_KEYS),
    fc.constantFrom<J>(new Big(MB, 'x'), new Big(MB / 4, '😀'), new Big(2000, '\ud800'), new Raw(`${'['.repeat(3000)}${']'.repeat(3000)}`)),
    ...(edges.length > 0 ? [fc.constantFrom<J>(...edges)] : []),
  );
}

// ---------------------------------------------------------------------------------------------
// Valid-ish values from a schema

interface Pools {
  /** Ids that exist, by field name (accountId, sessionId, chatId) and by path (`/api/sessions/{id}/analysis`). */
  readonly byName: Record<string, string[]>;
  readonly byPath: Record<string, string[]>;
  readonly demoRecords: readonly J[];
  readonly webhookBodies: readonly J[];
}

const NOW = Date.now();
const isoInstant = fc.date({ min: new Date('2000-01-02T00:00:00Z'), max: new Date(NOW + 3_600_000), noInvalidDate: true }).map((d) => d.toISOString());
const recentInstant = fc.date({ min: new Date(NOW - 20 * 86_400_000), max: new Date(NOW - 1000), noInvalidDate: true }).map((d) => d.toISOString());
const windowBound = fc.oneof(
  isoInstant,
  isoInstant.map((s) => s.slice(0, 10)),
  isoInstant.map((s) => `${s.slice(0, 19)}+02:00`),
);
const boundedString = (s: Schema): fc.Arbitrary<string> => fc.string({ minLength: s.minLength ?? 0, maxLength: Math.min(s.maxLength ?? 40, 40), unit: 'grapheme' });

function stringOf(s: Schema, name: string, pools: Pools): fc.Arbitrary<J> {
  const pool = pools.byName[name] ?? [];
  let base: fc.Arbitrary<string>;
  if (s.format === 'date-time') base = name === 'since' ? recentInstant : name === 'sentAt' ? recentInstant : isoInstant;
  else if (name === 'from' || name === 'to') base = windowBound;
  else if (s.pattern !== undefined) base = fc.stringMatching(new RegExp(s.pattern));
  else base = boundedString(s);
  return pool.length > 0 ? fc.oneof(fc.constantFrom(...pool), base) : base;
}

function validValue(s: Schema | undefined, name: string, pools: Pools): fc.Arbitrary<J> {
  if (s === undefined) return fc.oneof(fc.string({ maxLength: 20 }), fc.integer());
  if (s.enum !== undefined) return fc.constantFrom(...(s.enum as J[]));
  if (s.anyOf !== undefined) {
    const enums = s.anyOf.flatMap((a) => (a.enum ?? []) as J[]);
    return enums.length === s.anyOf.length ? fc.constantFrom(...enums) : fc.oneof(...s.anyOf.map((a) => validValue(a, name, pools)));
  }
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  switch (type) {
    case 'string': return stringOf(s, name, pools);
    case 'integer': return fc.integer({ min: s.minimum ?? -1000, max: Math.min(s.maximum ?? 1_000_000, Number.MAX_SAFE_INTEGER) });
    case 'number': return fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true });
    case 'boolean': return fc.boolean();
    case 'array': return fc.array(validValue(s.items, name, pools), { minLength: s.minItems ?? 0, maxLength: Math.max(s.minItems ?? 0, Math.min(s.maxItems ?? 3, 3)) });
    case 'object': {
      const props = s.properties ?? {};
      const model: Record<string, fc.Arbitrary<J>> = {};
      for (const [k, p] of Object.entries(props)) model[k] = validValue(p, k, pools);
      return fc.record(model, { requiredKeys: [...(s.required ?? [])] }) as fc.Arbitrary<J>;
    }
    default: return fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.boolean());
  }
}

/** Every place in a JSON value a broken value can go: existing fields and items, and new keys of objects. */
function slots(v: J, at: (string | number)[] = []): (string | number)[][] {
  const here = [at];
  if (Array.isArray(v)) return [...here, ...v.flatMap((x, i) => slots(x, [...at, i]))];
  if (v !== null && typeof v === 'object' && !(v instanceof Raw) && !(v instanceof Big)) {
    return [...here, ...Object.entries(v).flatMap(([k, x]) => slots(x, [...at, k]))];
  }
  return here;
}

function replaceAt(v: J, at: readonly (string | number)[], value: J, newKey: string | null): J {
  if (at.length === 0) {
    if (newKey !== null && v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Raw) && !(v instanceof Big)) return withKey(v, newKey, value);
    return value;
  }
  const [head, ...rest] = at;
  if (Array.isArray(v)) return v.map((x, i) => (i === head ? replaceAt(x, rest, value, newKey) : x));
  const o = v as { [k: string]: J };
  return withKey(o, String(head), replaceAt(o[String(head)] ?? null, rest, value, newKey));
}

/** A valid-ish value with one place broken: a field replaced, or a key added (unknown or a prototype key). */
function brokenFrom(valid: fc.Arbitrary<J>, schemaAt: (at: readonly (string | number)[]) => Schema | undefined): fc.Arbitrary<J> {
  return fc.tuple(valid, fc.nat(), fc.option(fc.constantFrom('unknownField', ...PROTO_KEYS), { freq: 3 })).chain(([v, pick, newKey]) => {
    const all = slots(v);
    const at = all[pick % all.length] ?? [];
    return brokenValue(schemaAt(at)).map((b) => replaceAt(v, at, b, newKey));
  });
}

function schemaAtPath(s: Schema | undefined, at: readonly (string | number)[]): Schema | undefined {
  let cur = s;
  for (const step of at) {
    if (cur === undefined) return undefined;
    cur = typeof step === 'number' ? cur.items : cur.properties?.[step];
  }
  return cur;
}

// ---------------------------------------------------------------------------------------------
// Requests

type Credential = 'proper' | 'none' | 'wrong' | 'malformed';

interface FuzzRequest {
  readonly op: Operation;
  readonly pass: 'valid' | 'broken';
  readonly credential: Credential;
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly payload: string | undefined;
  /** Why no answer but a refusal will do (a duplicate key, a compressed body), whatever else the request holds. */
  readonly mustRefuse?: string;
}

function describeRequest(r: FuzzRequest): string {
  return `${r.method} ${short(r.url, 300)} [${r.pass}, credential ${r.credential}, content-type ${r.headers['content-type'] ?? '-'}] body=${r.payload === undefined ? '(none)' : JSON.stringify(short(r.payload, 200))}`;
}

const credentialArb: fc.Arbitrary<Credential> = fc.oneof(
  { weight: 17, arbitrary: fc.constant<Credential>('proper') },
  { weight: 1, arbitrary: fc.constant<Credential>('none') },
  { weight: 1, arbitrary: fc.constant<Credential>('wrong') },
  { weight: 1, arbitrary: fc.constant<Credential>('malformed') },
);

function authorization(op: Operation, c: Credential): Record<string, string> {
  switch (c) {
    case 'proper': return { authorization: `Bearer ${op.security === 'connector' ? CONNECTOR_TOKEN : ADMIN_TOKEN}` };
    case 'none': return {};
    case 'wrong': return { authorization: op.security === 'connector' ? `Bearer ${ADMIN_TOKEN}` : 'Bearer cvk_0123456789abcdef_notarealsecretatall' };
    case 'malformed': return { authorization: 'Basic YWRtaW46YWRtaW4=' };
  }
}

type UrlPart = string | Raw | Big;

const BROKEN_SEGMENTS: UrlPart[] = [
  new Raw('%ZZ'), new Raw('%'), new Raw('a%2'), new Raw('%ED%A0%80'), new Raw('%C0%AF'), new Raw('%00'), new Raw('..'), new Raw('%2e%2e'),
  new Raw('%2F'), new Raw('a%2Fb'), '__proto__', 'constructor', 'NaN', '-0', '1e309', 'Mars/Olympus', '\ud800',
  new Big(101), new Big(201), new Big(401), new Big(501), new Big(10_000), new Big(MB),
];

function pathArb(op: Operation, pools: Pools, broken: boolean): fc.Arbitrary<Record<string, UrlPart>> {
  const model: Record<string, fc.Arbitrary<UrlPart>> = {};
  for (const p of op.params.filter((x) => x.in === 'path')) {
    const known = pools.byPath[op.path] ?? [];
    const valid = validValue(p.schema, p.name, pools).map((v) => (typeof v === 'string' ? v : toJson(v)));
    const fits = known.length > 0 ? fc.oneof(fc.constantFrom(...known), valid) : valid;
    model[p.name] = broken ? fc.oneof({ weight: 1, arbitrary: fits }, { weight: 3, arbitrary: fc.constantFrom(...BROKEN_SEGMENTS) }) : fits;
  }
  return fc.record(model);
}

/** Query text is built by hand: repeated keys, raw escapes and keys that are not parameters. */
function queryArb(op: Operation, pools: Pools, broken: boolean): fc.Arbitrary<string> {
  const qs = op.params.filter((p) => p.in === 'query');
  const model: Record<string, fc.Arbitrary<J>> = {};
  for (const p of qs) model[p.name] = validValue(p.schema, p.name, pools);
  // A parameter with a default is optional, whatever the document's `required` says.
  const required = qs.filter((p) => p.required === true && p.schema.default === undefined).map((p) => p.name);
  const valid = fc.record(model, { requiredKeys: required }).map((o) => Object.entries(o).map(([k, v]) => [k, typeof v === 'string' ? v : toJson(v)] as [string, UrlPart]));
  if (!broken) return valid.map(render);
  const brokenText = (s: Schema | undefined): fc.Arbitrary<UrlPart> => brokenValue(s).map((v) => (typeof v === 'string' || v instanceof Big ? v : new Raw(encodeURIComponent(toJson(v)))));
  const names = qs.map((p) => p.name);
  const unknownKey = fc.constantFrom('foo', 'timezone', 'tz', 'limit[]', 'a.b', ...PROTO_KEYS, '__proto__[polluted]', 'constructor[prototype][x]');
  return fc.oneof(
    // One parameter broken.
    ...(names.length > 0 ? [fc.tuple(valid, fc.constantFrom(...names)).chain(([entries, name]) => brokenText(qs.find((p) => p.name === name)?.schema).map((b) => [...entries.filter(([k]) => k !== name), [name, b] as [string, UrlPart]]))] : []),
    // Repeated: a string becomes an array.
    ...(names.length > 0 ? [fc.tuple(valid, fc.constantFrom(...names)).map(([entries, name]) => [...entries, [name, '1'] as [string, UrlPart], [name, '2'] as [string, UrlPart]])] : []),
    // A key the operation does not take.
    fc.tuple(valid, unknownKey, fc.oneof(fc.constant<UrlPart>('1'), fc.constant<UrlPart>('Mars/Olympus'), brokenText(undefined))).map(([entries, k, v]) => [...entries, [k, v] as [string, UrlPart]]),
    // Raw garbage.
    fc.tuple(valid, fc.constantFrom('%ZZ=1', '&&&', '=', '==x', '%', 'a=%E0%A4%A', 'limit=%ED%A0%80', '%00=%00', `q=${'%41'.repeat(50_000)}`)).map(([entries, raw]) => [...entries, ['', new Raw(raw)] as [string, UrlPart]]),
  ).map(render);

  function render(entries: readonly (readonly [string, UrlPart])[]): string {
    const parts = entries.map(([k, v]) => (k === '' ? enc(v) : `${enc(k)}=${enc(v)}`));
    return parts.length > 0 ? `?${parts.join('&')}` : '';
  }
}

interface BodyChoice {
  readonly payload: string | undefined;
  readonly contentType: string | undefined;
  readonly contentEncoding?: string;
  readonly mustRefuse?: string;
}

/** The text of a JSON object with its first key given once more, before it (JSON.parse would keep the original's value). */
function withDuplicateKey(text: string): string | undefined {
  const m = /^\{("(?:[^"\\]|\\.)*"):/.exec(text);
  return m ? `{${m[1]}:null,${text.slice(1)}` : undefined;
}

const WHOLE_BODIES = [
  'null', '', 'nope', '{', '[]', '[{}]', '42', '"text"', 'true', '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}', `${'{"a":'.repeat(2000)}1${'}'.repeat(2000)}`, '\ufeff{}', '{"a":1,"a":2}',
] as const;
const BROKEN_CONTENT_TYPES = ['text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=utf-16', 'multipart/form-data; boundary=x', 'application/jsonx', 'application/json, text/plain', ''] as const;

function bodyArb(op: Operation, pools: Pools, broken: boolean): fc.Arbitrary<BodyChoice> {
  const json = (v: J | undefined): BodyChoice => ({ payload: v === undefined ? undefined : toJson(v), contentType: v === undefined ? undefined : 'application/json' });
  const takesBody = op.method !== 'GET' && op.method !== 'HEAD';
  let valid: fc.Arbitrary<J | undefined>;
  let schemaAt: (at: readonly (string | number)[]) => Schema | undefined = (at) => schemaAtPath(op.body, at);
  if (op.key === 'POST /webhooks/platform') {
    valid = fc.constantFrom(...pools.webhookBodies);
    schemaAt = () => undefined;
  } else if (op.key === 'POST /api/demo/ingest') {
    valid = fc.subarray([...pools.demoRecords], { minLength: 1, maxLength: 4 }).map((records) => ({ records }));
  } else if (op.body !== undefined && Object.keys(op.body.properties ?? {}).length === 0 && (op.body.required ?? []).length === 0) {
    // Takes no body: none, an empty object or null.
    valid = fc.constantFrom<J | undefined>(undefined, {}, null);
  } else if (op.body !== undefined) {
    valid = validValue(op.body, 'body', pools);
  } else {
    valid = fc.constant(undefined);
  }
  if (!broken) return valid.map(json);
  if (!takesBody) {
    // A GET with a body is odd, not wrong: sent now and then.
    return fc.oneof({ weight: 5, arbitrary: fc.constant<BodyChoice>({ payload: undefined, contentType: undefined }) }, { weight: 1, arbitrary: fc.constantFrom(...WHOLE_BODIES).map((p) => ({ payload: p, contentType: 'application/json' })) });
  }
  const base = valid.map((v) => v ?? {});
  return fc.oneof(
    // One right answer, whatever else is wrong: never taken (issue 54).
    { weight: 1, arbitrary: base.map((v) => withDuplicateKey(toJson(v)) ?? '{"a":1,"a":2}').map((t) => ({ payload: t, contentType: 'application/json', mustRefuse: 'a duplicate key' })) },
    { weight: 1, arbitrary: fc.tuple(base, fc.constantFrom('gzip', 'deflate', 'br', 'x-gzip')).map(([v, coding]) => ({ payload: toJson(v), contentType: 'application/json', contentEncoding: coding, mustRefuse: `content-encoding ${coding}` })) },
    { weight: 4, arbitrary: brokenFrom(base, schemaAt).map(json) },
    { weight: 2, arbitrary: fc.constantFrom(...WHOLE_BODIES).map((p) => ({ payload: p, contentType: 'application/json' })) },
    { weight: 1, arbitrary: fc.tuple(base, fc.constantFrom(...BROKEN_CONTENT_TYPES)).map(([v, ct]) => ({ payload: toJson(v), contentType: ct === '' ? undefined : ct })) },
    { weight: 1, arbitrary: fc.constant<BodyChoice>({ payload: toJson(new Big(2 * MB, 'x')), contentType: 'application/json' }) },
    { weight: 1, arbitrary: fc.constant<BodyChoice>({ payload: undefined, contentType: 'application/json' }) },
  );
}

function headerArb(op: Operation, broken: boolean): fc.Arbitrary<Record<string, string>> {
  const model: Record<string, fc.Arbitrary<string>> = {};
  for (const p of op.params.filter((x) => x.in === 'header')) {
    const valid = fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/);
    model[p.name] = broken ? fc.oneof(valid, fc.constantFrom('', ' ', 'x'.repeat((p.schema.maxLength ?? 512) + 1), 'NaN', '__proto__', 'sha256=zz')) : valid;
  }
  return fc.record(model, { requiredKeys: [] }) as fc.Arbitrary<Record<string, string>>;
}

/** Requests that would wreck the setup every later request stands on. */
function destroysSetup(r: FuzzRequest): boolean {
  if (r.op.key !== 'POST /api/admin/purge-demo' || r.payload === undefined) return false;
  try {
    const body = JSON.parse(r.payload) as unknown;
    return typeof body === 'object' && body !== null && (body as { full?: unknown }).full === true;
  } catch {
    return false;
  }
}

/** A broken-pass seed-demo request that would be taken all the same (null is a body it takes). */
function seedsAgain(r: FuzzRequest): boolean {
  if (r.op.key !== 'POST /api/admin/seed-demo' || r.credential !== 'proper') return false;
  if (r.payload === undefined) return true;
  if (!(r.headers['content-type'] ?? '').startsWith('application/json')) return false;
  try {
    // The server's parser drops a byte-order mark.
    const body = JSON.parse(r.payload.replace(/^\ufeff/, '')) as unknown;
    if (body === null) return true;
    return typeof body === 'object' && !Array.isArray(body) && Object.entries(body).every(([k, v]) => k === 'timeline' && (v === 'recent' || v === 'original'));
  } catch {
    return false;
  }
}

function requestArb(op: Operation, pools: Pools, pass: 'valid' | 'broken'): fc.Arbitrary<FuzzRequest> {
  const broken = pass === 'broken';
  // In the broken pass one part at a time is broken, so each refusal is for that part.
  const parts = COSTLY[op.key] !== undefined ? ['body'] : [
    ...(op.params.some((p) => p.in === 'path') ? ['path'] : []), 'query', 'body',
    ...(op.params.some((p) => p.in === 'header') ? ['headers'] : []),
  ];
  const part = broken ? fc.constantFrom(...parts) : fc.constant('none');
  return part.chain((which) => fc.record({
    credential: credentialArb,
    path: pathArb(op, pools, which === 'path'),
    query: queryArb(op, pools, which === 'query'),
    body: bodyArb(op, pools, which === 'body'),
    headers: headerArb(op, which === 'headers'),
  })).map(({ credential, path, query, body, headers }) => {
    const url = op.path.replace(/\{(\w+)\}/g, (_m, name: string) => enc(path[name] ?? '')) + query;
    const all: Record<string, string> = { ...headers, ...authorization(op, credential) };
    if (body.contentType !== undefined) all['content-type'] = body.contentType;
    if (body.contentEncoding !== undefined) all['content-encoding'] = body.contentEncoding;
    const r: FuzzRequest = { op, pass, credential, method: op.method, url, headers: all, payload: body.payload, ...(body.mustRefuse ? { mustRefuse: body.mustRefuse } : {}) };
    Object.defineProperty(r, fc.toStringMethod, { value: () => describeRequest(r), enumerable: false });
    return r;
  }).filter((r) => !destroysSetup(r) && !(broken && seedsAgain(r)));
}

// ---------------------------------------------------------------------------------------------
// Answers

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | number | undefined>;
  readonly body: string;
}

const CATALOGUE_STATUSES = new Set<number>(Object.values(ERROR_CATALOGUE));
const ERROR_KEYS = ['code', 'error', 'message', 'requestId', 'statusCode'];

/** What is wrong with an answer, or null. */
function problemWith(r: FuzzRequest, a: Answer): string | null {
  if (a.status >= 500) {
    const platform = PLATFORM_OPERATIONS.has(r.op.key) && a.status === 503 && a.body.includes('"NOT_READY"') && a.body.includes('PLATFORMAPI_KEY');
    if (!platform) return `answered ${a.status}`;
  }
  // GETs outside /api/admin are reads, open to anyone with READ_AUTH=open (this deployment), whatever their security says.
  const closed = r.op.security !== 'none' && (r.op.method !== 'GET' || r.op.path.startsWith('/api/admin/'));
  if (closed && r.credential !== 'proper' && a.status < 400) return `answered ${a.status} to a request without its credential`;
  if (r.mustRefuse && a.status < 400) return `answered ${a.status} to a body with ${r.mustRefuse}`;
  if (r.mustRefuse?.startsWith('content-encoding') && a.status !== 415 && !/"path: /.test(a.body)) return `answered ${a.status}, not 415, to a body with ${r.mustRefuse}`;
  if (a.status < 400) return null;
  const type = String(a.headers['content-type'] ?? '');
  if (!type.startsWith('application/json')) return `error answer with content-type ${type || '(none)'}`;
  let body: any;
  try {
    body = JSON.parse(a.body);
  } catch {
    return 'error body is not JSON';
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'error body is not an object';
  const keys = Object.keys(body).sort();
  if (JSON.stringify(keys) !== JSON.stringify(ERROR_KEYS)) return `error body has keys ${keys.join(',')}, not ${ERROR_KEYS.join(',')}`;
  if (body.statusCode !== a.status) return `error body says statusCode ${body.statusCode}`;
  if (body.error !== STATUS_CODES[a.status]) return `error body says error "${body.error}", not "${STATUS_CODES[a.status]}"`;
  if (!Object.hasOwn(ERROR_CATALOGUE, body.code)) return `error code ${body.code} is not in the catalogue`;
  if (CATALOGUE_STATUSES.has(a.status) && ERROR_CATALOGUE[body.code as keyof typeof ERROR_CATALOGUE] !== a.status) return `error code ${body.code} is not the catalogue's code for ${a.status}`;
  if (typeof body.message !== 'string' || body.message.length === 0) return 'error message is empty';
  if (body.message.length > 1000) return `error message is ${body.message.length} characters long (it echoes the input)`;
  if (a.status === 400 && !/^[^\s:]+: \S/.test(body.message)) return `400 message "${body.message}" does not name the field ("field: reason")`;
  if (typeof body.requestId !== 'string' || body.requestId !== a.headers['x-request-id']) return `requestId ${body.requestId} is not the x-request-id header ${String(a.headers['x-request-id'])}`;
  return null;
}

// ---------------------------------------------------------------------------------------------
// The run

let app: Harness;
let pools: Pools;

async function call(method: string, url: string, payload?: unknown): Promise<any> {
  const res = await app.inject({
    method: method as 'GET', url, headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, ...(payload === undefined ? {} : { payload: payload as object }),
  });
  if (res.statusCode >= 300) throw new Error(`${method} ${url} → ${res.statusCode} ${res.body}`);
  return res.json();
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  const setupStarted = Date.now();
  app = await startHarness({ ADMIN_TOKEN, CONNECTOR_TOKEN, ALERT_SWEEP_SEC: '0' });
  // Something to read, and ids that exist for the valid-ish requests: the first 500 demo
  // records (three accounts, a few hundred chats) and the demo accounts' names.
  const demoRecords = readFileSync(join(import.meta.dirname, '../../fixtures/demo/records.jsonl'), 'utf8').split('\n').filter(Boolean).slice(0, 500).map((l) => JSON.parse(l) as J);
  await call('POST', '/api/demo/ingest', { records: demoRecords });
  await call('POST', '/api/admin/accounts/seed', {});
  // Settled first, so the fuzz is not timed against their processing.
  const deadline = Date.now() + 90_000;
  for (;;) {
    const c = (await call('GET', '/api/health')).components;
    if (c.processor.lag === 0 && c.projector.lag === 0 && c.intelligence.lag === 0) break;
    if (Date.now() > deadline) throw new Error(`the demo records did not settle: ${JSON.stringify(c)}`);
    await sleep(200);
  }
  const sessions = (await call('GET', '/api/sessions?limit=30&sort=opened')).items as any[];
  const alerts = (await call('GET', '/api/alerts?status=all&limit=30')).items as any[];
  const chats = (await call('GET', '/api/chats?limit=30')).items as any[];
  const accounts = (await call('GET', '/api/accounts')).items as any[];
  const keys = [await call('POST', '/api/admin/keys', { name: 'fuzz viewer', role: 'viewer' }), await call('POST', '/api/admin/keys', { name: 'fuzz manager', role: 'manager' })];
  const replay = await call('POST', '/api/admin/replay', {});
  const sessionIds = sessions.map((s) => String(s.id));
  const accountIds = [...new Set(accounts.map((a) => String(a.id)))];
  const chatIds = [...new Set(chats.map((c) => String(c.chatId)))];
  const webhookBodies = ['messages_received.json', 'messages_sent.json', 'messages_deleted.json', 'tips_received.json', 'transactions_new.json', 'subscriptions_new.json', 'users_typing.json']
    .map((f) => sample(f) as J);
  pools = {
    byName: { sessionId: sessionIds, accountId: accountIds, chatId: chatIds, ofUserId: chatIds },
    byPath: {
      '/api/sessions/{id}/analysis': sessionIds,
      '/api/alerts/{id}/ack': alerts.map((a) => String(a.id)),
      '/api/admin/keys/{id}': keys.map((k) => String(k.id)),
      '/api/admin/accounts/{id}/disconnect': accountIds,
      '/api/admin/replay/{id}': [String(replay.id)],
    },
    demoRecords: demoRecords.slice(0, 40),
    webhookBodies,
  };
  console.log(`openapi fuzz setup: ${Date.now() - setupStarted} ms`);
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

let sent = 0;

const ANSWER_WITHIN_MS = 10_000;

/** The answer, or an error if none comes in time (a request that hangs is a defect too). */
async function send(r: FuzzRequest): Promise<Answer> {
  sent++;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ANSWER_WITHIN_MS} ms\n    request: ${describeRequest(r)}`)), ANSWER_WITHIN_MS);
  });
  try {
    return await Promise.race([answer(r), late]);
  } finally {
    clearTimeout(timer);
  }
}

async function answer(r: FuzzRequest): Promise<Answer> {
  if (r.op.path === STREAM_PATH) {
    // Read as it comes: a stream that opened never ends, so its status and headers are the answer.
    const res = await app.stream(r.url, { method: r.method, headers: r.headers, ...(r.payload === undefined ? {} : { body: r.payload }) });
    const streaming = res.status === 200 && String(res.headers['content-type'] ?? '').startsWith('text/event-stream');
    const body = streaming ? '' : await res.text(ANSWER_WITHIN_MS);
    res.close();
    if (process.env.OPENAPI_FUZZ_VERBOSE) console.log(`${describeRequest(r)} → ${res.status} ${streaming ? '(event stream)' : short(body, 200)}`);
    return { status: res.status, headers: res.headers, body };
  }
  const res = await app.inject({ method: r.method as 'GET', url: r.url, headers: r.headers, ...(r.payload === undefined ? {} : { payload: r.payload }) });
  // OPENAPI_FUZZ_VERBOSE=1 prints every request and its answer.
  if (process.env.OPENAPI_FUZZ_VERBOSE) console.log(`${describeRequest(r)} → ${res.statusCode} ${short(res.body, 200)}`);
  return { status: res.statusCode, headers: res.headers, body: res.body };
}

describe('fuzz driven by the OpenAPI document', () => {
  it('every operation, valid-ish then broken, answers below 500 and every error in the catalogue\'s shape', async () => {
    const docRes = await app.inject({ method: 'GET', url: '/docs/json' });
    expect(docRes.statusCode).toBe(200);
    // The costly ones last, so the work they leave behind (a seed's records) slows no other operation.
    const operations = operationsOf(docRes.json()).sort((a, b) => Number(COSTLY[a.key] !== undefined) - Number(COSTLY[b.key] !== undefined));
    expect(operations.length).toBeGreaterThanOrEqual(40);

    const started = Date.now();
    const failures: string[] = [];
    const slowest: { ms: number; what: string }[] = [];
    const perOperation = new Map<string, { requests: number; statuses: Map<number, number>; ms: number }>();
    for (const [i, op] of operations.entries()) {
      const tally = { requests: 0, statuses: new Map<number, number>(), ms: 0 };
      const opStarted = Date.now();
      perOperation.set(op.key, tally);
      for (const pass of ['valid', 'broken'] as const) {
        const numRuns = pass === 'valid' ? Math.min(COSTLY[op.key] ?? Math.ceil(RUNS / 4), RUNS) : RUNS - Math.ceil(RUNS / 4);
        const seed = (BASE_SEED + i * 2 + (pass === 'broken' ? 1 : 0)) | 0;
        const details = await fc.check(fc.asyncProperty(requestArb(op, pools, pass), async (r) => {
          const t0 = performance.now();
          const answer = await send(r);
          slowest.push({ ms: performance.now() - t0, what: `${short(describeRequest(r), 160)} → ${answer.status}` });
          if (slowest.length > 40) slowest.sort((a, b) => b.ms - a.ms).splice(10);
          tally.requests++;
          tally.statuses.set(answer.status, (tally.statuses.get(answer.status) ?? 0) + 1);
          const problem = problemWith(r, answer);
          if (problem !== null) throw new Error(`${problem}\n    request: ${describeRequest(r)}\n    answer: ${answer.status} ${short(answer.body, 300)}`);
        }), { numRuns, seed, includeErrorInReport: true });
        if (details.failed) failures.push(`${op.key} (${pass} pass, OPENAPI_FUZZ_SEED=${BASE_SEED}):\n${fc.defaultReportMessage(details) ?? ''}`);
      }
      tally.ms = Date.now() - opStarted;
    }
    const elapsed = Date.now() - started;
    const lines = [...perOperation].map(([k, t]) => `  ${k}: ${t.requests} requests in ${t.ms} ms, ${[...t.statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`).join(' ')}`);
    const slow = slowest.sort((a, b) => b.ms - a.ms).slice(0, 10).map((x) => `  ${x.ms.toFixed(0)} ms: ${x.what}`);
    console.log(`openapi fuzz: ${operations.length} operations, ${sent} requests in ${(elapsed / 1000).toFixed(1)} s (seed ${BASE_SEED})\n${lines.join('\n')}\nslowest:\n${slow.join('\n')}`);

    expect(failures, failures.join('\n\n')).toEqual([]);
    // Every operation was reached, the valid-ish ones too.
    for (const op of operations) expect(perOperation.get(op.key)?.requests ?? 0, op.key).toBeGreaterThan(0);
    // The process still serves.
    const live = await app.inject({ method: 'GET', url: '/api/health/live' });
    expect(live.statusCode).toBe(200);
  }, 300_000);
});
