// Builds the Fastify server over the services the composition root built (composition.ts):
// error handling, then one plugin per route group. It builds no service and listens on no
// port (app.ts listens; tests call it through inject()).
import { Generations, generationTopology } from '../definitions/generations.js';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from '../config.js';
import { parseBodiesStrictly, refuseContentEncodings } from './body-parsing.js';
import { clientErrorHandler, frameworkErrorHandler, installErrorHandling, invalidInput, MAX_PATH_PARAM_LENGTH } from './errors.js';
import { malformedTextPath } from '../domain/bounds.js';
import { reportUnshowableTimesTo } from './views.js';
import { serializerCompiler } from './serializer.js';
import { healthRoutes, readAccessNote } from './routes/health.js';
import { readRoutes } from './routes/reads.js';
import { exportRoutes } from './routes/exports.js';
import { moneyRoutes } from './routes/money.js';
import { reassignmentRoutes } from './routes/reassignments.js';
import { chatterRoutes } from './routes/chatters.js';
import { shiftRoutes } from './routes/shifts.js';
import { webhookRoutes, WEBHOOK_PATH } from './routes/webhook.js';
import { explainRoutes } from './routes/explain.js';
import { adminDefinitionsRoutes } from './routes/admin-definitions.js';
import { adminSessionRoutes } from './routes/admin-sessions.js';
import { connectorRoutes } from './routes/connector.js';
import { demoRoutes } from './routes/demo.js';
import { adminReplayRoutes } from './routes/admin-replay.js';
import { alertRoutes } from './routes/alerts.js';
import { LiveCache } from './live-cache.js';
import { documentBodies, documentRoutes, securitySchemes, shareErrors, WRITE_METHODS } from './openapi-document.js';
import { bearerGuard } from './bearer-guard.js';
import { installAccess } from './access.js';
import { installRateLimits } from './rate-limits.js';
import { RefusalLimiter } from './refusal-limiter.js';
import { adminKeyRoutes } from './routes/admin-keys.js';
import { adminSetAsideRoutes } from './routes/admin-set-aside.js';
import { adminVerifyRoutes } from './routes/admin-verify.js';
import { adminBackupRoutes } from './routes/admin-backup.js';
import { collectRoutes, discoveryRoutes, DOCS_PATH } from './routes/discovery.js';
import { adminAccountRoutes } from './routes/admin-accounts.js';
import { adminAlertHookRoutes } from './routes/admin-alert-hooks.js';
import { alertHookWebhooks, withWebhooks } from './alert-hook-document.js';
import { installRequestIds, requestIdOptions } from './request-ids.js';
import { requestActivity } from '../support/request-activity.js';
import { installHttpMetrics } from './http-metrics.js';
import { resolveLogFormat } from '../support/logger.js';
import { LIVE_PATH, METRICS_PATH, opsRoutes, READY_PATH } from './routes/ops.js';
import { floorStreamRoutes } from './routes/floor-stream.js';
import { floorAnswers } from './floor-answer.js';
import { pageRoutes } from './routes/pages.js';
import { pingWithin } from '../support/deadline.js';
import type { ApiServices } from '../composition.js';

/**
 * Write routes and their bodies: one that declares no body takes none, so a body sent anyway
 * (say, `{"full": true}` to the wrong route) gets a 400 naming the field, not a silent
 * success; one whose body requires no field may be sent without any (Fastify would validate
 * the missing body as null). The webhook reads its raw bytes itself.
 */
function normaliseWriteBodies(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (route.url === WEBHOOK_PATH || !methods.some((m) => WRITE_METHODS.has(m))) return;
    const body = route.schema?.body as { type?: unknown; required?: unknown[] } | undefined;
    if (!body) {
      route.schema = { ...route.schema, body: { type: ['object', 'null'], additionalProperties: false, properties: {} } };
    } else if (body.type === 'object' && (body.required ?? []).length === 0) {
      route.schema = { ...route.schema, body: { ...body, type: ['object', 'null'] } };
    }
  });
}

