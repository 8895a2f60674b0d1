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

export interface RunningApp {
  readonly log: Log;
  readonly store: DocumentStore;
  readonly server: FastifyInstance | null;
  /** Base URL of the API, when this process runs it. */
  readonly url: string | null;
  stop(): Promise<void>;
}

export async function startApp(config: Config, logger: Logger): Promise<RunningApp> {
  const log = createLog(config, logger);
  const store = await createStore(config);
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

  let server: FastifyInstance | null = null;
  let url: string | null = null;
  if (config.roles.has('api')) {
    server = await buildServer({ config, logger, log, store, topology, pipeline, intelligence });
    await server.listen({ port: config.port, host: config.host });
    const addr = server.server.address();
    const port = typeof addr === 'object' && addr ? addr.port : config.port;
    url = `http://127.0.0.1:${port}`;
  }

  let stopped = false;
  return {
    log, store, server, url,
    async stop() {
      if (stopped) return;
      stopped = true;
      await server?.close();
      await pipeline.stop();
      await log.close();
      await store.close();
    },
  };
}
