// What the OpenAPI document says about each operation beyond its schemas, derived from the
// route itself so it cannot drift: an operationId and a tag from its method and path, the
// security its access level and credential need, and query parameters with a default marked
// optional (Ajv fills the default, so a client need not send them). Documentation only: the
// validation schema the route runs is left as it is.
import type { FastifySchema, RouteOptions } from 'fastify';
import type { AccessLevel } from '../access/access-model.js';
import { ERROR_CATALOGUE, ErrorBodySchema, type ErrorCode } from './errors.js';

export const SECURITY_SCHEMES = {
  adminToken: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN, or an access key (cvk_…) with the role the route needs: viewer for reads, manager, admin' },
  connectorToken: { type: 'http', scheme: 'bearer', description: 'CONNECTOR_TOKEN (the connector feed only)' },
  webhookSignature: {
    type: 'apiKey', in: 'header', name: 'signature',
    description: 'Hex HMAC-SHA256 of the raw body under PLATFORMAPI_WEBHOOK_SECRET; required when that secret is set (always in production)',
  },
} as const;

const WORD = /[A-Za-z0-9]+/g;

/** `GET /api/sessions/:id/analysis` → `getSessionsByIdAnalysis`. */
export function operationIdOf(method: string, url: string): string {
  const parts = url.replace(/^\/api\//, '/').split('/').filter(Boolean).flatMap((segment) => {
    const param = segment.startsWith(':') || segment.startsWith('{');
    const words = segment.match(WORD) ?? [];
    return param ? ['by', ...words] : words;
  });
  const name = parts.map((w) => w[0]?.toUpperCase() + w.slice(1)).join('');
  return `${method.toLowerCase()}${name === '' ? 'Root' : name}`;
}

/** The path's first segment after /api/ (admin routes by their second): how the UI groups operations. */
export function tagOf(url: string): string {
  const parts = url.split('/').filter(Boolean);
  if (parts[0] !== 'api') return parts[0] === 'webhooks' ? 'webhooks' : 'service';
  const first = parts[1] ?? 'api';
  return first === 'admin' ? 'admin' : first.replace(/^:.*/, 'api');
}

type Security = Record<string, string[]>[];

/** Who may call it, as OpenAPI says it: an empty requirement ({}) means the call may come without one. */
export function securityOf(access: AccessLevel, url: string): Security {
  if (url === '/webhooks/platform') return [{ webhookSignature: [] }, {}];
  if (url === '/api/connector/ingest') return [{ connectorToken: [] }];
  switch (access) {
    case 'public': return [];
    // Reads are open unless READ_AUTH=required; a scoped key narrows them either way.
    case 'read': return [{ adminToken: [] }, {}];
    default: return [{ adminToken: [] }];
  }
}

interface JsonSchema {
  type?: unknown;
  properties?: Record<string, { default?: unknown }>;
  required?: string[];
  [k: string]: unknown;
}

/** A query schema whose parameters with a default are not required. */
export function optionalDefaults(query: JsonSchema | undefined): JsonSchema | undefined {
  if (!query?.properties || !query.required) return query;
  const props = query.properties;
  const required = query.required.filter((name) => props[name]?.default === undefined);
  return { ...query, required };
}

/** Methods that write, and may carry a body. */
export const WRITE_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The errors a route can answer, from what it is: every route under /api/ checks its query (400)
 * and may find its store unavailable (503); a write also its body (400, 413, 415); a route with
 * a credential can refuse it (401), and one that needs a role a key may lack (403); a path
 * parameter names something that may not exist (404); a rate-limited route answers 429.
 */
export function errorStatusesOf(method: string, url: string, access: AccessLevel, rateLimited: boolean, namesSomething: boolean): ErrorCode[] {
  // Any route: a malformed URL or query (400); a credential sent and refused, even where none
  // is needed (401).
  const out = new Set<ErrorCode>(['INVALID_INPUT', 'UNAUTHORIZED']);
  if (url.startsWith('/api/') || url === '/webhooks/platform') out.add('NOT_READY');
  if (WRITE_METHODS.has(method)) out.add('PAYLOAD_TOO_LARGE').add('UNSUPPORTED_MEDIA_TYPE');
  if (access === 'manager' || access === 'admin') out.add('FORBIDDEN');
  if (namesSomething) out.add('NOT_FOUND');
  if (rateLimited) out.add('RATE_LIMITED');
  for (const code of EXTRA_ERRORS[`${method} ${url}`] ?? []) out.add(code);
  if (url.startsWith('/api/admin/accounts')) out.add('PLATFORM_ERROR');
  return [...out];
}

/** Statuses a route answers beyond what it is: jobs that may already run (409), platform calls (502). */
const EXTRA_ERRORS: Record<string, readonly ErrorCode[]> = {
  'POST /api/admin/replay': ['CONFLICT'],
  'POST /api/admin/purge-demo': ['CONFLICT'],
  'POST /api/admin/backfill': ['CONFLICT', 'PLATFORM_ERROR'],
  'POST /api/admin/backfill-transactions': ['CONFLICT', 'PLATFORM_ERROR'],
  'POST /api/admin/seed-demo': ['FORBIDDEN'],
  'POST /api/demo/ingest': ['FORBIDDEN'],
};

