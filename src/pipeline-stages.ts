// The processing stages this process's roles call for, built and not started: the composition's
// PipelineControl runs them under consumers (and starts, stops, fences and resets them); a
// route test drives the same stages by hand over what the log holds (test/support/app-harness.ts).
import type { Log } from './adapters/log/log.js';
import type { DocumentStore } from './adapters/store/store.js';
import type { Config } from './config.js';
import { IntelligenceConsumer } from './intelligence/intelligence-consumer.js';
import type { Intelligence } from './intelligence/intelligence.js';
import { SessionProcessor } from './processor/session-processor.js';
import { ProjectionProgress } from './projector/progress.js';
import { Projector } from './projector/projector.js';
import type { Logger } from './support/logger.js';
import type { Topology } from './topology.js';
import type { SetAsideTally } from './pipeline/set-aside.js';
import type { DefinitionValues } from './definitions/definitions-store.js';
import { generationStore, generationTopology, idTagOf } from './definitions/generations.js';

/** Test-only fault injection, off unless set (see app.ts). */
export interface PipelineFailpoints {
  /** The processor's step throws on a message whose text contains this marker. */
  readonly throwOnText?: string;
  /** A definitions switch waits this long just before its pointer write, and just after it (a kill lands mid-switch). */
  readonly stallBeforeSwitchMs?: number;
  readonly stallAfterSwitchMs?: number;
}

export interface StageDeps {
  readonly config: Config;
  readonly log: Log;
  readonly store: DocumentStore;
  readonly topology: Topology;
  readonly logger: Logger;
  readonly intelligence: Intelligence;
  /** Records set aside by this process, by stage; kept across rebuilds of the stages. */
  readonly setAsideTally: SetAsideTally;
  readonly failpoints?: PipelineFailpoints;
  /**
   * The definitions generation the stages run (src/definitions/generations.ts): its number and
   * stored values; absent or values null: generation 0 under the environment's settings.
   */
  readonly generation?: { readonly n: number; readonly values: DefinitionValues | null };
}

/** Each stage present when its role is configured; the order is the start order. */
export interface PipelineStages {
  readonly processor: SessionProcessor | null;
  readonly projector: Projector | null;
  readonly intelligence: IntelligenceConsumer | null;
}

/** The processor's definitions: a generation's stored values, or (generation 0) the environment's. */
function definitionsOf(config: Config, values: DefinitionValues | null): DefinitionValues {
  return values ?? { sessionIdleSec: config.sessionIdleSec, allowedLatenessSec: config.allowedLatenessSec, unansweredCloseSec: config.unansweredCloseSec, attributionLookbackSec: config.attributionLookbackSec };
}

/** A generation's processor: its chat states under its prefix, its topics, its ids' tag. */
export function generationProcessor(deps: StageDeps, n: number, values: DefinitionValues | null, logger: Logger): SessionProcessor {
  const { config, log, store, setAsideTally } = deps;
  const d = definitionsOf(config, values);
  const idTag = idTagOf(n);
  return new SessionProcessor({
    log, store, topology: generationTopology(deps.topology, n), stateStore: generationStore(store, n), recordDefinitions: values === null, ...(idTag !== undefined ? { idTag } : {}),
    ...(d.businessHoursRestatedAt !== undefined ? { schedulesRestatedAt: d.businessHoursRestatedAt } : {}),
    idleMs: d.sessionIdleSec * 1000, lateMs: d.allowedLatenessSec * 1000, unansweredMs: d.unansweredCloseSec * 1000, lookbackMs: d.attributionLookbackSec * 1000,
    stallBeforeWriteMs: config.failpointStallBeforeWriteMs, failpointThrowOnText: deps.failpoints?.throwOnText, setAsideTally, logger,
  });
}

/** A generation's projector: its topic and group; pinned to a read-model version while it is a preview. */
export function generationProjector(deps: StageDeps, n: number, progress: ProjectionProgress, logger: Logger, pinnedVersion?: number): Projector {
  const { config, log, store, setAsideTally } = deps;
  return new Projector(store, generationTopology(deps.topology, n), logger, progress, setAsideTally, {
    checkContent: config.eventDigests, digestsKeepMs: config.eventDigestsKeepDays * 86_400_000, log, generation: n, ...(pinnedVersion !== undefined ? { pinnedVersion } : {}),
  });
}

export function buildStages(deps: StageDeps): PipelineStages {
  const { config, log, logger } = deps;
  const n = deps.generation?.n ?? 0;
  const topology = generationTopology(deps.topology, n);
  const processor = config.roles.has('processor') ? generationProcessor(deps, n, deps.generation?.values ?? null, logger.child({ role: 'processor' })) : null;
  // Intelligence waits on this process's projection where both run here.
  const progress = config.roles.has('projector') ? new ProjectionProgress() : null;
  const projector = progress ? generationProjector(deps, n, progress, logger.child({ role: 'projector' })) : null;
  const intelligence = config.roles.has('intelligence')
    ? new IntelligenceConsumer(log, topology, deps.intelligence, config.alertSweepSec * 1000, logger.child({ role: 'intelligence' }), progress)
    : null;
  return { processor, projector, intelligence };
}
