// The composition root: what every service of a process is built from, each built once here
// and handed to the HTTP app (http/server.ts builds none), the ops server and the roles, and the
// one order they are built in and stopped in (compose()). app.ts decides when (it waits for the
// store and the log first); tests and tools that serve the app through inject() use assemble(),
// the same pieces without the waits.
import { DefinitionsPreviews } from './definitions-previews.js';
import { createLog, createStore } from './adapters/index.js';
import type { Log } from './adapters/log/log.js';
import type { DocumentStore } from './adapters/store/store.js';
import { platformReadiness, type PlatformReadiness } from './adapters/platform/readiness.js';
import { PlatformClient } from './adapters/platform/platform-client.js';
import { ApiKeys } from './access/api-keys.js';
import { AlertHooks } from './alert-hooks/alert-hooks.js';
import { BackfillJobs } from './backfill/backfill-jobs.js';
import type { Config } from './config.js';
import { BatchingAppender } from './ingest/batching-appender.js';
import { createIntelligence, type IntelligenceSetup } from './intelligence/index.js';
import { registerAppMetrics } from './observability/app-metrics.js';
import { instrumentLog, instrumentStore } from './observability/instrumented-adapters.js';
import { Metrics } from './observability/metrics.js';
import { readiness, type Readiness } from './observability/readiness.js';
import { PipelineControl } from './pipeline-control.js';
import type { PipelineFailpoints } from './pipeline-stages.js';
import { purgeAccounts } from './demo/purge-accounts.js';
import { backupEmbedded, type BackupResult } from './adapters/embedded-backup.js';
import { oneAtATime } from './support/one-at-a-time.js';
import { SetAsideRecords } from './pipeline/set-aside-records.js';
import { buildReadSide, type ReadSide } from './read-side/read-side.js';
import { pipelineFaults, type PipelineFaults } from './read-side/verify.js';
import { type ExplainDeps } from './read-side/explain.js';
import { PhraseBook } from './accounts/banned-phrases-store.js';
import { ScheduleBook } from './accounts/business-hours-store.js';
import { pingWithin } from './support/deadline.js';
import type { Logger } from './support/logger.js';
import { checkPartitions, topology as makeTopology, type Topology } from './topology.js';

/** What a process builds before any dependency answers: nothing here waits for one. */
export interface Foundation {
  readonly config: Config;
  readonly logger: Logger;
  /** One registry per process: the API's /metrics and the ops port read the same one. */
  readonly metrics: Metrics;
  readonly topology: Topology;
  /** Instrumented; the embedded log opens its files here, Kafka connects on first use. */
  readonly log: Log;
}

/** `metrics` when the probes already serve them (app.ts builds the log only once they listen). */
export function buildFoundation(config: Config, logger: Logger, metrics = new Metrics()): Foundation {
  return {
    config, logger, metrics,
    topology: makeTopology(config.topicPrefix, config.inboundTopic ?? undefined),
    log: instrumentLog(createLog(config, logger), metrics),
  };
}

/** One try at the store: connected and instrumented, or the error that says why not. */
export async function openStore(f: Foundation): Promise<DocumentStore> {
  return instrumentStore(await createStore(f.config, f.logger), f.metrics);
}

/** One try at the log: its topics exist, with partition counts that work together (TopologyError otherwise). */
export async function prepareLog(f: Foundation): Promise<void> {
  await f.log.createTopics([
    { name: f.topology.inbound, partitions: f.config.inboundPartitions },
    { name: f.topology.sessionEvents, partitions: f.config.inboundPartitions },
  ]);
  await checkPartitions(f.log, f.topology, f.config);
}

/** What the probes and the API's ops routes answer from. */
export interface OpsHooks {
  readonly metrics: Metrics;
  readonly readiness: () => Promise<Readiness>;
  readonly stopping: () => boolean;
}

/**
 * Test-only failpoint, read here and not in config (it is no setting): the processor's step
 * throws on a message whose text contains this marker, so tests can set a record aside.
 */
