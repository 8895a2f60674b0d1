// Process entry point: configuration from the environment, then the roles, until a signal.
import { ConfigError, loadConfig } from './config.js';
import { startApp } from './app.js';
import { createLogger } from './support/logger.js';
import { TopologyError } from './topology.js';
import { StartupAbortedError } from './support/dependency-wait.js';
import { StoredFormatError } from './support/stored-format.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = createLogger(config.logLevel);
  // A signal while start-up still waits for the store or the broker ends the wait at once.
  const starting = new AbortController();
  const callOff = (signal: string): void => {
    logger.info({ signal }, 'stopping while starting');
    starting.abort();
    setTimeout(() => {
      logger.error({ deadlineMs: config.shutdownTimeoutMs }, 'start-up did not stop in SHUTDOWN_TIMEOUT_MS; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs).unref();
  };
  const onTerm = (): void => callOff('SIGTERM');
  const onInt = (): void => callOff('SIGINT');
  process.once('SIGTERM', onTerm);
  process.once('SIGINT', onInt);
  let app;
  try {
    app = await startApp(config, logger, { signal: starting.signal });
  } catch (err) {
    if (err instanceof StartupAbortedError) process.exit(0);
    // Settings that do not fit the topics or the cluster as they exist, or a store or broker that
    // refuses them (a malformed MONGO_URL, credentials), or data stored in a format this version
    // does not read: a message to act on, not a stack.
    if (err instanceof TopologyError || err instanceof ConfigError || err instanceof StoredFormatError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  } finally {
    process.removeListener('SIGTERM', onTerm);
    process.removeListener('SIGINT', onInt);
  }
  logger.info({
    url: app.url,
    opsUrl: app.opsUrl ?? undefined,
    roles: [...config.roles],
    log: app.log.kind,
    store: app.store.kind,
    dataDir: app.log.kind === 'embedded' || app.store.kind === 'embedded' ? config.dataDir : undefined,
  }, 'convops started');
  // The default bind is loopback: say so, and how to open it, where a newcomer looks.
  if (config.host === '127.0.0.1' || config.host === 'localhost' || config.host === '::1') {
    logger.info({ host: config.host }, 'listening on this machine only: set HOST=0.0.0.0 to accept connections from others (after READ_AUTH and PLATFORMAPI_WEBHOOK_SECRET, see docs/operations.md)');
  }
  const shutdown = (signal: string): void => {
    logger.info({ signal, deadlineMs: config.shutdownTimeoutMs }, 'shutting down');
    // A stop that hangs (a broker gone mid-commit, a store that never answers) must not keep
    // the process past its orchestrator's grace period: what was not committed comes again.
    const deadline = setTimeout(() => {
      logger.error({ deadlineMs: config.shutdownTimeoutMs }, 'shutdown did not finish in SHUTDOWN_TIMEOUT_MS; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    deadline.unref();
    app.stop().then(() => process.exit(0), (err: unknown) => {
      logger.error({ err }, 'shutdown failed');
      process.exit(1);
    });
  };
  // A signal that came in the last steps of start-up (after the waits) stops what started.
  if (starting.signal.aborted) {
    shutdown('SIGTERM');
    return;
  }
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

main().catch((err: unknown) => {
  process.stderr.write(`convops failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