/** Successes other than 200. */
const SUCCESSES: Record<string, Record<string, string>> = {
  'POST /api/admin/keys': { 201: 'the key, with its secret (shown once)' },
  'POST /api/admin/accounts': { 200: 'updated', 201: 'registered' },
  'POST /api/admin/close-session': { 200: 'already closed', 202: 'close requested: the processor closes it' },
  'POST /api/admin/replay': { 202: 'replay started: follow it at its status URL' },
  'POST /api/admin/backfill': { 202: 'backfill started: follow it at its status URL' },
  'POST /api/admin/backfill-transactions': { 202: 'backfill started: follow it at its status URL' },
};

/** Query or body fields that name one thing, which may not exist or not be the caller's (404). */
const NAMING = ['accountId', 'chatId', 'sessionId', 'id'];

function namesSomething(url: string, schema: Record<string, unknown>): boolean {
  if (url.includes(':') || url.includes('{')) return true;
  const fields = (part: unknown) => Object.keys((part as JsonSchema | undefined)?.properties ?? {});
  return [...fields(schema.querystring), ...fields(schema.body)].some((f) => NAMING.includes(f));
}

export function documentRoute({ schema, url, route }: { schema: FastifySchema; url: string; route: RouteOptions }): { schema: FastifySchema; url: string } {
  const method = Array.isArray(route.method) ? (route.method[0] as string) : route.method;
  const access = ((route.config as { access?: AccessLevel } | undefined)?.access ?? 'public');
  const own = (schema ?? {}) as Record<string, unknown>;
  const querystring = optionalDefaults(own.querystring as JsonSchema | undefined);
  const config = (route.config ?? {}) as { rateClass?: string };
  const declared = (own.response ?? {}) as Record<string, unknown>;
  const errors = errorStatusesOf(method, url, access, config.rateClass !== 'none', namesSomething(url, own));
  const response: Record<string, unknown> = { ...declared };
  for (const [status, description] of Object.entries(SUCCESSES[`${method} ${url}`] ?? {})) response[status] ??= { description };
  // A route that declares no success answers 200 (its body is not declared yet).
  if (!Object.keys(response).some((status) => status.startsWith('2'))) response['200'] = { description: 'OK' };
  for (const code of errors) {
    const status = String(ERROR_CATALOGUE[code]);
    if (!(status in response)) response[status] = { ...ErrorBodySchema, description: `${code}: see the error catalogue` };
  }
  // Anything else (a bug: 500) still comes in the catalogue's shape.
  response.default ??= { ...ErrorBodySchema, description: 'any other error, in the catalogue\'s shape' };
  return {
    url,
    schema: {
      ...own,
      ...(querystring ? { querystring } : {}),
      operationId: (own.operationId as string | undefined) ?? operationIdOf(method, url),
      tags: (own.tags as string[] | undefined) ?? [tagOf(url)],
      security: securityOf(access, url),
      response,
    } as FastifySchema,
  };
}

/** The platform's webhook envelope, as the samples in fixtures/samples/ show it. */
const WEBHOOK_ENVELOPE = {
  type: 'object',
  required: ['event', 'account_id', 'payload'],
  properties: {
    event: { type: 'string', description: 'the event name, e.g. messages.received, messages.sent, transactions.new' },
    account_id: { type: 'string', description: 'the creator account the event is about' },
    payload: { type: 'object', description: 'the event\'s object (a message, a transaction, a notification); ids are JSON numbers and may exceed 2^53' },
  },
} as const;

interface Operation { requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> }; [k: string]: unknown }

/**
 * The document's request bodies as the routes take them: a write route that takes no body has
 * none in the document (the empty object it validates against is how it refuses one), a body
 * whose fields are all optional may be left out, and the webhook's is the platform's envelope
 * (the route reads the raw bytes, so it declares no schema of its own).
 */
export function documentBodies<T extends { paths?: object }>(doc: T): T {
  const paths = (doc.paths ?? {}) as Record<string, Record<string, Operation> | undefined>;
  for (const [path, methods] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(methods ?? {})) {
      if (path === '/webhooks/platform' && method === 'post') {
        op.requestBody = { required: true, content: { 'application/json': { schema: WEBHOOK_ENVELOPE as unknown as JsonSchema } } };
        continue;
      }
      const schema = op.requestBody?.content?.['application/json']?.schema;
      if (!op.requestBody || !schema) continue;
      const empty = schema.additionalProperties === false && Object.keys(schema.properties ?? {}).length === 0;
      if (empty) delete op.requestBody;
      else if ((schema.required ?? []).length === 0) op.requestBody.required = false;
    }
  }
  return doc;
}
