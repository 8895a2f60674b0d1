// Builds the Fastify server: error handling, then one plugin per route group.
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Log } from '../adapters/log/log.js';
import type { DocumentStore } from '../adapters/store/store.js';
import type { Config } from '../config.js';
import type { Logger } from '../support/logger.js';
import type { Topology } from '../topology.js';
import { installErrorHandling } from './errors.js';
import { healthRoutes } from './routes/health.js';
import { readRoutes } from './routes/reads.js';
import { webhookRoutes } from './routes/webhook.js';

export interface ServerDeps {
  readonly config: Config;
  readonly logger: Logger;
  readonly log: Log;
  readonly store: DocumentStore;
  readonly topology: Topology;
  readonly counters: () => Record<string, unknown>;
}

export async function buildServer(deps: ServerDeps): Promise<FastifyInstance> {
  const { config } = deps;
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    bodyLimit: config.bodyLimitBytes,
    requestTimeout: 30_000,
    connectionTimeout: 30_000,
    // Bodies like {"__proto__": ...} are refused rather than silently merged.
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    ajv: { customOptions: { coerceTypes: true, removeAdditional: false, useDefaults: true, allErrors: false } },
  }).withTypeProvider<TypeBoxTypeProvider>();
  installErrorHandling(app);
  await app.register(swagger, {
    openapi: { info: { title: 'convops', version: '0.1.0', description: 'Conversation-operations backend for creator agencies' } },
  });
  await app.register(webhookRoutes, { log: deps.log, inboundTopic: deps.topology.inbound, webhookSecret: config.webhookSecret, bodyLimitBytes: config.bodyLimitBytes });
  await app.register(readRoutes, { store: deps.store });
  await app.register(healthRoutes, {
    log: deps.log,
    store: deps.store,
    topology: deps.topology,
    roles: config.roles,
    webhookSecretConfigured: config.webhookSecret !== null,
    adminTokenConfigured: config.adminToken !== null,
    counters: deps.counters,
  });
  return app;
}
