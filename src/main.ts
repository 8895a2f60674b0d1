// Process entry point: configuration from the environment, then the roles, until a signal.
import { ConfigError, loadConfig } from './config.js';
import { PortInUseError, startApp } from './app.js';
import { createLogger, resolveLogFormat } from './support/logger.js';
import { startGuide } from './support/start-guide.js';
import { demoRefusal } from './demo/demo-policy.js';
import { CHAT_STATE_COLLECTION } from './processor/chat-state.js';
import type { DocumentStore } from './adapters/store/store.js';
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
  const format = resolveLogFormat(config.logFormat, process.stdout.isTTY === true);
  const logger = createLogger(config.logLevel, format);
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
    if (err instanceof TopologyError || err instanceof ConfigError || err instanceof StoredFormatError || err instanceof PortInUseError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  } finally {
    process.removeListener('SIGTERM', onTerm);
    process.removeListener('SIGINT', onInt);
  }
  const guide = startGuide({
    url: app.url,
    opsUrl: app.opsUrl,
    host: config.host,
    roles: [...config.roles],
    adminTokenSet: config.adminToken !== null,
    storeEmpty: app.url !== null && await storeIsEmpty(app.store),
    demoRefused: demoRefusal(config.environment, config.demoSecret, 'demo seeding')?.reason ?? null,
  });
  const where = {
    log: app.log.kind,
    store: app.store.kind,
    dataDir: app.log.kind === 'embedded' || app.store.kind === 'embedded' ? config.dataDir : undefined,
  };
  if (format === 'pretty') {
    logger.info(where, guide.listening);
    if (guide.next.length > 0) logger.info(`next:\n${guide.next.join('\n')}`);
  } else {
    logger.info({ ...guide.fields, ...where }, guide.listening);
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

/** No chat processed yet. A store that cannot answer now is not called empty: the hint is a courtesy. */
async function storeIsEmpty(store: DocumentStore): Promise<boolean> {
  try {
    // An _id range with a limit: one key read, where an empty filter would decode every chat state.
    return (await store.collection(CHAT_STATE_COLLECTION).find({ _id: { $gte: '' } }, { limit: 1 })).length === 0;
  } catch {
    return false;
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`convops failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
