// Discovery: `GET /` and `GET /api` describe the service and list every registered route,
// collected from the routes themselves as they register; the docs UI and the go-live guide.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance, RouteOptions } from 'fastify';
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
   messages.*, tips.received, transactions.new, subscriptions.* and accounts.* events, with a
   signing secret (leave out users.*: the platform bills each delivered event, and no report
   uses presence yet). Set the same secret as PLATFORMAPI_WEBHOOK_SECRET and restart:
   unsigned or wrongly signed deliveries then get 401.
4. Pull history: POST /api/admin/backfill and POST /api/admin/backfill-transactions. Records
   that also arrive by webhook are counted once.
5. Watch GET /api/health (lag of the processor and projector) and GET /api/sessions?sort=priority.
`;

/** What `GET /` and `GET /api` answer. */
const MetadataSchema = Type.Object({
  service: Type.Literal('convops'),
  platformApi: Type.Object({
    configured: Type.Boolean({ description: 'PLATFORMAPI_KEY is set' }),
    ready: Type.Boolean({ description: 'the platform API answers with that key' }),
  }),
  pipelineReady: Type.Boolean({ description: 'the log and the store answer' }),
  docs: Type.String({ description: 'the OpenAPI UI' }),
  openapi: Type.String({ description: 'the OpenAPI document' }),
  goLive: Type.String({ description: 'how to connect a real account' }),
  routes: Type.Record(Type.String(), Type.String(), { description: '"METHOD /path" → what it does' }),
});

export const discoveryRoutes: FastifyPluginAsyncTypebox<DiscoveryOptions> = async (app, opts) => {
  const metadata = async () => {
    const [pipelineReady, platformReady] = await Promise.all([opts.pipelineReady(), opts.platform.ready()]);
    return {
      service: 'convops' as const,
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
