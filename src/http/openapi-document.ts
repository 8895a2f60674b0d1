// What the OpenAPI document says about each operation beyond its schemas, derived from the
// route itself so it cannot drift: an operationId and a tag from its method and path, the
// security its access level and credential need, and query parameters with a default marked
// optional (Ajv fills the default, so a client need not send them). Documentation only: the
// validation schema the route runs is left as it is.
import type { FastifySchema, RouteOptions } from 'fastify';
import type { AccessLevel } from '../access/access-model.js';
import { ERROR_CATALOGUE, ErrorBodySchema, type ErrorCode } from './errors.js';

/** The credentials, described as this deployment takes them. */
export function securitySchemes(readAuth: 'open' | 'required') {
  const reads = readAuth === 'open'
    ? 'READ_AUTH=open here: reads may come without a key (a scoped key narrows them to its accounts); writes need one'
    : 'READ_AUTH=required here: every read needs a key';
  return {
    adminToken: { type: 'http', scheme: 'bearer', description: `ADMIN_TOKEN, or an access key (cvk_…) with the role the route needs: viewer for reads, manager, admin. ${reads}` },
    connectorToken: { type: 'http', scheme: 'bearer', description: 'CONNECTOR_TOKEN (the connector feed only)' },
    webhookSignature: {
      type: 'apiKey', in: 'header', name: 'signature',
      description: 'Hex HMAC-SHA256 of the raw body under PLATFORMAPI_WEBHOOK_SECRET; required when that secret is set (always in production)',
    },
  } as const;
}

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

/** What the deployment requires of callers, which the document's security follows. */
export interface DocumentedAccess {
  /** READ_AUTH: whether reads may come without a key. */
  readonly readAuth: 'open' | 'required';
  /** Whether PLATFORMAPI_WEBHOOK_SECRET is set, so every webhook must be signed. */
  readonly webhookSigned: boolean;
}

/** Who may call it, as OpenAPI says it: an empty requirement ({}) means the call may come without one. */
export function securityOf(access: AccessLevel, url: string, deployment: DocumentedAccess): Security {
  if (url === '/webhooks/platform') return deployment.webhookSigned ? [{ webhookSignature: [] }] : [{ webhookSignature: [] }, {}];
  if (url === '/api/connector/ingest') return [{ connectorToken: [] }];
  // The floor answers anyone; a key widens what it names.
  if (url === '/api/floor') return [{ adminToken: [] }, {}];
  switch (access) {
    case 'public': return [];
    // Reads are open unless READ_AUTH=required; a scoped key narrows them either way.
    case 'read': return deployment.readAuth === 'open' ? [{ adminToken: [] }, {}] : [{ adminToken: [] }];
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
 * The errors a route can answer, from what it is: any route a malformed URL or query (400), a
 * credential sent and refused, even where none is needed (401), and a store unavailable when it
 * checks that credential (503); a write also its body (400, 413, 415); one that needs a role a
 * key may lack (403); a path parameter names something that may not exist (404); a
 * rate-limited route answers 429.
 */
export function errorStatusesOf(method: string, url: string, access: AccessLevel, rateLimited: boolean, namesSomething: boolean): ErrorCode[] {
  const out = new Set<ErrorCode>(['INVALID_INPUT', 'UNAUTHORIZED', 'NOT_READY']);
  if (WRITE_METHODS.has(method)) out.add('PAYLOAD_TOO_LARGE').add('UNSUPPORTED_MEDIA_TYPE');
  if (access === 'manager' || access === 'admin') out.add('FORBIDDEN');
  if (namesSomething) out.add('NOT_FOUND');
  if (rateLimited) out.add('RATE_LIMITED');
  for (const code of EXTRA_ERRORS[`${method} ${url}`] ?? []) out.add(code);
  return [...out];
}

/**
 * Statuses a route answers beyond what it is: jobs that may already run (409), platform calls
 * (502, and 404 for what the platform does not know), a body field naming what may not exist.
 */
const EXTRA_ERRORS: Record<string, readonly ErrorCode[]> = {
  'POST /api/admin/replay': ['CONFLICT'],
  // Replay status lives with the projector: a process without that role answers 409.
  'GET /api/admin/replay': ['CONFLICT'],
  'GET /api/admin/replay/:id': ['CONFLICT'],
  'POST /api/admin/purge-demo': ['CONFLICT'],
  // Undoing a reassignment that is not there.
  'POST /api/admin/reassignments': ['CONFLICT'],
  // Clocking in twice, or out while out.
  'POST /api/admin/chatters/:chatterId/clock': ['CONFLICT'],
  'POST /api/admin/backfill': ['CONFLICT', 'PLATFORM_ERROR'],
  'POST /api/admin/backfill-transactions': ['CONFLICT', 'PLATFORM_ERROR'],
  'POST /api/admin/accounts/sync': ['PLATFORM_ERROR', 'NOT_FOUND'],
  'POST /api/admin/accounts/auth/start': ['PLATFORM_ERROR', 'NOT_FOUND'],
  'POST /api/admin/accounts/auth/poll': ['PLATFORM_ERROR', 'NOT_FOUND'],
  'POST /api/admin/accounts/auth/2fa': ['PLATFORM_ERROR', 'NOT_FOUND'],
  'POST /api/admin/close-session': ['NOT_FOUND'],
  'POST /api/admin/intelligence/run': ['NOT_FOUND'],
  'GET /api/chats': ['NOT_FOUND'],
  'POST /api/admin/seed-demo': ['FORBIDDEN'],
  'POST /api/demo/ingest': ['FORBIDDEN'],
};

/**
 * A path parameter names one thing, which may not exist (404); so does an `accountId`, which
 * a scoped key may not see (answered as if it did not exist).
 */
function namesSomething(url: string, schema: Record<string, unknown>): boolean {
  if (url.includes(':') || url.includes('{')) return true;
  const fields = (part: unknown) => Object.keys((part as JsonSchema | undefined)?.properties ?? {});
  return [...fields(schema.querystring), ...fields(schema.body)].includes('accountId');
}

type RouteTransform = (input: { schema: FastifySchema; url: string; route: RouteOptions }) => { schema: FastifySchema; url: string };

/** The swagger transform for a deployment: each route's schema as the document shows it. */
export const documentRoutes = (deployment: DocumentedAccess): RouteTransform => ({ schema, url, route }) => {
  const method = Array.isArray(route.method) ? (route.method[0] as string) : route.method;
  const access = ((route.config as { access?: AccessLevel } | undefined)?.access ?? 'public');
  const own = (schema ?? {}) as Record<string, unknown>;
  const querystring = optionalDefaults(own.querystring as JsonSchema | undefined);
  const config = (route.config ?? {}) as { rateClass?: string };
  const declared = (own.response ?? {}) as Record<string, unknown>;
  const errors = errorStatusesOf(method, url, access, config.rateClass !== 'none', namesSomething(url, own));
  // Every route declares its successes with their bodies (a test holds them to it); the errors are added here.
  const response: Record<string, unknown> = { ...declared };
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
      security: securityOf(access, url, deployment),
      response,
    } as FastifySchema,
  };
};

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

