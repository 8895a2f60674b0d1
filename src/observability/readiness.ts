// Whether this process should get traffic or count as working, by the roles it runs. An API
// process takes webhooks as long as the log takes appends (the store only serves reads, and a
// webhook must not be refused because the database is down); a worker is ready when the log
// answers and its consumers run (were started and not stopped: a consumer that hangs inside
// the client library is not seen here, its lag in /metrics shows it). A process that is
// stopping is never ready.
import { Type } from '@fastify/type-provider-typebox';
import type { Role } from '../config.js';
import type { StageState } from '../pipeline/stage.js';

export interface ReadinessInputs {
  readonly roles: ReadonlySet<Role>;
  readonly stopping: boolean;
  readonly logUp: boolean;
  readonly stages: readonly StageState[];
}

export interface Readiness {
  readonly ready: boolean;
  readonly roles: readonly Role[];
  /** Why not, in words an operator can act on; empty when ready. */
  readonly reasons: readonly string[];
  readonly checks: { readonly log: boolean; readonly consumers: Record<string, boolean> };
}

const RoleSchema = Type.Union([Type.Literal('api'), Type.Literal('processor'), Type.Literal('projector'), Type.Literal('intelligence')]);

/** A Readiness, as the probe answers it (GET /api/health/ready adds its `status`). */
export const ReadinessSchema = Type.Object({
  ready: Type.Boolean(),
  roles: Type.Array(RoleSchema, { description: 'the roles this process runs (ROLES)' }),
  reasons: Type.Array(Type.String(), { description: 'why not ready, in words an operator can act on; empty when ready' }),
  checks: Type.Object({
    log: Type.Boolean({ description: 'the log answers' }),
    consumers: Type.Record(Type.String(), Type.Boolean(), { description: 'per consuming role this process runs (processor, projector, intelligence): whether its consumer runs' }),
  }),
});

const CONSUMING: readonly Role[] = ['processor', 'projector', 'intelligence'];

export function readiness(input: ReadinessInputs): Readiness {
  const reasons: string[] = [];
  if (input.stopping) reasons.push('shutting down');
  if (!input.logUp) reasons.push(input.roles.has('api') ? 'log: unreachable, webhooks cannot be appended' : 'log: unreachable, the consumers cannot read');
  const consumers: Record<string, boolean> = {};
  for (const role of CONSUMING) {
    if (!input.roles.has(role)) continue;
    const running = input.stages.some((s) => s.role === role && s.running);
    consumers[role] = running;
    if (!running) reasons.push(`${role}: its consumer is not running`);
  }
  return { ready: reasons.length === 0, roles: [...input.roles], reasons, checks: { log: input.logUp, consumers } };
}

/**
 * Before the roles run: start-up waits for the store or the broker (or starts the consumers).
 * Never ready; the reasons name what is awaited, the attempt and the next try.
 */
export function startingReadiness(roles: ReadonlySet<Role>, stopping: boolean, waiting: readonly string[], logUp: boolean): Readiness {
  const reasons = [...(stopping ? ['shutting down'] : []), ...(waiting.length > 0 ? waiting : ['starting'])];
  const consumers: Record<string, boolean> = {};
  for (const role of CONSUMING) if (roles.has(role)) consumers[role] = false;
  return { ready: false, roles: [...roles], reasons, checks: { log: logUp, consumers } };
}