/**
 * A route that declares no query parameters takes none: `?acountId=acct_1` (a typo) gets a 400
 * naming it rather than an answer for every account. Routes that take some declare them with
 * additionalProperties false. Not the webhook: whatever the platform or a proxy appends to its
 * URL must never cost a delivery. Not the probes and metrics, which scrapers and balancers
 * decorate (Prometheus `params:`, cache-busting) and the ops server answers the same way while
 * the API starts. Not the pages or the docs UI (hidden), which browsers decorate.
 */
const UNREFUSED_QUERY: ReadonlySet<string> = new Set([WEBHOOK_PATH, METRICS_PATH, LIVE_PATH, READY_PATH]);

function refuseUndeclaredQuery(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (UNREFUSED_QUERY.has(route.url) || (route.schema as { hide?: boolean } | undefined)?.hide === true || route.schema?.querystring) return;
    route.schema = { ...route.schema, querystring: { type: 'object', additionalProperties: false, properties: {} } };
  });
}

/**
 * Every query number is finite, and every parsed JSON body is well-formed Unicode, as the door requires of webhooks: a lone
 * surrogate in a key name or a display name is stored as is by one store and as U+FFFD by
 * another, and cannot go in a URL. (The webhook's body stays bytes here; its route checks it.)
 */
function refuseMalformedText(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    // Ajv coerces "1e309" to Infinity and then lets it past minimum and maximum (strictNumbers
    // does not see coerced values): a number no route can use, refused by name.
    const query = request.query as Record<string, unknown> | null;
    for (const [name, v] of Object.entries(query ?? {})) {
      for (const one of Array.isArray(v) ? v : [v]) {
        if (typeof one === 'string' && one.length > 0 && Math.abs(Number(one)) === Infinity) throw invalidInput(`querystring.${name}`, 'must be a finite number');
      }
    }
    if (typeof request.body !== 'object' || request.body === null || Buffer.isBuffer(request.body)) return;
    const where = malformedTextPath(request.body);
    if (where) throw invalidInput(`body.${where}`, 'must be well-formed Unicode (it holds a lone surrogate)');
  });
}

