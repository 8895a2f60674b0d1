// Holds the service to its OpenAPI document: every answer a route gives in the suite must be a
// status that route declares (the document's `default` aside, which would take any), and its
// JSON body must match the schema declared for that status, with no field the schema leaves
// out. Bodies are checked before the serializer sees them: a schema-driven serializer drops
// an undeclared field and coerces a mistyped one, which would hide the drift from a check of
// the bytes. Installed by the inject() harness on its server; a test whose request broke the
// contract fails, naming the route, the status and what is wrong.
import { appendFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

type Schema = Record<string, unknown>;
interface Response { content?: Record<string, { schema?: Schema }> }
type Doc = { paths?: Record<string, Record<string, { responses?: Record<string, Response> }>>; components?: Record<string, Record<string, unknown>> };

/** `value` with every local `$ref` (`#/components/…`) replaced by what it points at. */
function dereferenced(value: unknown, doc: Doc): unknown {
  if (Array.isArray(value)) return value.map((v) => dereferenced(v, doc));
  if (value === null || typeof value !== 'object') return value;
  const ref = (value as { $ref?: unknown }).$ref;
  if (typeof ref === 'string' && ref.startsWith('#/')) {
    const target = ref.slice(2).split('/').reduce<unknown>((at, key) => (at as Record<string, unknown> | undefined)?.[key], doc);
    if (target === undefined) throw new Error(`the document's ${ref} points at nothing`);
    return dereferenced(target, doc);
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, dereferenced(v, doc)]));
}

/** Routes the document leaves out on purpose (the pages, the docs UI) have no contract to keep. */
const hidden = (request: FastifyRequest): boolean => (request.routeOptions.schema as { hide?: boolean } | undefined)?.hide === true;

/**
 * The schema as a check of drift: an object schema that lists its properties allows no others
 * unless it says so. (A response schema is open by default, which would let any new field pass.)
 */
export function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Schema = {};
  for (const [k, v] of Object.entries(schema)) out[k] = k === 'properties' || k === 'patternProperties' ? Object.fromEntries(Object.entries(v as Schema).map(([p, s]) => [p, closed(s)])) : closed(v);
  if (out.properties !== undefined && out.additionalProperties === undefined && out.patternProperties === undefined) out.additionalProperties = false;
  return out;
}

/**
 * Validators by schema text, shared by every harness of a test file: the document is the same
 * for each, and compiling all of it took a second per harness. Each is compiled when a route
 * first answers with its status.
 */
const compiled = new Map<string, ValidateFunction>();
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
addFormats.default(ajv);

function validatorOf(schema: Schema): ValidateFunction {
  const key = JSON.stringify(schema);
  let v = compiled.get(key);
  if (!v) {
    v = ajv.compile(schema);
    compiled.set(key, v);
  }
  return v;
}

/** A status's body check, compiled on first use. */
type LazyValidator = () => ValidateFunction;

export class ContractCheck {
  private readonly found: string[] = [];
  private doc: Doc | null = null;
  /** Per `METHOD /path`, its statuses' checks; null: not in the document. */
  private readonly operations = new Map<string, Map<string, LazyValidator | null> | null>();
  /** The media types each operation declares per status (none listed: a status without a body). */
  private readonly mediaTypes = new Map<string, Map<string, string[]>>();
  private readonly checkedBody = new WeakSet<FastifyRequest>();

