// When demo data may be loaded: the route refuses with this reason, and the start-up guide only
// offers the demo where the route would take it.
import { DEFAULT_DEMO_SECRET } from '../config.js';

const DEVELOPMENT = new Set(['development', 'test']);

/** Null when demo data may be loaded; otherwise the setting at fault and why (for a 403 naming it). */
export function demoRefusal(environment: string, demoSecret: string, what: string): { readonly field: string; readonly reason: string } | null {
  if (environment === 'production') return { field: 'NODE_ENV', reason: `${what} is refused in production` };
  if (demoSecret === DEFAULT_DEMO_SECRET && !DEVELOPMENT.has(environment)) {
    return { field: 'DEMO_SECRET', reason: `${what} with the default demo secret (published in the source) is refused outside development (NODE_ENV=${environment}); set DEMO_SECRET` };
  }
  return null;
}
