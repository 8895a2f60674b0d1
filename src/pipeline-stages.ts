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

/** Test-only fault injection, off unless set (see app.ts). */
export interface PipelineFailpoints {
  /** The processor's step throws on a message whose text contains this marker. */
  readonly throwOnText?: string;
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
}

/** Each stage present when its role is configured; the order is the start order. */
export interface PipelineStages {
  readonly processor: SessionProcessor | null;
  readonly projector: Projector | null;
  readonly intelligence: IntelligenceConsumer | null;
}

export function buildStages(deps: StageDeps): PipelineStages {
  const { config, log, store, topology, logger, setAsideTally } = deps;
  const processor = config.roles.has('processor')
    ? new SessionProcessor({
      log, store, topology, idleMs: config.sessionIdleSec * 1000, lateMs: config.allowedLatenessSec * 1000, unansweredMs: config.unansweredCloseSec * 1000, lookbackMs: config.attributionLookbackSec * 1000,
      stallBeforeWriteMs: config.failpointStallBeforeWriteMs, failpointThrowOnText: deps.failpoints?.throwOnText, setAsideTally, logger: logger.child({ role: 'processor' }),
    })
    : null;
  // Intelligence waits on this process's projection where both run here.
  const progress = config.roles.has('projector') ? new ProjectionProgress() : null;
  const projector = progress ? new Projector(store, topology, logger.child({ role: 'projector' }), progress, setAsideTally, { checkContent: config.eventDigests, digestsKeepMs: config.eventDigestsKeepDays * 86_400_000, log }) : null;
  const intelligence = config.roles.has('intelligence')
    ? new IntelligenceConsumer(log, topology, deps.intelligence, config.alertSweepSec * 1000, logger.child({ role: 'intelligence' }), progress)
    : null;
  return { processor, projector, intelligence };
}