export function failpointsFrom(env: NodeJS.ProcessEnv | Readonly<Record<string, string>>): PipelineFailpoints {
  const ms = (v: string | undefined): number | undefined => (v ? Number(v) : undefined);
  return {
    throwOnText: env.CONVOPS_FAILPOINT_THROW_ON_TEXT || undefined,
    stallBeforeSwitchMs: ms(env.CONVOPS_FAILPOINT_STALL_BEFORE_SWITCH_MS), stallAfterSwitchMs: ms(env.CONVOPS_FAILPOINT_STALL_AFTER_SWITCH_MS),
  };
}

/** The roles this process runs (processor, projector, intelligence, replays), not started. */
export function buildRoles(f: Foundation, store: DocumentStore, intelligence: IntelligenceSetup, failpoints: PipelineFailpoints): PipelineControl {
  return new PipelineControl(f.config, f.log, store, f.topology, f.logger, intelligence.intelligence, failpoints);
}

export function buildIntelligence(f: Foundation, store: DocumentStore): IntelligenceSetup {
  return createIntelligence(f.config, store, f.logger);
}

/** A process whose dependencies answered, its roles started. */
export interface Services extends Foundation {
  readonly store: DocumentStore;
  readonly intelligence: IntelligenceSetup;
  readonly pipeline: PipelineControl;
  readonly ops: OpsHooks;
}

/** What the API serves from, besides the process's services. */
export interface ApiServices extends Services {
  /** One appender for every route that writes to inbound, so their records share log writes. */
  readonly inbound: BatchingAppender;
  readonly platform: { readonly client: PlatformClient; readonly readiness: PlatformReadiness };
  readonly backfill: BackfillJobs;
  /** The read models, accounts, business hours and floor every read route shares. */
  readonly read: ReadSide;
  /** The pipeline's own faults (lost chat-state writes, conflicting events), for verify. */
  readonly faults: (accountId?: string) => Promise<PipelineFaults>;
  readonly keys: ApiKeys;
  /** The alert hooks' registry, for the admin routes. */
  readonly alertHooks: AlertHooks;
  /** Set-aside records, for the admin routes and health's count. */
  readonly setAside: SetAsideRecords;
  /** Removes everything of these accounts, the consumers fenced (the demo purge). */
  readonly purgeAccounts: (accountIds: readonly string[]) => Promise<Record<string, number>>;
  /** A consistent copy of DATA_DIR into BACKUP_DIR, one at a time; null when the log or the store is not the embedded one. */
  readonly backup: (() => Promise<BackupResult>) | null;
  /** What GET /api/sessions/:id/explain reads the chat again with, as the processor decides it. */
  readonly explain: ExplainDeps;
  /** Definitions previews, applies and switches back (src/definitions/preview.ts); they run where the pipeline does. */
  readonly previews: DefinitionsPreviews;
  /** Stops the API's own background work (the backfill resumer and running backfills): after the server closed, before the roles stop. */
  stop(): Promise<void>;
}

/** Readiness of a started process: its log answers and its consumers run. */
export function runningReadiness(f: Foundation, pipeline: PipelineControl, stopping: () => boolean): () => Promise<Readiness> {
  return async () => readiness({ roles: f.config.roles, stopping: stopping(), logUp: await pingWithin(f.log.ping(), 2000), stages: pipeline.stages() });
}

/** The process's metrics read the services they report on; registered once the roles run. */
export function registerMetrics(s: Services): void {
  registerAppMetrics(s.metrics, { config: s.config, log: s.log, store: s.store, topology: s.topology, pipeline: s.pipeline, provider: s.intelligence.provider });
}

/** The log, the store and the accounts' phrase and schedule books, for explanations (each chat's own definitions are in its state). */
function explainDeps(s: Services, read: ReadSide): ExplainDeps {
  const phrases = new PhraseBook(read.bannedPhrases);
  const schedules = new ScheduleBook(read.businessHours);
  return {
    log: s.log, store: s.store, inboundTopic: s.topology.inbound,
    bannedPhrases: phrases.phrasesAt, schedules: (restatedAt) => schedules.restated(restatedAt),
    refresh: async () => { await Promise.all([phrases.refresh(), schedules.refresh()]); },
  };
}

