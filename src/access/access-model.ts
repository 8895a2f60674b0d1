// The access model, as pure functions: who a caller is (a principal), what a route needs
// (an access level), and which accounts a caller may see (a scope). No I/O here.

/** Roles of access keys, weakest first. */
export const ROLES = ['viewer', 'manager', 'admin'] as const;
export type KeyRole = (typeof ROLES)[number];

/**
 * What a route needs:
 * - `public`: anyone (discovery, health, docs, the floor's public view);
 * - `read`: a viewer key, or nobody when `READ_AUTH=open`;
 * - `manager`: alert acks and session closes;
 * - `admin`: everything else that writes or administers;
 * - `own`: the route checks its own credential (the signed webhook, the connector token).
 */
export type AccessLevel = 'public' | 'read' | 'manager' | 'admin' | 'own';

export type Principal =
  | { readonly kind: 'anonymous' }
  | { readonly kind: 'admin-token' }
  | { readonly kind: 'key'; readonly id: string; readonly name: string; readonly role: KeyRole; readonly accounts: readonly string[] | null };

export const ANONYMOUS: Principal = { kind: 'anonymous' };
export const ADMIN_TOKEN_PRINCIPAL: Principal = { kind: 'admin-token' };

export type ReadAuth = 'open' | 'required';

export type Decision = 'allow' | 'unauthenticated' | 'forbidden';

const rank = (role: KeyRole): number => ROLES.indexOf(role);

export function roleOf(p: Principal): KeyRole | null {
  if (p.kind === 'admin-token') return 'admin';
  if (p.kind === 'key') return p.role;
  return null;
}

export function decide(p: Principal, level: AccessLevel, readAuth: ReadAuth): Decision {
  if (level === 'public' || level === 'own') return 'allow';
  const role = roleOf(p);
  if (role === null) return level === 'read' && readAuth === 'open' ? 'allow' : 'unauthenticated';
  const needed: KeyRole = level === 'read' ? 'viewer' : level;
  return rank(role) >= rank(needed) ? 'allow' : 'forbidden';
}

/** The accounts a caller may see; null means every account. */
export type Scope = ReadonlySet<string> | null;

export function scopeOf(p: Principal): Scope {
  return p.kind === 'key' && p.accounts !== null ? new Set(p.accounts) : null;
}

export const canSee = (scope: Scope, accountId: string | null | undefined): boolean =>
  scope === null || (typeof accountId === 'string' && scope.has(accountId));

/** How a principal is named where an action is recorded (who acked an alert, who made a key). */
export function actorOf(p: Principal): string {
  if (p.kind === 'admin-token') return 'ADMIN_TOKEN';
  if (p.kind === 'key') return `key:${p.id}`;
  return 'anonymous';
}