/** How a catalogue code is named among the document's shared responses: `INVALID_INPUT` → `InvalidInput`. */
export const responseNameOf = (code: string): string => code.toLowerCase().replace(/(^|_)([a-z])/g, (_m, _sep: string, c: string) => c.toUpperCase());

const CODE_BY_STATUS = new Map<string, ErrorCode>(Object.entries(ERROR_CATALOGUE).map(([code, status]) => [String(status), code as ErrorCode]));

/** The error schema, once: every error answer is in the catalogue's shape. */
const ERROR_SCHEMA_REF = { $ref: '#/components/schemas/Error' } as const;

interface ResponseObject { description?: string; content?: Record<string, { schema?: { properties?: Record<string, unknown> } }>; $ref?: string }

/**
 * Error answers by reference: each catalogue status is one shared response (its description,
 * the Error schema), and the catch-all `default` another, rather than the same schema written
 * out for every status of every operation.
 */
export function shareErrors<T extends { paths?: object; components?: object }>(doc: T): T {
  const paths = (doc.paths ?? {}) as Record<string, Record<string, { responses?: Record<string, ResponseObject> }> | undefined>;
  const used = new Set<ErrorCode>();
  for (const methods of Object.values(paths)) {
    for (const op of Object.values(methods ?? {})) {
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        const schema = response.content?.['application/json']?.schema;
        const isError = schema?.properties?.code !== undefined && schema.properties.requestId !== undefined;
        if (!isError || !op.responses) continue;
        if (status === 'default') { op.responses.default = { $ref: '#/components/responses/Error' }; continue; }
        const code = CODE_BY_STATUS.get(status);
        if (!code) continue;
        used.add(code);
        op.responses[status] = { $ref: `#/components/responses/${responseNameOf(code)}` };
      }
    }
  }
  const components = (doc.components ?? {}) as { schemas?: Record<string, unknown>; responses?: Record<string, unknown> };
  components.schemas = { ...components.schemas, Error: { ...ErrorBodySchema, required: [...ErrorBodySchema.required, 'requestId'], description: 'Every error, in one shape: the catalogue\'s `code`, a message naming the field and the reason, and the request id (also in the x-request-id header)' } };
  const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: ERROR_SCHEMA_REF } } });
  components.responses = {
    ...components.responses,
    ...Object.fromEntries([...used].sort().map((code) => [responseNameOf(code), errorResponse(`${code} (${ERROR_CATALOGUE[code]}): ${ERROR_MEANINGS[code]}`)])),
    Error: errorResponse('any other error (a bug answers 500 INTERNAL), in the same shape'),
  };
  (doc as { components?: object }).components = components;
  return doc;
}

const ERROR_MEANINGS: Record<ErrorCode, string> = {
  INVALID_INPUT: 'a parameter, header or body field is malformed or out of range; the message names it',
  UNAUTHORIZED: 'no credential where one is needed, or one that is not valid',
  FORBIDDEN: 'the key is valid but its role may not do this',
  NOT_FOUND: 'what the path or a parameter names does not exist, or is an account the key may not see',
  CONFLICT: 'a job of this kind is already running, or the state does not allow it',
  GONE: 'what it needs is past the log\'s retention: nothing is guessed',
  PAYLOAD_TOO_LARGE: 'the body is over the limit',
  UNSUPPORTED_MEDIA_TYPE: 'the body is not application/json',
  UNPROCESSABLE: 'the request is well formed but would take more work than the route allows; the message says how much',
  RATE_LIMITED: 'too many requests; wait as Retry-After says',
  INTERNAL: 'a bug',
  PLATFORM_ERROR: 'the platform\'s API failed or answered something unusable',
  NOT_READY: 'the store or the log is unavailable; retry later',
};
