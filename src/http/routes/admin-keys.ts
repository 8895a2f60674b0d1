// Access keys: admins create, list and revoke them. The secret is in the create answer only;
// the store keeps its hash.
import { Type, type FastifyPluginAsyncTypebox, type Static } from '@fastify/type-provider-typebox';
import { actorOf, ROLES } from '../../access/access-model.js';
import type { ApiKeyDoc, ApiKeys } from '../../access/api-keys.js';
import { ApiError, invalidInput } from '../errors.js';
import { iso, timeOf as Time } from '../views.js';

export interface AdminKeyRouteOptions {
  readonly keys: ApiKeys;
  readonly now?: () => number;
}

export const MAX_KEY_ACCOUNTS = 200;

export const KeyViewSchema = Type.Object({
  id: Type.String({ description: 'the key id (the part after cvk_)' }),
  name: Type.String(),
  role: Type.Union([Type.Literal('viewer'), Type.Literal('manager'), Type.Literal('admin')]),
  accounts: Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'the accounts it may see; null: every account' }),
  status: Type.Union([Type.Literal('active'), Type.Literal('expired'), Type.Literal('revoked')]),
  createdAt: Time(),
  createdBy: Type.String({ description: 'who created it' }),
  expiresAt: Time('null: never expires'),
  lastUsedAt: Time('null: never used'),
  revokedAt: Time('null: not revoked'),
});

const CreatedKeySchema = Type.Object({
  ...KeyViewSchema.properties,
  secret: Type.String({ description: 'the key to send as the bearer token (cvk_…); shown in this answer only' }),
  note: Type.String(),
});

const KeyListSchema = Type.Object({ items: Type.Array(KeyViewSchema), count: Type.Integer({ minimum: 0 }) });

function keyView(d: ApiKeyDoc, now: number): Static<typeof KeyViewSchema> {
  const status = d.revokedAt !== null ? 'revoked' : d.expiresAt !== null && d.expiresAt <= now ? 'expired' : 'active';
  return {
    id: d._id, name: d.name, role: d.role, accounts: d.accounts === null ? null : [...d.accounts], status,
    createdAt: iso(d.createdAt), createdBy: d.createdBy, expiresAt: iso(d.expiresAt), lastUsedAt: iso(d.lastUsedAt), revokedAt: iso(d.revokedAt),
  };
}

const KeyId = Type.String({ pattern: '^[0-9a-f]{16}$', description: 'the key id (the part after cvk_)' });

export const adminKeyRoutes: FastifyPluginAsyncTypebox<AdminKeyRouteOptions> = async (app, opts) => {
  // Read at each call, not captured: a clock set for a test (or by a time-travel tool) reaches every route.
  const clock = opts.now ?? ((): number => Date.now());

  app.post('/api/admin/keys', {
    config: { access: 'admin' },
    schema: {
      summary: 'Create an access key: a role (viewer, manager, admin) and optionally the accounts it may see. The secret is in this answer only',
      security: [{ adminToken: [] }],
      body: Type.Object({
        name: Type.String({ minLength: 1, maxLength: 100, description: 'who or what uses the key' }),
        role: Type.Union(ROLES.map((r) => Type.Literal(r)), { description: 'viewer: reads; manager: reads, alert acks and session closes; admin: everything' }),
        accounts: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: MAX_KEY_ACCOUNTS, uniqueItems: true, description: 'only these accounts (viewer and manager keys); omitted: every account' })),
        expiresAt: Type.Optional(Type.String({ format: 'date-time', description: 'the key stops working at this time' })),
      }, { additionalProperties: false }),
      response: { 201: CreatedKeySchema },
    },
  }, async (request, reply) => {
    const { name, role, accounts, expiresAt } = request.body;
    // Admin routes act on every account (replay, purge, backfill), so a scope would be a false promise.
    if (role === 'admin' && accounts) throw invalidInput('body.accounts', 'an admin key cannot be scoped (admin routes act on every account)');
    const expires = expiresAt === undefined ? null : Date.parse(expiresAt);
    if (expires !== null && expires <= clock()) throw invalidInput('body.expiresAt', 'must be in the future');
    const { doc, secret } = await opts.keys.create({ name, role, accounts: accounts ?? null, expiresAt: expires, createdBy: actorOf(request.principal) });
    return reply.status(201).send({ ...keyView(doc, clock()), secret, note: 'store the secret now: it is not shown again (only its hash is kept)' });
  });

  app.get('/api/admin/keys', {
    config: { access: 'admin' },
    schema: {
      summary: 'Access keys (never their secrets), newest first',
      security: [{ adminToken: [] }],
      querystring: Type.Object({ includeRevoked: Type.Boolean({ default: false, description: 'list revoked keys too' }) }, { additionalProperties: false }),
      response: { 200: KeyListSchema },
    },
  }, async (request) => {
    const now = clock();
    const items = (await opts.keys.list(request.query.includeRevoked)).map((d) => keyView(d, now));
    return { items, count: items.length };
  });

  app.delete('/api/admin/keys/:id', {
    config: { access: 'admin' },
    schema: {
      summary: 'Revoke an access key: it stops working at once (idempotent)',
      security: [{ adminToken: [] }],
      params: Type.Object({ id: KeyId }),
      response: { 200: KeyViewSchema },
    },
  }, async (request) => {
    const doc = await opts.keys.revoke(request.params.id);
    if (!doc) throw new ApiError('NOT_FOUND', `id: no access key ${request.params.id}`);
    return keyView(doc, clock());
  });
};
