// Starts the roles this process runs (api, processor, projector, intelligence) over the services
// the composition root builds (composition.ts): when each is built, the start-up waits, the
// port the probes and the API share, and the order things stop in.
import type { FastifyInstance } from 'fastify';
import type { Log } from './adapters/log/log.js';
import type { DocumentStore } from './adapters/store/store.js';
import type { Config } from './config.js';
import { buildServer } from './http/server.js';
import type { PipelineControl } from './pipeline-control.js';
import type { Logger } from './support/logger.js';
import { Metrics } from './observability/metrics.js';
import { startingReadiness, type Readiness } from './observability/readiness.js';
import { buildOpsServer } from './http/ops-server.js';
import { StoreUnavailableError } from './adapters/store/store.js';
import { classifyKafkaStart, mongoTarget, StartupAbortedError, StartupProgress, waitForDependency } from './support/dependency-wait.js';
import {
  buildFoundation, buildIntelligence, buildRoles, compose, failpointsFrom, openStore, prepareLog, runningReadiness, type Foundation, type OpsHooks,
} from './composition.js';

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
  /** Called with the API's server once built, before it listens: where a test holds it to its OpenAPI contract. */
  readonly onServer?: (server: FastifyInstance) => void;
}

/**
 * Serves the probes first, on the port the process will serve (PORT with the API, OPS_PORT
 * without), then waits for the store and the log with backoff (support/dependency-wait.ts) and
 * starts the roles. Meanwhile liveness answers and readiness says what is awaited. Only what
 * waiting cannot cure (ConfigError, TopologyError, refused credentials, an embedded log folder
 * in a layout this version does not read: StoredFormatError) ends the start.
 */
/** Another process holds the port: a message to act on (main.ts prints it, no stack). */
export class PortInUseError extends Error {
  constructor(host: string, port: number, variable: 'PORT' | 'OPS_PORT') {
    super(variable === 'PORT'
      ? `port ${port} on ${host} is in use by another process. Stop it, or choose another port for this shell and every command that follows: export PORT=${port + 1} (the README's commands read PORT), then start again`
      : `OPS_PORT ${port} on ${host} is in use by another process (another worker on this host?): give each process its own OPS_PORT`);
    this.name = 'PortInUseError';
  }
}

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
  const ops: OpsHooks = {
    metrics,
    stopping: () => stopping,
    readiness: async (): Promise<Readiness> => (running ? running() : startingReadiness(config.roles, stopping, progress.reasons(), logAnswered)),
  };
  const probes = await buildOpsServer({ logger, ...ops, standsInForApi: config.roles.has('api') });
  let probeUrl: string;
  try {
    probeUrl = await listen(probes, config.roles.has('api') ? config.port : config.opsPort, config.host, config.roles.has('api') ? 'PORT' : 'OPS_PORT');
  } catch (err) {
    // Say, a second worker on the same host with the same OPS_PORT: nothing stays running.
    await probes.close();
    throw err;
  }
  logger.info({ probes: probeUrl, roles: [...config.roles] }, 'convops starting: waiting for the store and the log');
  // The quick start's next step (seeding the demo, creating keys) needs it; say so where a newcomer looks.
  if (config.roles.has('api') && config.adminToken === null) {
    logger.warn('ADMIN_TOKEN is not set: admin routes (seed-demo, access keys, replay, backfill) refuse everyone until it is (at least 16 characters) or an admin key exists');
  }

  let foundation: Foundation;
  try {
    foundation = buildFoundation(config, logger, metrics);
  } catch (err) {
    await probes.close();
    throw err;
  }
  const { log } = foundation;

  // Set by the store's wait (a callback, so declared without narrowing to null).
  let store = null as DocumentStore | null;
  const waits = { backoff, logger, progress, signal: calledOff.signal };
  try {
    const storeReady = waitForDependency({
      ...waits,
      dependency: 'store',
      target: config.mongoUrl ? mongoTarget(config.mongoUrl) : 'the embedded store',
      attempt: async () => {
        const s = await openStore(foundation);
        // Connected after the start was called off: nobody else will close it.
        if (calledOff.signal.aborted) {
          await s.close();
          throw new StartupAbortedError();
        }
        return s;
      },
      classify: (err) => (err instanceof StoreUnavailableError ? 'retry' : 'fatal'),
    }).then((s) => { store = s; }, (err: unknown) => { calledOff.abort(); throw err; });
    const logReady = waitForDependency({
      ...waits,
      dependency: 'log',
      target: config.kafkaBrokers ? `Kafka at ${config.kafkaBrokers.join(',')}` : 'the embedded log',
      attempt: () => prepareLog(foundation),
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
  const intelligence = buildIntelligence(foundation, readyStore);
  const failpoints = failpointsFrom(process.env);
  let started: PipelineControl;
  try {
    // The stores' indexes and the consumer groups: a dependency lost since it answered is waited for again.
    started = await waitForDependency({
      ...waits,
      dependency: 'consumers',
      target: 'the consumers',
      attempt: async () => {
        const p = buildRoles(foundation, readyStore, intelligence, failpoints);
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
  const composed = compose(foundation, readyStore, intelligence, started, ops, config.roles.has('api'));
  options.signal?.removeEventListener('abort', onAbort);

  let server: FastifyInstance | null = null;
  let url: string | null = null;
  let opsServer: FastifyInstance | null = null;
  let opsUrl: string | null = null;
  if (composed.api) {
    // The API takes the probes' port over: closed and opened again within a few milliseconds.
    try {
      server = await buildServer(composed.api);
      options.onServer?.(server);
      await probes.close();
      url = await listen(server, Number(new URL(probeUrl).port), config.host, 'PORT');
    } catch (err) {
      const built = server;
      await Promise.allSettled([(async () => { await built?.close(); await composed.stop(); })(), probes.close()]);
      throw err;
    }
  } else {
    opsServer = probes;
    opsUrl = probeUrl;
  }
  running = runningReadiness(foundation, started, () => stopping);

  let stopped: Promise<void> | null = null;
  return {
    log, store: readyStore, server, url, opsUrl, metrics,
    stop() {
      // Intake first (the server stops accepting and waits for its in-flight requests, whose
      // appends finish or fail), then what compose() built, in reverse (the API's backfills, the
      // consumers, the connections); the ops port last, so probes say "shutting down" until the end.
      stopped ??= (async () => {
        stopping = true;
        await server?.close();
        await composed.stop();
        await opsServer?.close();
      })();
      return stopped;
    },
  };
}

async function listen(app: FastifyInstance, port: number, host: string, variable: 'PORT' | 'OPS_PORT'): Promise<string> {
  // Fastify logs a line per address (four on a host with several interfaces, and again when the
  // API takes the probes' port over); main.ts says once where it listens and what to open.
  const level = app.log.level;
  // Only ever quieter: a LOG_LEVEL of error or silent stays so.
  if (['trace', 'debug', 'info'].includes(level)) app.log.level = 'warn';
  try {
    await app.listen({ port, host });
  } catch (err) {
    throw (err as NodeJS.ErrnoException).code === 'EADDRINUSE' ? new PortInUseError(host, port, variable) : err;
  } finally {
    app.log.level = level;
  }
  const addr = app.server.address();
  return `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : port}`;
}
