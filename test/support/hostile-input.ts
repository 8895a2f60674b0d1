// Seeded generator of hostile requests against the write routes: malformed JSON, wrong types,
// huge strings, deep nesting, prototype-pollution keys, wrong and missing signatures and
// tokens, oversized bodies and wrong content types. Every request it makes must be refused.
import { gzipSync } from 'node:zlib';
import { signBody } from '../../src/ingest/signature.js';
import { mulberry32 } from '../../src/demo/random.js';

export interface HostileRequest {
  readonly kind: string;
  readonly method: 'POST' | 'PUT' | 'GET' | 'DELETE';
  readonly path: string;
  readonly headers: Record<string, string>;
  /** Bytes, built up front: a string built by concatenation is flattened when first sent, which would look like heap growth on the server's side. */
  readonly body: Uint8Array<ArrayBuffer> | undefined;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const ACCOUNT = `acct_${'0'.repeat(31)}1`;
/** Times in spellings outside the door's rule: Date.parse would roll them over or read them in the server's zone. */
const BAD_TIMES: readonly string[] = ['Feb 30 2026', '2026/02/30', 'Nov 28 2026 10:00', '2026-11-28T10:00:00', '2026-02-30T00:00:00Z', 'Sat, 28 Nov 2026 10:00:00 GMT', '2026-11-28T24:00:00Z'];
/** Amounts in spellings outside the door's rule: other bases, exponents, below a cent. */
const BAD_AMOUNTS: readonly Json[] = ['0x10', '0b11', '0o17', '1e3', 0.001, '$1,200.00', '12,50'];
const WHEN = '2026-06-10T00:00:00Z';

/** A well-formed body per write route (null: the route takes none), which the generator breaks. */
export const WRITE_ROUTE_TEMPLATES: Record<string, Json> = {
  'POST /api/admin/accounts': { id: ACCOUNT, displayName: 'Alice' },
  'POST /api/admin/accounts/:id/disconnect': null,
  'POST /api/admin/accounts/auth/2fa': { attemptId: 'att_1', code: '123456' },
  'POST /api/admin/accounts/auth/poll': { attemptId: 'att_1' },
  'POST /api/admin/accounts/auth/start': { email: 'a@example.com', password: 'pw' },
  'POST /api/admin/accounts/seed': null,
  'POST /api/admin/accounts/sync': null,
  'PUT /api/admin/accounts/:id/business-hours': { timezone: 'Europe/Berlin', weekly: { mon: [['09:00', '17:00']], sat: [] }, holidays: ['2026-12-25'] },
  'DELETE /api/admin/accounts/:id/business-hours': null,
  'PUT /api/admin/accounts/:id/banned-phrases': { phrases: ['meet me', 'snap'] },
  'POST /api/admin/alert-hooks': { url: 'https://hooks.example.com/x', events: ['opened', 'resolved'], accountIds: [ACCOUNT], format: 'slack' },
  'DELETE /api/admin/alert-hooks/:id': null,
  'POST /api/admin/alert-hooks/:id/enable': null,
  'POST /api/admin/alert-hooks/:id/test': null,
  'POST /api/admin/backup': null,
  'POST /api/admin/backfill': { accountId: ACCOUNT, since: WHEN },
  'POST /api/admin/backfill-transactions': { accountId: ACCOUNT, since: WHEN },
  'POST /api/admin/close-session': { sessionId: 's1' },
  'POST /api/admin/reassignments': { accountId: ACCOUNT, paymentId: 'p1', toChatterId: 'c1', reason: 'closed in DMs' },
  'PUT /api/admin/chatters/:chatterId': { displayName: 'Ann', accountIds: [ACCOUNT], commissionPct: 10, active: true },
  'POST /api/admin/chatters/:chatterId/clock': { accountId: ACCOUNT, action: 'in' },
  'PUT /api/admin/chatters/:chatterId/roster': { timezone: 'Europe/Berlin', weekly: [{ accountId: ACCOUNT, day: 'sat', start: '22:00', end: '06:00' }], oneOff: [{ accountId: ACCOUNT, start: WHEN, end: WHEN }], absences: [{ from: '2026-12-24', to: '2026-12-26' }] },
  'POST /api/admin/intelligence/run': { sessionId: 's1', limit: 5 },
  'POST /api/admin/keys': { name: 'wallboard', role: 'viewer', accounts: [ACCOUNT] },
  'DELETE /api/admin/keys/:id': null,
  'DELETE /api/admin/set-aside/:id': null,
  'POST /api/admin/set-aside/:id/retry': null,
  'POST /api/admin/purge-demo': { full: false },
  'POST /api/admin/replay': { fromOffset: 0 },
  'POST /api/admin/definitions/generations': { sessionIdleSec: 1700 },
  'POST /api/admin/definitions/generations/:n/apply': null,
  'POST /api/admin/definitions/generations/:n/resume': null,
  'DELETE /api/admin/definitions/generations/:n': null,
  'POST /api/admin/seed-demo': null,
  'POST /api/alerts/:id/ack': null,
  'POST /api/connector/ingest': { accountId: ACCOUNT, messages: [{ chatId: '1', messageId: '2', text: 'hi', sentAt: WHEN, chatterId: 'c1' }] },
  'POST /api/demo/ingest': { records: [{ body: '{}', signature: 'ab', idempotencyKey: 'k' }] },
  'POST /webhooks/platform': null,
};

/** Admin routes that read: attacked through their query strings and path ids. */
export const ADMIN_READ_ROUTES = [
  'GET /api/admin/accounts/:id/business-hours',
  'GET /api/admin/accounts/:id/banned-phrases',
  'GET /api/admin/alert-hooks',
  'GET /api/admin/alert-hooks/:id',
  'GET /api/admin/alert-hooks/:id/deliveries',
  'GET /api/admin/backfill',
  'GET /api/admin/backfill/:id',
  'GET /api/admin/definitions',
  'GET /api/admin/definitions/generations',
  'GET /api/admin/definitions/generations/:n',
  'GET /api/admin/definitions/generations/:n/diff',
  'GET /api/admin/keys',
  'GET /api/admin/reassignments',
  'GET /api/admin/replay',
  'GET /api/admin/replay/:id',
  'GET /api/admin/set-aside',
  'GET /api/admin/set-aside/:id',
  'GET /api/admin/verify',
] as const;

export interface HostileOptions {
  readonly adminToken: string;
  readonly connectorToken: string;
  readonly webhookSecret: string;
  readonly bodyLimitBytes: number;
  /** A real webhook body, which webhook variants break (and sign, to get past the signature). */
  readonly webhookBody: Record<string, Json>;
}

export function hostileRequests(count: number, opts: HostileOptions, seed = 42): HostileRequest[] {
  const rand = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const int = (lo: number, hi: number): number => lo + Math.floor(rand() * (hi - lo + 1));
  const routes = Object.keys(WRITE_ROUTE_TEMPLATES);
  const hugeString = (): string => 'A'.repeat(int(50_000, Math.floor(opts.bodyLimitBytes * 0.9)));
  const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;
  const wrongValue = (v: Json): Json => {
    if (typeof v === 'string') return pick<Json>([42, true, null, [], { v }]);
    if (typeof v === 'number') return pick<Json>([String(v), false, null, [v], 'x']);
    if (typeof v === 'boolean') return pick<Json>(['yes', 1, null, [v]]);
    if (Array.isArray(v)) return pick<Json>([{}, 'list', 7]);
    return pick<Json>([[], 'object', 3]);
  };
  const leaves = (v: Json, path: (string | number)[] = []): (string | number)[][] => {
    if (Array.isArray(v)) return v.flatMap((x, i) => leaves(x, [...path, i]));
    if (v && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => leaves(x, [...path, k]));
    return path.length > 0 ? [path] : [];
  };
  const setAt = (root: Json, path: (string | number)[], value: Json): Json => {
    const copy = structuredClone(root) as Record<string | number, Json>;
    let at = copy;
    for (const k of path.slice(0, -1)) at = at[k] as Record<string | number, Json>;
    at[path[path.length - 1] as string | number] = value;
    return copy as Json;
  };

  /** A JSON-bodied route's template, broken one way; always invalid for that route. */
  const brokenBody = (template: Json): { kind: string; body: string } => {
    const fields = (template ?? {}) as Record<string, Json>;
    const kind = pick(['wrong-type', 'unknown-field', 'not-an-object', 'huge-string', 'proto', 'constructor', 'deep-nesting', 'malformed', 'duplicate-key', 'date']);
    const paths = leaves(template);
    switch (kind) {
      case 'duplicate-key': {
        // A field given twice: JSON.parse keeps the last, a reader of the text sees the first.
        const [name = 'a'] = Object.keys(fields);
        const rest = JSON.stringify(Object.keys(fields).length > 0 ? fields : { a: 1 }).slice(1);
        return { kind, body: `{${JSON.stringify(name)}:${JSON.stringify(pick<Json>([1, 'x', null, fields[name] ?? 2]))},${rest}` };
      }
      case 'date': {
        // A time field in a spelling outside the rule (rolled over, or in the reader's zone).
        const times = paths.filter((p) => typeof p[p.length - 1] === 'string' && /At$|^since$|^start$|^end$|^from$|^to$/.test(String(p[p.length - 1])));
        if (times.length > 0) return { kind, body: JSON.stringify(setAt(template, pick(times), pick(BAD_TIMES))) };
        return { kind: 'unknown-field', body: JSON.stringify({ ...fields, at: pick(BAD_TIMES) }) };
      }
      case 'wrong-type':
        if (paths.length > 0) {
          const p = pick(paths);
          let at: Json = template;
          for (const k of p) at = (at as Record<string | number, Json>)[k] as Json;
          return { kind, body: JSON.stringify(setAt(template, p, wrongValue(at))) };
        }
        return { kind, body: JSON.stringify({ ...fields, [`field${int(0, 99)}`]: 1 }) };
      case 'unknown-field':
        return { kind, body: JSON.stringify({ ...fields, [pick(['extra', 'admin', 'role', 'isAdmin', `f${int(0, 999)}`])]: pick<Json>([1, 'x', true, {}]) }) };
      case 'not-an-object':
        return { kind, body: pick(['[]', '"text"', '42', 'true', '[{"a":1}]']) };
      case 'huge-string': {
        const strings = paths.filter((p) => {
          let at: Json = template;
          for (const k of p) at = (at as Record<string | number, Json>)[k] as Json;
          return typeof at === 'string';
        });
        if (strings.length > 0) return { kind, body: JSON.stringify(setAt(template, pick(strings), hugeString())) };
        return { kind, body: JSON.stringify({ ...fields, huge: hugeString() }) };
      }
      case 'proto':
        return { kind, body: `{"__proto__":{"isAdmin":true},${JSON.stringify(fields).slice(1)}`.replace(',}', '}') };
      case 'constructor':
        return { kind, body: JSON.stringify({ ...fields, constructor: { prototype: { isAdmin: true } } }) };
      case 'deep-nesting':
        return { kind, body: `{"nested":${nested(int(100, 20_000))}}` };
      default:
        return { kind: 'malformed', body: pick(['{', '{"a":', '{"a":1,}', "{'a':1}", '{"a":NaN}', 'nul', '\u0000\u0001\u0002', '{"a":"\\u12"}', '}{', '[1,2']) };
    }
  };

  /** A webhook that is invalid after its signature checks out, or whose signature does not. */
  const brokenWebhook = (): { kind: string; body: string; headers: Record<string, string> } => {
    const base = opts.webhookBody;
    const key = { 'x-ofapi-idempotency-key': `evt_hostile_${int(0, 1e9)}` };
    const signed = (kind: string, body: string, headers: Record<string, string> = key) => ({ kind, body, headers: { ...headers, signature: signBody(opts.webhookSecret, body) } });
    const kind = pick(['bad-signature', 'no-signature', 'event', 'account', 'payload', 'not-an-object', 'no-key', 'long-key', 'proto', 'constructor', 'deep-nesting', 'malformed', 'duplicate-key', 'date', 'amount']);
    const valid = JSON.stringify(base);
    const payload = (base as { payload: Record<string, Json> }).payload;
    switch (kind) {
      case 'duplicate-key':
        return signed(kind, valid.replace('"payload":{"', `"payload":{"${pick(Object.keys(payload))}":${pick(['99999', '"x"', 'null'])},"`));
      case 'date':
        return signed(kind, JSON.stringify({ ...base, payload: { ...payload, createdAt: pick(BAD_TIMES) } }));
      case 'amount':
        return signed(kind, JSON.stringify({ ...base, payload: { ...payload, price: pick(BAD_AMOUNTS) } }));
      case 'bad-signature':
        return { kind, body: valid, headers: { ...key, signature: pick(['', '00', 'sha256=abc', signBody('wrong-secret', valid), 'f'.repeat(64), 'x'.repeat(600)]) } };
      case 'no-signature':
        return { kind, body: valid, headers: key };
      case 'event':
        return signed(kind, JSON.stringify({ ...base, event: pick<Json>([42, '', null, 'e'.repeat(101), ['messages.received'], {}]) }));
      case 'account':
        return signed(kind, JSON.stringify({ ...base, account_id: pick<Json>([7, '', null, 'a'.repeat(201), { id: 1 }]) }));
      case 'payload':
        return signed(kind, JSON.stringify({ ...base, payload: pick<Json>(['text', 1, null, [], true]) }));
      case 'not-an-object':
        return signed(kind, pick(['[]', '"x"', '1', 'null', 'true']));
      case 'no-key':
        return signed(kind, valid, {});
      case 'long-key':
        return signed(kind, valid, { 'x-ofapi-idempotency-key': 'k'.repeat(int(201, 2000)) });
      case 'proto':
        return signed(kind, valid.replace('"payload":{', '"payload":{"__proto__":{"polluted":true},'));
      case 'constructor':
        return signed(kind, valid.replace('"payload":{', '"payload":{"x":{"constructor":{"prototype":{"polluted":true}}},'));
      case 'deep-nesting':
        return signed(kind, valid.replace('"payload":{', `"payload":{"deep":${nested(int(65, 20_000))},`));
      default:
        return signed('malformed', pick([valid.slice(0, int(1, valid.length - 1)), `${valid}}`, valid.replace(':', '::'), '\u00ff\u00fe']));
    }
  };

  const out: HostileRequest[] = [];
  for (let i = 0; i < count; i++) {
    if (rand() < 0.08) {
      const route = pick(ADMIN_READ_ROUTES);
      const [, rawPath = ''] = route.split(' ');
      const hasId = rawPath.includes(':id');
      const path = rawPath.replace(':id', encodeURIComponent(pick(['nope', '../admin', 'x'.repeat(int(1, 300)), '__proto__', '%00'])));
      const query = pick([
        `limit=${pick(['abc', '-1', '0', '501', '1e9', '9'.repeat(40), '', '[]', '{"$gt":0}'])}`,
        `${pick(['x', '__proto__[admin]', 'constructor[prototype][x]', 'limit[$ne]', 'where'])}=1`,
        `limit=5&limit=${'A'.repeat(int(1000, 6000))}`,
      ]);
      const auth = rand();
      const headers: Record<string, string> = {};
      if (auth < 0.85) headers.authorization = `Bearer ${opts.adminToken}`;
      else if (auth < 0.93) headers.authorization = `Bearer ${opts.adminToken.slice(0, -1)}x`;
      // Every query here is refused (400) before a path id is looked up, so half the requests on
      // a route with an id go without one: the id alone is what gets the 404.
      const withQuery = !hasId || rand() < 0.5;
      out.push({ kind: `read:${withQuery ? 'query' : 'id'}${auth >= 0.85 ? '+bad-token' : ''}`, method: 'GET', path: withQuery ? `${path}?${query}` : path, headers, body: undefined });
      continue;
    }
    const route = pick(routes);
    const [method = 'POST', rawPath = ''] = route.split(' ');
    const path = rawPath.replace(':id', encodeURIComponent(pick(['acct_x', 'alert_1', '../../etc/passwd', 'x'.repeat(int(1, 300)), '%00', '__proto__'])));
    const isWebhook = path === '/webhooks/platform';
    const envelope = rand();
    let kind: string;
    let body: string | undefined;
    let headers: Record<string, string> = { 'content-type': 'application/json' };
    let gzipped: Buffer | undefined;
    if (envelope < 0.03) {
      // Compressed, or labelled so: a body is taken as sent, never inflated past the limit.
      kind = 'content-encoding';
      const plain = isWebhook ? JSON.stringify(opts.webhookBody) : JSON.stringify(WRITE_ROUTE_TEMPLATES[route] ?? {});
      const coding = pick(['gzip', 'deflate', 'br', 'x-gzip', 'gzip, identity', 'compress']);
      body = plain;
      if (rand() < 0.5) gzipped = gzipSync(plain);
      headers = { ...headers, 'content-encoding': coding };
    } else if (envelope < 0.07) {
      kind = 'oversized';
      body = JSON.stringify({ big: 'B'.repeat(opts.bodyLimitBytes + int(1, opts.bodyLimitBytes)) });
    } else if (envelope < 0.12) {
      kind = 'content-type';
      body = pick(['a=1&b=2', '<xml/>', '{"a":1}', '--boundary\r\n']);
      headers = { 'content-type': pick(['text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=boundary', 'application/octet-stream']) };
    } else if (isWebhook) {
      const w = brokenWebhook();
      kind = `webhook:${w.kind}`;
      body = w.body;
      headers = { ...headers, ...w.headers };
    } else {
      const template = WRITE_ROUTE_TEMPLATES[route] ?? null;
      const b = brokenBody(template);
      kind = b.kind;
      body = b.body;
    }
    if (!isWebhook) {
      const token = path.startsWith('/api/connector') ? opts.connectorToken : opts.adminToken;
      const auth = rand();
      // Mostly the right token, so validation is what refuses; sometimes none or a wrong one.
      if (auth < 0.85) headers.authorization = `Bearer ${token}`;
      else if (auth < 0.93) headers.authorization = `Bearer ${token.slice(0, -1)}x`;
      if (auth >= 0.85) kind = `${kind}+bad-token`;
    }
    out.push({ kind, method: method as HostileRequest['method'], path, headers, body: gzipped ? new Uint8Array(gzipped) : body === undefined ? undefined : new TextEncoder().encode(body) });
  }
  return out;
}
