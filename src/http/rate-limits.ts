// Rate limits on every route but the signed webhook (whose refused requests are limited by
// the RefusalLimiter instead: the platform's own bursts must never be turned away). Counted
// per access key when a request carries one, else per client address (TRUST_PROXY decides
// whether a forwarded address counts). Routes declare a class: most share one `general`
// budget; the aggregate reports and the floor each get their own, smaller one.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { ApiError } from './errors.js';

export type RateClass = 'general' | 'report' | 'floor' | 'none';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Which budget the route spends; `general` when not said. */
    rateClass?: RateClass;
  }
}

export interface RateLimitSettings {
  readonly windowSec: number;
  readonly general: number;
  readonly report: number;
  readonly floor: { readonly max: number; readonly windowSec: number };
}

export function clientKey(request: FastifyRequest): string {
  const p = request.principal;
  if (p?.kind === 'key') return `key:${p.id}`;
  if (p?.kind === 'admin-token') return 'admin-token';
  return `ip:${request.ip}`;
}

export async function installRateLimits(app: FastifyInstance, settings: RateLimitSettings): Promise<void> {
  const windowMs = (sec: number) => sec * 1000;
  // Runs before the plugin's own onRoute hook, which reads config.rateLimit.
  app.addHook('onRoute', (route) => {
    const cls = route.config?.rateClass ?? 'general';
    if (cls === 'none') route.config = { ...route.config, rateLimit: false } as typeof route.config;
    else if (cls === 'report') route.config = { ...route.config, rateLimit: { max: settings.report, timeWindow: windowMs(settings.windowSec) } } as typeof route.config;
    else if (cls === 'floor') route.config = { ...route.config, rateLimit: { max: settings.floor.max, timeWindow: windowMs(settings.floor.windowSec) } } as typeof route.config;
  });
  await app.register(rateLimit, {
    global: true,
    max: settings.general,
    timeWindow: windowMs(settings.windowSec),
    keyGenerator: clientKey,
    errorResponseBuilder: (request, ctx) => {
      const cls = request.routeOptions.config.rateClass ?? 'general';
      // The plugin throws what this returns; the error handler gives it the usual shape.
      return new ApiError('RATE_LIMITED', `rate limit (${cls}): at most ${ctx.max} requests per ${ctx.after} for this ${clientKey(request).startsWith('ip:') ? 'client address' : 'key'}; retry in ${Math.ceil(ctx.ttl / 1000)} s`);
    },
  });
}
