// Wires the roles this process runs (api, processor, projector) onto the chosen adapters.
import { createIntelligence } from './intelligence/index.js';
import type { FastifyInstance } from 'fastify';
import { createLog, createStore } from './adapters/index.js';
import type { Log } from './adapters/log/log.js';
import type { DocumentStore } from './adapters/store/store.js';
import type { Config } from './config.js';
import { buildServer } from './http/server.js';
import { PipelineControl } from './pipeline-control.js';
import type { Logger } from './support/logger.js';
import { checkPartitions, topology as makeTopology } from './topology.js';
import { Metrics } from './observability/metrics.js';
import { instrumentLog, instrumentStore } from './observability/instrumented-adapters.js';
import { registerAppMetrics } from './observability/app-metrics.js';
import { readiness, type Readiness } from './observability/readiness.js';
import { buildOpsServer } from './http/ops-server.js';
import { pingWithin } from './support/deadline.js';

export interface RunningApp {
  readonly log: Log;
  readonly store: DocumentStore;
  readonly server: FastifyInstance | null;
  /** Base URL of the API, when this process runs it. */
  readonly url: string | null;
  /** Base URL of the ops port (metrics, probes), when this process runs without the API. */
  readonly opsUrl: string | null;
  readonly metrics: Metrics;
  stop(): Promise<void>;
}

export async function startApp(config: Config, logger: Logger): Promise<RunningApp> {
  const metrics = new Metrics();
  const log = instrumentLog(createLog(config, logger), metrics);
  const store = instrumentStore(await createStore(config), metrics);
  const topology = makeTopology(config.topicPrefix, config.inboundTopic ?? undefined);
  try {
    await log.createTopics([
      { name: topology.inbound, partitions: config.inboundPartitions },
      { name: topology.sessionEvents, partitions: config.inboundPartitions },
    ]);
    await checkPartitions(log, topology, config);
  } catch (err) {
    // Nothing runs yet; a refusal must not leave connections or files open behind it.
    await Promise.allSettled([log.close(), store.close()]);
    throw err;
  }
  const intelligence = createIntelligence(config, store, logger);
  // Test-only failpoint, read here and not in config (it is no setting): the processor's step
  // throws on a message whose text contains this marker, so tests can set a record aside.
  const throwOnText = process.env.CONVOPS_FAILPOINT_THROW_ON_TEXT || undefined;
  const pipeline = new PipelineControl(config, log, store, topology, logger, intelligence.intelligence, { throwOnText });
  await pipeline.start();
  registerAppMetrics(metrics, { config, log, store, topology, pipeline, provider: intelligence.provider });

  let stopping = false;
  const ops = {
    metrics,
    stopping: () => stopping,
    readiness: async (): Promise<Readiness> => readiness({
      roles: config.roles,
      stopping,
      logUp: await pingWithin(log.ping(), 2000),
      stages: pipeline.stages(),
    }),
  };
  let server: FastifyInstance | null = null;
  let url: string | null = null;
  let opsServer: FastifyInstance | null = null;
  let opsUrl: string | null = null;
  if (config.roles.has('api')) {
    server = await buildServer({ config, logger, log, store, topology, pipeline, intelligence, ops });
    url = await listen(server, config.port, config.host);
  } else {
    opsServer = await buildOpsServer({ logger, ...ops });
    try {
      opsUrl = await listen(opsServer, config.opsPort, config.host);
    } catch (err) {
      // Say, a second worker on the same host with the same OPS_PORT: nothing stays running.
      await Promise.allSettled([opsServer.close(), pipeline.stop().then(() => Promise.all([log.close(), store.close()]))]);
      throw err;
    }
  }

  let stopped: Promise<void> | null = null;
  return {
    log, store, server, url, opsUrl, metrics,
    stop() {
      // Intake first (the server stops accepting and waits for its in-flight requests, whose
      // appends finish or fail), then the consumers, then the connections; the ops port last,
      // so probes say "shutting down" until the end.
      stopped ??= (async () => {
        stopping = true;
        await server?.close();
        await pipeline.stop();
        await log.close();
        await store.close();
        await opsServer?.close();
      })();
      return stopped;
    },
  };
}

async function listen(app: FastifyInstance, port: number, host: string): Promise<string> {
  await app.listen({ port, host });
  const addr = app.server.address();
  return `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : port}`;
}
