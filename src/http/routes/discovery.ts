// Discovery: `GET /` and `GET /api` describe the service and list every registered route,
// collected from the routes themselves as they register; the docs UI and the go-live guide.
import type { FastifyInstance, FastifyPluginAsync, RouteOptions } from 'fastify';
import type { PlatformReadiness } from '../../adapters/platform/readiness.js';

export const DOCS_PATH = '/docs';
export const GO_LIVE_PATH = '/go-live';

/** Starts collecting routes; call before any route is registered. */
export function collectRoutes(app: FastifyInstance): Map<string, string> {
  const routes = new Map<string, string>();
  app.addHook('onRoute', (route: RouteOptions) => {
    const schema = route.schema as { summary?: string; hide?: boolean } | undefined;
    if (schema?.hide) return;
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter((m) => m !== 'HEAD');
    for (const method of methods) routes.set(`${method} ${route.url}`, schema?.summary ?? '');
  });
  return routes;
}

export interface DiscoveryOptions {
  readonly routes: ReadonlyMap<string, string>;
  readonly platform: PlatformReadiness;
  readonly pipelineReady: () => Promise<boolean>;
}

const GO_LIVE = `# Going live with a real platform account

1. Set PLATFORMAPI_KEY (your platform API key) and ADMIN_TOKEN, then restart convops.
   GET /api shows "platformApi": {"configured": true, "ready": true} once the key works.
2. Connect the account: POST /api/admin/accounts/auth/start, then /auth/poll, and
   /auth/2fa if the platform asks for a code (all with "Authorization: Bearer <ADMIN_TOKEN>").
   Or register an account you already connected: POST /api/admin/accounts.
3. Create a webhook on the platform pointing at https://<your host>/webhooks/platform for the
   messages.*, tips.received, transactions.new, subscriptions.*, accounts.* and users.* events,
   with a signing secret. Set the same secret as PLATFORMAPI_WEBHOOK_SECRET and restart:
   unsigned or wrongly signed deliveries then get 401.
4. Pull history: POST /api/admin/backfill and POST /api/admin/backfill-transactions. Records
   that also arrive by webhook are counted once.
5. Watch GET /api/health (lag of the processor and projector) and GET /api/sessions?sort=priority.
`;

const MetadataSchema = {
  type: 'object',
  required: ['service', 'platformApi', 'pipelineReady', 'docs', 'openapi', 'goLive', 'routes'],
  properties: {
    service: { type: 'string', enum: ['convops'] },
    platformApi: { type: 'object', required: ['configured', 'ready'], properties: { configured: { type: 'boolean' }, ready: { type: 'boolean' } } },
    pipelineReady: { type: 'boolean', description: 'the log and the store answer' },
    docs: { type: 'string', description: 'the OpenAPI UI' },
    openapi: { type: 'string', description: 'the OpenAPI document' },
    goLive: { type: 'string', description: 'how to connect a real account' },
    routes: { type: 'object', additionalProperties: { type: 'string' }, description: '"METHOD /path" → what it does' },
  },
} as const;

export const discoveryRoutes: FastifyPluginAsync<DiscoveryOptions> = async (app, opts) => {
  const metadata = async () => {
    const [pipelineReady, platformReady] = await Promise.all([opts.pipelineReady(), opts.platform.ready()]);
    return {
      service: 'convops',
      platformApi: { configured: opts.platform.configured, ready: platformReady },
      pipelineReady,
      docs: DOCS_PATH,
      openapi: `${DOCS_PATH}/json`,
      goLive: GO_LIVE_PATH,
      routes: Object.fromEntries([...opts.routes].sort(([a], [b]) => a.localeCompare(b))),
    };
  };
  const schema = { summary: 'Service metadata and the catalogue of every route', response: { 200: MetadataSchema } };
  app.get('/', { config: { access: 'public' }, schema }, metadata);
  app.get('/api', { config: { access: 'public' }, schema }, metadata);
  app.get(GO_LIVE_PATH, {
    config: { access: 'public' },
    schema: {
      summary: 'How to connect a real platform account and its webhook',
      response: { 200: { description: 'the guide, in Markdown', content: { 'text/markdown': { schema: { type: 'string' } } } } },
    },
  }, async (_request, reply) =>
    reply.type('text/markdown; charset=utf-8').send(GO_LIVE));
};