export async function buildServer(deps: ApiServices): Promise<FastifyInstance> {
  const { config } = deps;
  // On a terminal a request is one short line; a collector gets Fastify's two structured entries.
  const terse = resolveLogFormat(config.logFormat, process.stdout.isTTY === true) === 'pretty';
  const app = Fastify({
    // A child of its own: listen() quiets this server's logger alone (see app.ts).
    loggerInstance: deps.logger.child({}) as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: terse }),
    bodyLimit: config.bodyLimitBytes,
    requestTimeout: config.requestTimeoutMs,
    connectionTimeout: config.requestTimeoutMs,
    // Node checks request and header deadlines on this interval (30 s by default), which
    // would let a slow client hold a connection far past REQUEST_TIMEOUT_MS.
    http: { connectionsCheckingInterval: Math.min(1000, config.requestTimeoutMs), headersTimeout: config.requestTimeoutMs },
    // Bodies like {"__proto__": ...} are refused rather than silently merged (body-parsing.ts
    // parses JSON itself; these stay for any parser Fastify would add).
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    // Whether X-Forwarded-For counts as the client's address (rate limits, refusal counts).
    trustProxy: trustProxyOption(config.trustProxy),
    // A bad %-escape or an overlong path segment is refused by the router itself: in the catalogue's shape.
    routerOptions: { maxParamLength: MAX_PATH_PARAM_LENGTH },
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    ...requestIdOptions,
  }).withTypeProvider<TypeBoxTypeProvider>();
  // Query strings and headers are text, so their numbers are coerced; JSON bodies are typed
  // already, and a body that sends 42 where a string belongs is wrong, not "42".
  // strictNumbers: a JSON 1e309 parses to Infinity, which is no number a route can use.
  const coercing = new Ajv({ coerceTypes: 'array', useDefaults: true, removeAdditional: false, allErrors: false, strict: false, strictNumbers: true });
  const exact = new Ajv({ coerceTypes: false, useDefaults: true, removeAdditional: false, allErrors: false, strict: false, strictNumbers: true });
  addFormats.default(coercing);
  addFormats.default(exact);
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? exact : coercing).compile(schema));
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandling(app);
  installRequestIds(app);
  // A replay running here takes smaller slices while requests come (support/request-activity.ts).
  app.addHook('onRequest', (_request, _reply, done) => { requestActivity.touch(); done(); });
  installHttpMetrics(app, deps.ops.metrics);
  if (terse) {
    app.addHook('onResponse', async (request, reply) => {
      const line = `${request.method} ${request.url} ${reply.statusCode} ${Math.round(reply.elapsedTime)} ms`;
      if (reply.statusCode >= 500) request.log.error(line);
      else request.log.info(line);
    });
  }
  refuseContentEncodings(app);
  parseBodiesStrictly(app);
  normaliseWriteBodies(app);
  refuseUndeclaredQuery(app);
  refuseMalformedText(app);
  const { keys, inbound, backfill } = deps;
  const refusals = new RefusalLimiter(config.refusalLimit, config.rateLimit.windowSec * 1000);
  installAccess(app, { adminToken: config.adminToken, keys, readAuth: config.readAuth, refusals });
  await installRateLimits(app, {
    windowSec: config.rateLimit.windowSec, general: config.rateLimit.max, report: config.rateLimit.reportMax, floor: config.floorRateLimit,
  });
  const routes = collectRoutes(app);
  await app.register(swagger, {
    openapi: {
      // 3.1: its schemas are JSON Schema, so a nullable field is `type: [..., "null"]` as TypeBox writes it.
      openapi: '3.1.0',
      info: { title: 'convops', version: '0.1.0', description: 'Conversation-operations backend for creator agencies', license: { name: 'Apache-2.0', identifier: 'Apache-2.0' } },
      servers: [{ url: '/', description: 'this service, wherever it answers' }],
      components: { securitySchemes: securitySchemes(config.readAuth) },
    },
    transform: documentRoutes({ readAuth: config.readAuth, webhookSigned: config.webhookSecret !== null }),
    transformObject: (documents) => ('openapiObject' in documents ? withWebhooks(shareErrors(documentBodies(documents.openapiObject)), alertHookWebhooks()) : documents.swaggerObject),
  });
  await app.register(swaggerUi, { routePrefix: DOCS_PATH, uiConfig: { docExpansion: 'list' } });
  const platform = deps.platform.readiness;
  const pipelineReady = async () => {
    const [logOk, storeOk] = await Promise.all([pingWithin(deps.log.ping(), 3000), pingWithin(deps.store.ping(), 3000)]);
    return logOk && storeOk;
  };
  await app.register(discoveryRoutes, { routes, platform, pipelineReady });
  const webhookSecrets = config.webhookSecret === null ? null : { current: config.webhookSecret, previous: config.webhookPreviousSecret };
  await app.register(webhookRoutes, { inbound, webhookSecrets, bodyLimitBytes: config.bodyLimitBytes, refusals });
  const liveCache = new LiveCache(config.liveCacheMs);
  await app.register(readRoutes, { read: deps.read, slaThresholdSec: config.slaThresholdSec, reportTimezone: config.reportTimezone, setup: deps.intelligence, liveCache, clockIdleSec: config.clockIdleSec });
  await app.register(alertRoutes, { floor: deps.read.floor, setup: deps.intelligence, liveCache, reportTimezone: config.reportTimezone, readAuth: config.readAuth });
  await app.register(moneyRoutes, { models: deps.read.models, definitions: deps.read.definitions, reportTimezone: config.reportTimezone, clockIdleSec: config.clockIdleSec });
  await app.register(exportRoutes, { read: deps.read, slaThresholdSec: config.slaThresholdSec, reportTimezone: config.reportTimezone, setup: deps.intelligence, clockIdleSec: config.clockIdleSec, noShowGraceSec: config.shiftNoShowGraceSec });
  await app.register(floorStreamRoutes, {
    floor: floorAnswers(deps.read.floor), logger: deps.logger.child({ role: 'floor-stream' }), readAuth: config.readAuth,
  });
  await app.register(pageRoutes);
  await app.register(explainRoutes, { models: deps.read.models, definitions: deps.read.definitions, explain: deps.explain });
  await app.register(adminSessionRoutes, { models: deps.read.models, inbound });
  await app.register(reassignmentRoutes, { models: deps.read.models, inbound });
  await app.register(chatterRoutes, { read: deps.read, inbound, clockIdleSec: config.clockIdleSec, reportTimezone: config.reportTimezone });
  await app.register(shiftRoutes, { read: deps.read, slaThresholdSec: config.slaThresholdSec, clockIdleSec: config.clockIdleSec, noShowGraceSec: config.shiftNoShowGraceSec, reportTimezone: config.reportTimezone });
  await app.register(adminReplayRoutes, { pipeline: deps.pipeline });
  await app.register(adminKeyRoutes, { keys });
  await app.register(adminSetAsideRoutes, { setAside: deps.setAside, log: deps.log, topology: deps.topology });
  await app.register(adminDefinitionsRoutes, { definitions: deps.read.definitions, previews: deps.previews, models: deps.read.models, slaThresholdSec: config.slaThresholdSec, businessHours: deps.read.businessHours });
  await app.register(adminVerifyRoutes, { models: deps.read.models, faults: deps.faults, generations: new Generations(deps.store) });
  await app.register(adminBackupRoutes, { backup: deps.backup });
  await app.register(adminAlertHookRoutes, { hooks: deps.alertHooks, allowPrivate: config.alertHooks.allowPrivate });
  await app.register(adminAccountRoutes, { read: deps.read, client: deps.platform.client, backfill });
  await app.register(demoRoutes, { accounts: deps.read.accounts, purgeAccounts: deps.purgeAccounts, inbound, demoSecret: config.demoSecret, environment: config.environment, pipeline: deps.pipeline });
  await app.register(connectorRoutes, { inbound, connectorGuard: bearerGuard(config.connectorToken, 'CONNECTOR_TOKEN') });
  // The metrics are the whole agency's (open alerts, webhooks, lag): when reads need a key, an
  // admin's; while reads are open, anyone's, like every other read.
  await app.register(opsRoutes, { ...deps.ops, metricsAccess: config.readAuth === 'required' ? 'admin' : 'read' });
  await app.register(healthRoutes, {
    liveTopology: async () => generationTopology(deps.topology, (await deps.read.models.pointer()).generation),
    log: deps.log,
    store: deps.store,
    setAside: deps.setAside,
    topology: deps.topology,
    roles: config.roles,
    webhookSecretConfigured: config.webhookSecret !== null,
    adminTokenConfigured: config.adminToken !== null,
    readAuth: config.readAuth,
    counters: () => deps.pipeline.counters(),
    problems: () => deps.pipeline.problems(),
    platform,
    intelligence: { enabled: config.roles.has('intelligence'), model: deps.intelligence.model },
  });
  reportUnshowableTimesTo((value) => deps.logger.warn({ value }, 'a stored time cannot be shown (it lies outside what a date can hold); shown as null. Noted once per process'));
  if (config.readAuth === 'open') deps.logger.warn({ readAuth: 'open' }, readAccessNote('open').message);
  if (config.webhookPreviousSecret !== null) {
    const until = new Date(config.webhookPreviousSecret.untilMs).toISOString();
    if (config.webhookPreviousSecret.untilMs <= Date.now()) deps.logger.warn({ until }, 'PLATFORMAPI_WEBHOOK_SECRET_PREVIOUS_UNTIL has passed: the previous webhook secret is refused; remove both PREVIOUS settings');
    else deps.logger.info({ until }, 'webhook secret rotation: deliveries signed with the previous secret are accepted until then (counted as convops_webhooks_total{reason="previous_secret"})');
  }
  if (config.webhookSecret === null) deps.logger.warn('PLATFORMAPI_WEBHOOK_SECRET is not set: anyone who can reach this port can post webhooks (messages, revenue). Set it before exposing the port');
  if (config.trustProxy === true) deps.logger.warn('TRUST_PROXY=true takes the leftmost X-Forwarded-For address, which a client can choose when its proxy appends; prefer a hop count or the proxies\' addresses');
  return app;
}

function trustProxyOption(setting: Config['trustProxy']): boolean {
  // Fastify takes a boolean, a hop count or a list; typed as one of them so its overloads resolve.
  return (Array.isArray(setting) ? [...setting] : setting) as boolean;
}
