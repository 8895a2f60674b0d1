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
import { readiness, startingReadiness, type Readiness } from './observability/readiness.js';
import { buildOpsServer } from './http/ops-server.js';
import { pingWithin } from './support/deadline.js';
import { StoreUnavailableError } from './adapters/store/store.js';
import { classifyKafkaStart, mongoTarget, StartupAbortedError, StartupProgress, waitForDependency } from './support/dependency-wait.js';

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

export interface StartOptions {
  /** Aborted on SIGTERM or SIGINT: a start still waiting for its dependencies ends at once (StartupAbortedError). */
  readonly signal?: AbortSignal;
}

/**
 * Serves the probes first, on the port the process will serve (PORT with the API, OPS_PORT
 * without), then waits for the store and the log with backoff (support/dependency-wait.ts) and
 * starts the roles. Meanwhile liveness answers and readiness says what is awaited. Only what
 * waiting cannot cure (ConfigError, TopologyError, refused credentials) ends the start.
 */
export async function startApp(config: Config, logger: Logger, options: StartOptions = {}): Promise<RunningApp> {
  const metrics = new Metrics();
  const progress = new StartupProgress();
  const backoff = { initialMs: config.startupRetryInitialMs, maxMs: config.startupRetryMaxMs };
  // Called off by the caller's signal, or by a fatal failure of one wait (the other stops too).
  const calledOff = new AbortController();
  const onAbort = (): void => calledOff.abort();
  if (options.signal?.aborted) calledOff.abort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  let stopping = false;
  let running: (() => Promise<Readiness>) | null = null;
  // The log's wait is over (its topics are there): what readiness's `checks.log` says meanwhile.
  let logAnswered = false;
  const ops = {
    metrics,
    stopping: () => stopping,
    readiness: async (): Promise<Readiness> => (running ? running() : startingReadiness(config.roles, stopping, progress.reasons(), logAnswered)),
  };
  const probes = await buildOpsServer({ logger, ...ops, standsInForApi: config.roles.has('api') });
  let probeUrl: string;
  try {
    probeUrl = await listen(probes, config.roles.has('api') ? config.port : config.opsPort, config.host);
  } catch (err) {
    // Say, a second worker on the same host with the same OPS_PORT: nothing stays running.
    await probes.close();
    throw err;
  }
  logger.info({ probes: probeUrl, roles: [...config.roles] }, 'convops starting: waiting for the store and the log');

  const log = instrumentLog(createLog(config, logger), metrics);
  const topology = makeTopology(config.topicPrefix, config.inboundTopic ?? undefined);
  // Set by the store's wait (a callback, so declared without narrowing to null).
  let store = null as DocumentStore | null;
  const waits = { backoff, logger, progress, signal: calledOff.signal };
  try {
    const storeReady = waitForDependency({
      ...waits,
      dependency: 'store',
      target: config.mongoUrl ? mongoTarget(config.mongoUrl) : 'the embedded store',
      attempt: async () => {
        const s = await createStore(config);
        // Connected after the start was called off: nobody else will close it.
        if (calledOff.signal.aborted) {
          await s.close();
          throw new StartupAbortedError();
        }
        return s;
      },
      classify: (err) => (err instanceof StoreUnavailableError ? 'retry' : 'fatal'),
    }).then((s) => { store = instrumentStore(s, metrics); }, (err: unknown) => { calledOff.abort(); throw err; });
    const logReady = waitForDependency({
      ...waits,
      dependency: 'log',
      target: config.kafkaBrokers ? `Kafka at ${config.kafkaBrokers.join(',')}` : 'the embedded log',
      attempt: async () => {
        await log.createTopics([
          { name: topology.inbound, partitions: config.inboundPartitions },
          { name: topology.sessionEvents, partitions: config.inboundPartitions },
        ]);
        await checkPartitions(log, topology, config);
      },
      classify: classifyKafkaStart,
    }).then(() => { logAnswered = true; }, (err: unknown) => { calledOff.abort(); throw err; });
    const [s, l] = await Promise.allSettled([storeReady, logReady]);
    // The failure that caused the other wait to be called off is the one to report.
    const failures = [s, l].filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as unknown);
    if (failures.length > 0) throw failures.find((e) => !(e instanceof StartupAbortedError)) ?? failures[0];
  } catch (err) {
    // Nothing runs yet; a refusal must not leave connections, files or the port open behind it.
    await Promise.allSettled([log.close(), store?.close(), probes.close()]);
    throw err;
  }
  if (!store) throw new Error('the store wait ended without a store');
  const readyStore: DocumentStore = store;
  const intelligence = createIntelligence(config, readyStore, logger);
  // Test-only failpoint, read here and not in config (it is no setting): the processor's step
  // throws on a message whose text contains this marker, so tests can set a record aside.
  const throwOnText = process.env.CONVOPS_FAILPOINT_THROW_ON_TEXT || undefined;
  let started: PipelineControl;
  try {
    // The stores' indexes and the consumer groups: a dependency lost since it answered is waited for again.
    started = await waitForDependency({
      ...waits,
      dependency: 'consumers',
      target: 'the consumers',
      attempt: async () => {
        const p = new PipelineControl(config, log, readyStore, topology, logger, intelligence.intelligence, { throwOnText });
        try {
          await p.start();
        } catch (err) {
          await p.stop().catch(() => undefined);
          throw err;
        }
        if (calledOff.signal.aborted) {
          await p.stop();
          throw new StartupAbortedError();
        }
        return p;
      },
      classify: (err) => (err instanceof StoreUnavailableError || classifyKafkaStart(err) === 'retry' ? 'retry' : 'fatal'),
    });
  } catch (err) {
    await Promise.allSettled([log.close(), readyStore.close(), probes.close()]);
    throw err;
  }
  registerAppMetrics(metrics, { config, log, store: readyStore, topology, pipeline: started, provider: intelligence.provider });
  options.signal?.removeEventListener('abort', onAbort);

  const runningReadiness = async (): Promise<Readiness> => readiness({
    roles: config.roles,
    stopping,
    logUp: await pingWithin(log.ping(), 2000),
    stages: started.stages(),
  });
  let server: FastifyInstance | null = null;
  let url: string | null = null;
  let opsServer: FastifyInstance | null = null;
  let opsUrl: string | null = null;
  if (config.roles.has('api')) {
    // The API takes the probes' port over: closed and opened again within a few milliseconds.
    try {
      server = await buildServer({ config, logger, log, store: readyStore, topology, pipeline: started, intelligence, ops });
      await probes.close();
      url = await listen(server, Number(new URL(probeUrl).port), config.host);
    } catch (err) {
      await Promise.allSettled([server?.close(), probes.close(), started.stop().then(() => Promise.all([log.close(), readyStore.close()]))]);
      throw err;
    }
  } else {
    opsServer = probes;
    opsUrl = probeUrl;
  }
  running = runningReadiness;

  let stopped: Promise<void> | null = null;
  return {
    log, store: readyStore, server, url, opsUrl, metrics,
    stop() {
      // Intake first (the server stops accepting and waits for its in-flight requests, whose
      // appends finish or fail), then the consumers, then the connections; the ops port last,
      // so probes say "shutting down" until the end.
      stopped ??= (async () => {
        stopping = true;
        await server?.close();
        await started.stop();
        await log.close();
        await readyStore.close();
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
