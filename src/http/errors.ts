// One error shape for every route: {statusCode, error, code, message}. Nothing else leaks:
// no stack traces, no secret values.
import { randomUUID } from 'node:crypto';
import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StoreUnavailableError } from '../adapters/store/store.js';

export const ERROR_CATALOGUE = {
  INVALID_INPUT: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  GONE: 410,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNPROCESSABLE: 422,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  PLATFORM_ERROR: 502,
  NOT_READY: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export interface ErrorBody {
  readonly statusCode: number;
  readonly error: string;
  readonly code: ErrorCode;
  readonly message: string;
}

export class ApiError extends Error {
  readonly statusCode: number;
  constructor(readonly code: ErrorCode, message: string) {
    super(message);
    this.name = 'ApiError';
    this.statusCode = ERROR_CATALOGUE[code];
  }
}

/** The error body as a JSON schema (OpenAPI): `requestId` is added to every error body on its way out. */
export const ErrorBodySchema = {
  type: 'object',
  required: ['statusCode', 'error', 'code', 'message'],
  properties: {
    statusCode: { type: 'integer' },
    error: { type: 'string' },
    code: { type: 'string', enum: Object.keys(ERROR_CATALOGUE) },
    message: { type: 'string' },
    requestId: { type: 'string' },
  },
} as const;

/** Response schemas of the catalogue's errors a route answers, keyed by status, for `schema.response`. */
export function errorResponses(...codes: readonly ErrorCode[]): Record<number, typeof ErrorBodySchema & { description: string }> {
  return Object.fromEntries(codes.map((code) => [ERROR_CATALOGUE[code], { ...ErrorBodySchema, description: code }]));
}

export const invalidInput = (field: string, reason: string): ApiError => new ApiError('INVALID_INPUT', `${field}: ${reason}`);

export function errorBody(code: ErrorCode, message: string): ErrorBody {
  const statusCode = ERROR_CATALOGUE[code];
  return { statusCode, error: STATUS_CODES[statusCode] ?? 'Error', code, message };
}

type ValidationIssue = NonNullable<FastifyError['validation']>[number];

/**
 * "must be one of: a, b" for a value outside a closed set. A TypeBox union of literals fails as
 * one `const` error per literal (each "must be equal to constant"), an enum as one `enum` error:
 * either way the caller is told every allowed value, not one failed branch.
 */
function allowedValues(issues: readonly ValidationIssue[], path: string | undefined): string | undefined {
  const values: unknown[] = [];
  for (const i of issues) {
    if (i.instancePath !== path) continue;
    const p = i.params as { allowedValue?: unknown; allowedValues?: unknown[] };
    if (i.keyword === 'const') values.push(p.allowedValue);
    else if (i.keyword === 'enum') values.push(...(p.allowedValues ?? []));
  }
  return values.length > 0 ? `must be one of: ${values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ')}` : undefined;
}

function fromFastify(err: FastifyError): ErrorBody | undefined {
  if (err.validation) {
    const first = err.validation[0];
    const where = err.validationContext ?? 'request';
    const path = first?.instancePath ? first.instancePath.replace(/^\//, '').replace(/\//g, '.') : '';
    const params = first?.params as { missingProperty?: string; additionalProperty?: string } | undefined;
    if (params?.additionalProperty) {
      const field = [where, path, params.additionalProperty].filter(Boolean).join('.');
      return errorBody('INVALID_INPUT', `${field}: is not a known ${where === 'querystring' ? 'parameter' : 'field'}`);
    }
    const field = [where, path || params?.missingProperty].filter(Boolean).join('.');
    // An optional body is "object or null" to the validator; to a caller it is a JSON object.
    const message = first?.keyword === 'type' && first.message === 'must be object,null' ? 'must be a JSON object' : allowedValues(err.validation, first?.instancePath) ?? first?.message;
    return errorBody('INVALID_INPUT', `${field}: ${message ?? 'is invalid'}`);
  }
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return errorBody('PAYLOAD_TOO_LARGE', 'body: exceeds the size limit');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return errorBody('UNSUPPORTED_MEDIA_TYPE', 'content-type: must be application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return errorBody('INVALID_INPUT', 'body: must not be empty');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return errorBody('INVALID_INPUT', 'body: is not valid JSON');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return errorBody('INVALID_INPUT', 'content-length: does not match the body');
    default:
      return undefined;
  }
}

/**
 * The longest path segment the router takes as a parameter (Fastify's `maxParamLength`, 100 by
 * default). Above every path parameter's declared maxLength (400, an alert id), so the route's
 * schema names the parameter; only longer segments get the router's 414.
 */
export const MAX_PATH_PARAM_LENGTH = 512;

/**
 * Fastify's `frameworkErrors`: what its router refuses before any route or error handler runs
 * (a malformed %-escape in the path, a path segment past MAX_PATH_PARAM_LENGTH). Left to
 * Fastify, these answer outside the catalogue (`code: FST_ERR_BAD_URL`, a 414 whose `error`
 * says "Bad Request", no requestId), so they are put in its shape here.
 */
export function frameworkErrorHandler(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  let body: ErrorBody;
  switch (err.code) {
    case 'FST_ERR_BAD_URL':
      body = errorBody('INVALID_INPUT', 'path: is not a valid URL path (a malformed %-escape, or one that is not UTF-8)');
      break;
    case 'FST_ERR_MAX_PARAM_LENGTH':
      // 414 URI Too Long, as Fastify answers it; the code is the catalogue's for a refused input.
      body = { statusCode: 414, error: STATUS_CODES[414] ?? 'URI Too Long', code: 'INVALID_INPUT', message: `path: a segment is longer than ${MAX_PATH_PARAM_LENGTH} characters` };
      break;
    default:
      request.log.error({ err }, 'router error');
      body = errorBody('INTERNAL', 'internal error');
  }
  // The hooks that add the request id run for routed requests only.
  void reply.status(body.statusCode).header('x-request-id', request.id).send({ ...body, requestId: request.id });
}

/**
 * Fastify's `clientErrorHandler`: what Node's HTTP parser refuses before Fastify sees a request
 * (headers or a request line past the header limit, a request that is not HTTP, one not
 * received within the request timeout). Fastify's own answer is `{"error","message","statusCode"}`,
 * outside the catalogue and without a request id: these answer in the catalogue's shape, with
 * an id made here (there is no request to carry one) in the body and the header.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [statusCode, message] = err.code === 'HPE_HEADER_OVERFLOW'
    ? [431, `headers: the request line and headers are longer than ${maxHeaderSize} bytes (a query string counts); send less`]
    : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'request: not received in full within the request timeout']
      : [400, 'request: not a valid HTTP request'];
  const requestId = randomUUID();
  const error = STATUS_CODES[statusCode] ?? 'Error';
  const body = JSON.stringify({ statusCode, error, code: 'INVALID_INPUT', message, requestId });
  // A response already begun on this socket (a keep-alive connection whose next request is
  // refused) must not get a second status line written into its body; Node's default guards the same.
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && inFlight?.headersSent !== true) {
    socket.write(`HTTP/1.1 ${statusCode} ${error}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nx-request-id: ${requestId}\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy(err);
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    let body: ErrorBody;
    if (err instanceof ApiError) body = errorBody(err.code, err.message);
    else if (err instanceof StoreUnavailableError) {
      request.log.warn({ err }, 'store unavailable');
      body = errorBody('NOT_READY', 'store: unavailable; retry later (see /api/health)');
    } else {
      const mapped = fromFastify(err);
      if (mapped) body = mapped;
      else if (err.statusCode === 429) body = errorBody('RATE_LIMITED', err.message || 'rate limited; retry later');
      else if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
        body = { statusCode: err.statusCode, error: STATUS_CODES[err.statusCode] ?? 'Error', code: 'INVALID_INPUT', message: err.message };
      } else {
        request.log.error({ err }, 'unhandled error');
        body = errorBody('INTERNAL', 'internal error');
      }
    }
    void reply.status(body.statusCode).send(body);
  });
  app.setNotFoundHandler((request, reply) => {
    void reply.status(404).send(errorBody('NOT_FOUND', `route ${request.method} ${request.url.split('?')[0]} does not exist`));
  });
}
