// Starts the whole service in-process on either deployment, for end-to-end tests.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApp, type RunningApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/support/logger.js';
import { kafkaBrokers, mongoUrl, unitTier } from './test-servers.js';
import { uniqueName } from './wait.js';
import { ContractCheck } from './contract-check.js';

export type Deployment = 'kafka+mongo' | 'embedded';
/** Both deployments; the unit tier (no Java) runs the embedded one only. */
export const DEPLOYMENTS: readonly Deployment[] = unitTier() ? ['embedded'] : ['kafka+mongo', 'embedded'];

const dataDirs: string[] = [];

/** Removes the data folders of embedded deployments started by this test file. */
export function removeDataDirs(): void {
  for (const d of dataDirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** Environment for a fresh, isolated deployment: own data dir, or own topics and database. */
export async function deploymentEnv(kind: Deployment, extra: Record<string, string> = {}): Promise<Record<string, string>> {
  // Ticks off unless a test asks: platform sample times lie months back, so any tick would close their sessions.
  // Rate limits off unless a test asks: tests poll routes far faster than a person, and
  // test/security/rate-limits.test.ts pins the limits themselves. The live routes' shared
  // answers off too: tests read them right after changing what they show.
  const base: Record<string, string> = {
    PORT: '0', OPS_PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', INBOUND_PARTITIONS: '4', TICK_INTERVAL_SEC: '0',
    RATE_LIMIT_MAX: '10000000', REPORT_RATE_LIMIT_MAX: '10000000', REFUSAL_LIMIT_MAX: '10000000', LIVE_CACHE_MS: '0', ...extra,
  };
  if (kind === 'embedded') {
    const dir = mkdtempSync(join(tmpdir(), 'convops-e2e-'));
    dataDirs.push(dir);
    return { DATA_DIR: dir, ...base };
  }
  return {
    KAFKA_BROKERS: await kafkaBrokers(),
    MONGO_URL: await mongoUrl(),
    MONGO_DB: uniqueName('convops_e2e').replace(/-/g, '_'),
    TOPIC_PREFIX: `${uniqueName('e2e')}.`,
    ...base,
  };
}

/** The service in-process, its every answer held to the OpenAPI contract: stop() fails if one broke it. */
export async function startWithEnv(env: Record<string, string>): Promise<RunningApp> {
  const config = loadConfig(env);
  let contract: ContractCheck | null = null;
  const running = await startApp(config, createLogger(config.logLevel), { onServer: (server) => { contract = new ContractCheck(server); } });
  let stopped: Promise<void> | null = null;
  return {
    ...running,
    stop() {
      stopped ??= (async () => {
        try {
          await running.stop();
        } finally {
          (contract as ContractCheck | null)?.assertKept();
        }
      })();
      return stopped;
    },
  };
}
