// Start, stop and reset of the processing roles this process runs. A full reset (purge-demo
// with `full`) stops them, moves their consumer groups past everything in the log, drops the
// read models, chat states and set-aside records, and starts them again.
import type { Log } from './adapters/log/log.js';
import type { DocumentStore } from './adapters/store/store.js';
import type { Config } from './config.js';
import { SessionProcessor, CHAT_STATE_COLLECTION, type ProcessorStatus } from './processor/session-processor.js';
import { CHAT_LEDGER_COLLECTION } from './processor/chat-ledger.js';
import { SET_ASIDE_COLLECTION } from './processor/set-aside.js';
import { Ticker } from './processor/ticker.js';
import { Projector, type ProjectorStatus } from './projector/projector.js';
import { ReadModelSet } from './projector/read-model-set.js';
import type { Logger } from './support/logger.js';
import { ReplayService, type ProjectionControl } from './projector/replay.js';
import type { Intelligence } from './intelligence/intelligence.js';
import { IntelligenceConsumer } from './intelligence/intelligence-consumer.js';
import { ProjectionProgress } from './projector/progress.js';
import type { Topology } from './topology.js';
import type { Consumer } from './adapters/log/log.js';
import { runStage, type Stage } from './pipeline/stage.js';
import { StageHealth, type StageProblem } from './pipeline/stage-health.js';
import type { StageState } from './observability/readiness.js';

/** Test-only fault injection, off unless set (see app.ts). */
export interface PipelineFailpoints {
  /** The processor's step throws on a message whose text contains this marker. */
  readonly throwOnText?: string;
}

export interface ResetOutcome {
  readonly droppedCollections: readonly string[];
  readonly skippedTo: Record<string, Record<number, number>>;
}

export class PipelineControl implements ProjectionControl {
  private processor: SessionProcessor | null = null;
  private projector: Projector | null = null;
  private ticker: Ticker | null = null;
  private intelligenceConsumer: IntelligenceConsumer | null = null;
  /** The stages this process runs, in start order, with their consumers. */
  private running: { readonly stage: Stage; readonly consumer: Consumer }[] = [];
  /** The projector is stopped on purpose, for a replay. */
  private paused = false;
  /** Per role, whether its rounds go through; kept across restarts of the stages. */
  private readonly health = new Map<string, StageHealth>();

  constructor(
    private readonly config: Config,
    private readonly log: Log,
    private readonly store: DocumentStore,
    private readonly topology: Topology,
    private readonly logger: Logger,
    private readonly intelligence: Intelligence,
    private readonly failpoints: PipelineFailpoints = {},
  ) {
    this.replay = config.roles.has('projector') ? new ReplayService(log, store, topology, this, logger.child({ role: 'replay' })) : null;
  }

  /** Replays run in a process that runs the projector, so it can pause its own projection. */
  readonly replay: ReplayService | null;

  get runsProjector(): boolean {
    return this.config.roles.has('projector');
  }

  async pause(): Promise<void> {
    const i = this.running.findIndex((r) => r.stage === this.projector);
    const held = this.running[i];
    if (!held) return;
    this.running.splice(i, 1);
    this.paused = true;
    await held.consumer.stop();
  }

  async resume(): Promise<void> {
    this.paused = false;
    if (!this.projector || this.running.some((r) => r.stage === this.projector)) return;
    this.running.push({ stage: this.projector, consumer: await runStage(this.log, this.projector, this.healthOf(this.projector)) });
  }

  private healthOf(stage: Stage): StageHealth {
    let h = this.health.get(stage.role);
    if (!h) {
      h = new StageHealth(stage.role);
      this.health.set(stage.role, h);
    }
    return h;
  }

  /** Stages of this process whose rounds keep failing. */
  problems(): StageProblem[] {
    return [...this.health.values()].map((h) => h.problem()).filter((p): p is StageProblem => p !== null);
  }

  get runsProcessing(): boolean {
    return this.config.roles.has('processor') && this.config.roles.has('projector');
  }

  /** The consumers this process should run, and whether each does; a projector paused for a replay counts as running. */
  stages(): StageState[] {
    const configured: StageState[] = [];
    if (this.processor) configured.push({ role: 'processor', running: this.running.some((r) => r.stage === this.processor) });
    if (this.projector) configured.push({ role: 'projector', running: this.paused || this.running.some((r) => r.stage === this.projector) });
    if (this.intelligenceConsumer) configured.push({ role: 'intelligence', running: this.running.some((r) => r.stage === this.intelligenceConsumer) });
    return configured;
  }

  counters(): { processor: ProcessorStatus | null; projector: ProjectorStatus | null } {
    return { processor: this.processor?.status() ?? null, projector: this.projector?.status() ?? null };
  }

  async start(): Promise<void> {
    const { config, log, store, topology, logger } = this;
    const stages: Stage[] = [];
    if (config.roles.has('processor')) {
      this.processor = new SessionProcessor({ log, store, topology, idleMs: config.sessionIdleSec * 1000, lateMs: config.allowedLatenessSec * 1000, stallBeforeWriteMs: config.failpointStallBeforeWriteMs, failpointThrowOnText: this.failpoints.throwOnText, logger: logger.child({ role: 'processor' }) });
      stages.push(this.processor);
    }
    const progress = config.roles.has('projector') ? new ProjectionProgress() : null;
    if (progress) {
      this.projector = new Projector(store, topology, logger.child({ role: 'projector' }), progress);
      stages.push(this.projector);
    }
    if (config.roles.has('intelligence')) {
      this.intelligenceConsumer = new IntelligenceConsumer(log, topology, this.intelligence, config.alertSweepSec * 1000, logger.child({ role: 'intelligence' }), progress);
      stages.push(this.intelligenceConsumer);
    }
    for (const stage of stages) this.running.push({ stage, consumer: await runStage(log, stage, this.healthOf(stage)) });
    if (this.processor) {
      this.ticker = new Ticker(log, topology.inbound, config.tickIntervalSec * 1000, logger.child({ role: 'ticker' }));
      this.ticker.start();
    }
  }

  async stop(): Promise<void> {
    await this.replay?.abort();
    this.ticker?.stop();
    // Intelligence first: its wait for the projector ends instead of holding the stop.
    await this.intelligenceConsumer?.stop();
    for (const { consumer } of this.running.splice(0)) await consumer.stop();
    this.intelligenceConsumer = null;
    this.ticker = null;
    this.processor = null;
    this.projector = null;
    this.paused = false;
  }

  async resetAll(): Promise<ResetOutcome> {
    if (!this.runsProcessing) throw new Error('this process does not run both the processor and the projector');
    await this.stop();
    const skippedTo: Record<string, Record<number, number>> = {};
    for (const [group, topic] of [[this.topology.processorGroup, this.topology.inbound], [this.topology.projectorGroup, this.topology.sessionEvents]] as const) {
      const ends = await this.log.endOffsets(topic);
      await this.log.setGroupPosition(group, topic, { kind: 'offsets', offsets: ends });
      skippedTo[topic] = ends;
    }
    const models = new ReadModelSet(this.store);
    // Set-aside records go with the chat states they were decided against.
    const dropped = [...await models.allCollections(), CHAT_STATE_COLLECTION, CHAT_LEDGER_COLLECTION, SET_ASIDE_COLLECTION];
    for (const name of dropped) await this.store.collection(name).drop();
    await models.resetPointer();
    await this.start();
    this.logger.warn({ skippedTo }, 'pipeline reset: read models dropped, consumers moved past the existing log');
    return { droppedCollections: dropped, skippedTo };
  }
}