/** The API's services, built once; the backfill resumer starts with them and stops with stop(). */
export function buildApiServices(s: Services): ApiServices {
  const { config, logger } = s;
  const read = buildReadSide(s.store, s.intelligence, config.reportTimezone, config.clockIdleSec);
  const inbound = new BatchingAppender(s.log, s.topology.inbound, { timeoutMs: config.appendTimeoutMs, lingerMs: config.appendLingerMs });
  const client = new PlatformClient({ baseUrl: config.platformApiBaseUrl, apiKey: config.platformApiKey, rateWindowMs: config.platformRateWindowSec * 1000, maxResponseBytes: config.outboundMaxResponseBytes });
  const backfill = new BackfillJobs(s.store, client, async (records) => { await s.log.append(s.topology.inbound, records); }, logger.child({ role: 'backfill' }), config.backfillStaleSec * 1000);
  const previews = new DefinitionsPreviews(s.pipeline, s.store, s.log, s.topology, logger.child({ role: 'definitions' }));
  // A preview a stopped process left running goes on where it stood.
  const previewsStarted = previews.start().catch((err: unknown) => logger.error({ err }, 'definitions preview not resumed'));
  // Jobs whose process stopped are picked up once their heartbeat is stale.
  const resumer = setInterval(() => { backfill.resumeStale().catch((err: unknown) => logger.error({ err }, 'backfill resume failed')); }, Math.min(10_000, backfill.staleMs));
  resumer.unref();
  return {
    ...s,
    inbound,
    platform: { client, readiness: platformReadiness(config.platformApiBaseUrl, config.platformApiKey) },
    backfill,
    read,
    faults: (accountId) => pipelineFaults(s.store, accountId),
    keys: new ApiKeys(s.store),
    alertHooks: new AlertHooks(s.store),
    setAside: new SetAsideRecords(s.store),
    purgeAccounts: (accountIds) => purgeAccounts(s.store, read, s.pipeline, accountIds),
    backup: s.log.kind === 'embedded' && s.store.kind === 'embedded' ? oneAtATime(() => backupEmbedded(config.dataDir, config.backupDir)) : null,
    explain: explainDeps(s, read),
    previews,
    async stop() {
      clearInterval(resumer);
      await previewsStarted;
      await previews.stop();
      await backfill.stop();
    },
  };
}

/** A process's services over a store and log that answer, its roles started: what app.ts and assemble() both run. */
export interface Composed {
  /** The API's services, when the process runs the API. */
  readonly api: ApiServices | null;
  /** Stops it in the reverse of the build order: the API's own work, the roles, the log, the store. Close the HTTP server first. */
  stop(): Promise<void>;
}

/**
 * The one build order of a process whose store and log answer and whose roles run: its
 * metrics registered, then (with `api`) the API's services. stop() takes it down in reverse.
 */
export function compose(f: Foundation, store: DocumentStore, intelligence: IntelligenceSetup, pipeline: PipelineControl, ops: OpsHooks, api: boolean): Composed {
  const services: Services = { ...f, store, intelligence, pipeline, ops };
  registerMetrics(services);
  const apiServices = api ? buildApiServices(services) : null;
  let stopped: Promise<void> | null = null;
  return {
    api: apiServices,
    stop() {
      stopped ??= (async () => {
        await apiServices?.stop();
        await pipeline.stop();
        await f.log.close();
        await store.close();
      })();
      return stopped;
    },
  };
}

/**
 * The pieces app.ts composes, without its waits and retries: a dependency that does not answer
 * fails at once. For tests and tools that serve the app through inject() (no port).
 */
export async function assemble(config: Config, logger: Logger, failpoints: PipelineFailpoints = {}): Promise<{ readonly services: ApiServices; stop(): Promise<void> }> {
  const f = buildFoundation(config, logger);
  const store = await openStore(f);
  let pipeline: PipelineControl | null = null;
  try {
    await prepareLog(f);
    const intelligence = buildIntelligence(f, store);
    pipeline = buildRoles(f, store, intelligence, failpoints);
    await pipeline.start();
    const roles = pipeline;
    let stopping = false;
    const ops: OpsHooks = { metrics: f.metrics, stopping: () => stopping, readiness: runningReadiness(f, roles, () => stopping) };
    const composed = compose(f, store, intelligence, roles, ops, true);
    const api = composed.api;
    if (!api) throw new Error('compose() built no API services');
    return { services: api, stop: () => { stopping = true; return composed.stop(); } };
  } catch (err) {
    await Promise.allSettled([pipeline?.stop(), f.log.close(), store.close()]);
    throw err;
  }
}
