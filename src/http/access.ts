// Who may call what. Every route declares an access level (`config.access`; a GET defaults
// to `read`, any other method to `admin`, so a route that forgets to declare is closed, not
// open); one hook resolves the caller and enforces it before anything else runs.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { createHash, timingSafeEqual } from 'node:crypto';
import { ADMIN_TOKEN_PRINCIPAL, ANONYMOUS, decide, scopeOf, type AccessLevel, type Principal, type ReadAuth, type Scope } from '../access/access-model.js';
import { looksLikeApiKey, type ApiKeys } from '../access/api-keys.js';
import { ApiError } from './errors.js';
import type { RefusalLimiter } from './refusal-limiter.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route; see AccessLevel. */
    access?: AccessLevel;
  }
  interface FastifyRequest {
    principal: Principal;
  }
}

export interface AccessOptions {
  readonly adminToken: string | null;
  readonly keys: ApiKeys;
  readonly readAuth: ReadAuth;
  readonly refusals: RefusalLimiter;
}

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();
const BEARER = /^Bearer[ \t]+(\S{1,512})$/i;

export function defaultAccess(method: string | string[], url: string): AccessLevel {
  if (url === '/docs' || url.startsWith('/docs/')) return 'public';
  if (url.startsWith('/api/admin/')) return 'admin';
  const methods = Array.isArray(method) ? method : [method];
  return methods.every((m) => m === 'GET' || m === 'HEAD') ? 'read' : 'admin';
}

const NEEDS: Record<Exclude<AccessLevel, 'public' | 'own'>, string> = {
  read: 'a viewer, manager or admin key (READ_AUTH=required)',
  manager: 'a manager or admin key, or ADMIN_TOKEN',
  admin: 'an admin key or ADMIN_TOKEN',
};

export function installAccess(app: FastifyInstance, opts: AccessOptions): void {
  const adminDigest = opts.adminToken === null ? null : digest(opts.adminToken);
  // Set by the hook below on every request; null only until then.
  app.decorateRequest('principal', null as never);

  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, access: route.config?.access ?? defaultAccess(route.method, route.url) };
  });

  /** A wrong credential is counted when it is decided, so a burst in flight cannot outrun the count. */
  const refuse = (request: FastifyRequest, message: string): never => {
    opts.refusals.note(refusalKey(request));
    throw new ApiError('UNAUTHORIZED', message);
  };

  const resolve = async (request: FastifyRequest): Promise<Principal> => {
    const header = request.headers.authorization;
    if (header === undefined) return ANONYMOUS;
    const token = typeof header === 'string' ? BEARER.exec(header.trim())?.[1] : undefined;
    if (!token) return refuse(request, 'authorization: must be "Bearer <access key or ADMIN_TOKEN>"');
    // Hashing first gives equal lengths, so the comparison time says nothing about the token.
    if (adminDigest !== null && timingSafeEqual(digest(token), adminDigest)) return ADMIN_TOKEN_PRINCIPAL;
    if (looksLikeApiKey(token)) {
      const verdict = await opts.keys.verify(token);
      return verdict.ok ? verdict.principal : refuse(request, 'authorization: unknown, revoked or expired access key');
    }
    return refuse(request, adminDigest === null
      ? 'authorization: not an access key, and ADMIN_TOKEN is not set on this server'
      : 'authorization: wrong ADMIN_TOKEN (access keys start with cvk_)');
  };

  app.addHook('onRequest', async (request, reply) => {
    const level = request.routeOptions.config.access ?? 'public';
    // Only requests that present a credential are turned away: a guesser always does, and an
    // anonymous read or a probe from the same address (a shared proxy) is no guess. The signed
    // webhook (rateClass none) counts and turns away wrong signatures itself, in a count of
    // its own (routes/webhook.ts).
    const guarded = request.routeOptions.config.rateClass !== 'none' && (level === 'own' || request.headers.authorization !== undefined);
    const blocked = guarded ? opts.refusals.blockedFor(refusalKey(request)) : 0;
    if (blocked > 0) {
      void reply.header('retry-after', Math.ceil(blocked / 1000));
      throw new ApiError('RATE_LIMITED', `too many refused credentials from this address; retry in ${Math.ceil(blocked / 1000)} s`);
    }
    // The webhook and the connector check their own credential (a signature, CONNECTOR_TOKEN).
    request.principal = level === 'own' ? ANONYMOUS : await resolve(request);
    if (level === 'public' || level === 'own') return;
    const decision = decide(request.principal, level, opts.readAuth);
    if (decision === 'unauthenticated') throw new ApiError('UNAUTHORIZED', `authorization: this route needs ${NEEDS[level]}`);
    if (decision === 'forbidden') throw new ApiError('FORBIDDEN', `authorization: this route needs ${NEEDS[level]}`);
  });

  // Routes with a credential of their own (the connector token) count their refusals here.
  app.addHook('onResponse', async (request, reply) => {
    const config = request.routeOptions.config;
    if (reply.statusCode === 401 && config.access === 'own' && config.rateClass !== 'none') opts.refusals.note(refusalKey(request));
  });
}

/** Refusals are counted per address and per credential kind: a wrong connector token does not lock out API keys. */
function refusalKey(request: FastifyRequest): string {
  const own = request.routeOptions.config.access === 'own';
  return `${own ? request.routeOptions.url ?? '' : 'credential'}|${request.ip}`;
}

/** Sees nothing: where no caller was resolved (a bug), scoping fails closed. */
const NOTHING: Scope = new Set<string>();

/** The accounts this request may see; null: all. */
export const requestScope = (request: FastifyRequest): Scope => (request.principal ? scopeOf(request.principal) : NOTHING);