  /** `logFile` (CONTRACT_LOG by default): where to list breaks instead of failing on them, to see them all in one run. */
  constructor(private readonly app: FastifyInstance, private readonly logFile: string | null = process.env.CONTRACT_LOG ?? null) {
    app.addHook('preSerialization', async (request, reply, payload) => {
      // Only where the route's own schema will serialise it; other bodies are checked as sent
      // (an onSend hook adds the error body's requestId).
      // Error bodies get their requestId later, so they are checked as sent; any other body with a
      // schema of its own (a 503 with the health report) before the serializer reshapes it.
      const own = (request.routeOptions.schema?.response ?? {}) as Record<string, unknown>;
      const declared = own[String(reply.statusCode)] !== undefined || own[`${String(reply.statusCode)[0]}xx`] !== undefined;
      const errorBody = typeof payload === 'object' && payload !== null && 'code' in payload && 'statusCode' in payload;
      if (declared && !errorBody) this.checkBody(request, reply, payload);
      return payload;
    });
    app.addHook('onSend', async (request, reply, payload) => {
      const url = request.routeOptions.url;
      if (!url || hidden(request)) return payload;
      const responses = this.responses(request.method, url);
      if (!responses) {
        this.note(`${request.method} ${url} answered ${reply.statusCode} but is not in the document`);
        return payload;
      }
      if (!responses.has(String(reply.statusCode))) {
        this.note(`${request.method} ${pathOf(url)} answered ${reply.statusCode}, which it does not declare (declared: ${[...responses.keys()].sort().join(', ')})`);
        return payload;
      }
      // A body of a media type the status does not list (CSV where only JSON is declared, or the
      // reverse). Streams (an export) and text bodies are held to this; their bytes are not parsed.
      const types = this.mediaTypes.get(`${request.method === 'HEAD' ? 'GET' : request.method} ${pathOf(url)}`)?.get(String(reply.statusCode)) ?? [];
      const sent = String(reply.getHeader('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
      if (types.length > 0 && sent !== '' && !types.includes(sent)) {
        this.note(`${request.method} ${pathOf(url)} answered ${reply.statusCode} as ${sent}, which it does not declare for that status (declared: ${types.join(', ')})`);
        return payload;
      }
      // Bodies that reached here as text (an error handler's, a hand-serialised answer).
      if (!this.checkedBody.has(request) && typeof payload === 'string' && /^application\/(?:[\w.-]+\+)?json\b/.test(String(reply.getHeader('content-type') ?? ''))) {
        let parsed: unknown;
        try { parsed = JSON.parse(payload); } catch { this.note(`${request.method} ${pathOf(url)} ${reply.statusCode}: body is not JSON`); return payload; }
        this.checkBody(request, reply, parsed);
      }
      return payload;
    });
  }

  private checkBody(request: FastifyRequest, reply: FastifyReply, body: unknown): void {
    const url = request.routeOptions.url;
    if (!url || hidden(request)) return;
    const validate = this.responses(request.method, url)?.get(String(reply.statusCode))?.();
    this.checkedBody.add(request);
    if (!validate || validate(body)) return;
    const issues = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}${e.keyword === 'additionalProperties' ? ` (${String((e.params as { additionalProperty?: string }).additionalProperty)})` : ''}`);
    this.note(`${request.method} ${pathOf(url)} ${reply.statusCode}: body does not match its declared schema: ${issues.join('; ')}`);
  }

  private responses(method: string, url: string): Map<string, LazyValidator | null> | undefined {
    const key = `${method === 'HEAD' ? 'GET' : method} ${pathOf(url)}`;
    if (this.operations.has(key)) return this.operations.get(key) ?? undefined;
    this.doc ??= this.app.swagger() as Doc;
    const [verb, path] = [key.slice(0, key.indexOf(' ')), key.slice(key.indexOf(' ') + 1)];
    const op = this.doc.paths?.[path]?.[verb.toLowerCase()];
    if (!op) {
      this.operations.set(key, null);
      return undefined;
    }
    // Each operation is read from the document when a route first answers, not all at once.
    const byStatus = new Map<string, LazyValidator | null>();
    const types = new Map<string, string[]>();
    for (const [status, shown] of Object.entries(op.responses ?? {})) {
      if (status === 'default') continue;
      const response = dereferenced(shown, this.doc) as Response;
      const schema = response.content?.['application/json']?.schema;
      let v: ValidateFunction | undefined;
      byStatus.set(status, schema ? () => (v ??= validatorOf(closed(schema) as Schema)) : null);
      types.set(status, Object.keys(response.content ?? {}).map((t) => t.toLowerCase()));
    }
    this.operations.set(key, byStatus);
    this.mediaTypes.set(key, types);
    return byStatus;
  }

  private note(line: string): void {
    if (this.logFile) appendFileSync(this.logFile, `${line}\n`);
    else this.found.push(line);
  }

  /** Throws if any answer so far broke the contract (and forgets them). */
  assertKept(): void {
    if (this.found.length === 0) return;
    const lines = this.found.splice(0);
    throw new Error(`OpenAPI contract broken:\n  ${[...new Set(lines)].join('\n  ')}`);
  }
}

function pathOf(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}
