// Start, stop and reset of the processing roles this process runs (pipeline-stages.ts
// builds them). A full reset (purge-demo
// with `full`) stops them, moves their consumer groups past everything in the log, drops the
// read models, chat states, set-aside records, alerts and analyses, and starts them again. A fenced piece of
// work (purge-demo of some accounts) runs with the consumers drained and stopped, and they
// start again whatever the work does.
import type { Log } from './adapters/log/log.js';
import type { DocumentStore } from './adapters/store/store.js';
import type { Config } from './config.js';
import { CHAT_STATE_COLLECTION, type ProcessorStatus, type SessionProcessor } from './processor/session-processor.js';
import { CHAT_LEDGER_COLLECTION } from './processor/chat-ledger.js';
import { APPLIED_MARKS_COLLECTION, STATE_ROLLBACKS_COLLECTION } from './processor/rollback.js';
import { PROJECTOR_MARKS_COLLECTION, READ_MODEL_HEALS_COLLECTION } from './projector/applied-marks.js';
import { EVENT_DIGESTS_COLLECTION } from './projector/event-digests.js';
import { SET_ASIDE_COLLECTION, SetAsideTally } from './pipeline/set-aside.js';
import { Ticker } from './processor/ticker.js';
import type { Projector, ProjectorStatus } from './projector/projector.js';
import { ReadModelSet } from './read-models/read-model-set.js';
import type { Logger } from './support/logger.js';
import { ReplayService, type ProjectionControl } from './projector/replay.js';
import { ALERTS_COLLECTION, ANALYSES_COLLECTION, type Intelligence } from './intelligence/intelligence.js';
import type { IntelligenceConsumer } from './intelligence/intelligence-consumer.js';
import { AlertHookDispatcher } from './alert-hooks/dispatcher.js';
import { DEFAULT_RETRY_POLICY } from './alert-hooks/retry-policy.js';
import { buildStages, type PipelineFailpoints, type StageDeps } from './pipeline-stages.js';
import type { DefinitionValues } from './definitions/definitions-store.js';
import { Generations, GENERATIONS_COLLECTION, generationTopology } from './definitions/generations.js';
import type { Topology } from './topology.js';
import type { Consumer } from './adapters/log/log.js';
import { runStage, type Stage, type StageState } from './pipeline/stage.js';
import { StageHealth, type StageProblem } from './pipeline/stage-health.js';

/** How long a fenced piece of work waits for the consumers to catch up before giving up. */
export const FENCE_DRAIN_MS = 60_000;
const DRAIN_POLL_MS = 50;
const RESTART_RETRY_MS = 1_000;

/** The pipeline cannot be fenced now (not this process's, a replay or another purge runs); nothing was changed. */
export class PipelineBusyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PipelineBusyError';
  }
}

/** The consumers did not catch up with the log in time; nothing was changed and they run on. */
export class DrainTimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DrainTimeoutError';
  }
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
  /** Runs where intelligence runs: that role owns the alerts whose transitions it sends. */
  private hookDispatcher: AlertHookDispatcher | null = null;
  /** The stages this process runs, in start order, with their consumers. */
  private running: { readonly stage: Stage; readonly consumer: Consumer }[] = [];
  /** The projector is stopped on purpose, for a replay. */
  private paused = false;
  /** Per role, whether its rounds go through; kept across restarts of the stages. */
  private readonly health = new Map<string, StageHealth>();
  /** A fenced piece of work (purge, full reset) in progress: one at a time. */
  private fencing: Promise<unknown> | null = null;
  /** stop() was called for good (shutdown): a fenced piece of work does not start the consumers again. */
  private closing = false;
  /** A restart after fenced work failed and is being retried in the background. */
  private restarting = false;
  /** Records this process's processor and projector set aside, by stage; kept across their restarts. */
  readonly setAsideTally = new SetAsideTally();

  constructor(
    private readonly config: Config,
    private readonly log: Log,
    private readonly store: DocumentStore,
    private readonly topology: Topology,
    private readonly logger: Logger,
    /** The alerts and analyses a purge removes with the data they came from. */
    readonly intelligence: Intelligence,
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
      h = new StageHealth(stage.role, { group: stage.group });
      this.health.set(stage.role, h);
    }
    return h;
  }

  /** Stages of this process whose rounds keep failing, or whose consumers were dropped from their group or stalled. */
  problems(): StageProblem[] {
    return [...this.health.values()].flatMap((h) => h.problems());
  }

  /** Each stage's health, its consumer's standing in its group included (for /metrics). */
  stageHealth(): readonly StageHealth[] {
    return [...this.health.values()];
  }

  get runsProcessing(): boolean {
    return this.config.roles.has('processor') && this.config.roles.has('projector');
  }

  /** The consumers this process should run, and whether each does; a projector paused for a replay counts as running. */
  stages(): StageState[] {
    // Stopped on purpose for a purge or a reset, which starts them again in a moment.
    if (this.fencing) return (['processor', 'projector', 'intelligence'] as const).filter((r) => this.config.roles.has(r)).map((role) => ({ role, running: true }));
    const configured: StageState[] = [];
    if (this.processor) configured.push({ role: 'processor', running: this.running.some((r) => r.stage === this.processor) });
    if (this.projector) configured.push({ role: 'projector', running: this.paused || this.running.some((r) => r.stage === this.projector) });
    if (this.intelligenceConsumer) configured.push({ role: 'intelligence', running: this.running.some((r) => r.stage === this.intelligenceConsumer) });
    return configured;
  }

  /** The alert hook dispatcher, where this process runs intelligence (for /metrics). */
  get alertHooks(): AlertHookDispatcher | null {
    return this.hookDispatcher;
  }

  counters(): { processor: ProcessorStatus | null; projector: ProjectorStatus | null } {
    return { processor: this.processor?.status() ?? null, projector: this.projector?.status() ?? null };
  }

  /** The definitions generation this process's stages run (src/definitions/generations.ts), as the pointer named it at their start. */
  private live: { readonly n: number; readonly values: DefinitionValues | null } = { n: 0, values: null };

  get generation(): number {
    return this.live.n;
  }

  /** The live generation's topics and groups. */
  liveTopology(): Topology {
    return generationTopology(this.topology, this.live.n);
  }

  /** What a definitions preview builds its own stages from (src/definitions/preview.ts). */
  stageDeps(): StageDeps {
    const { config, log, store, topology, logger } = this;
    return { config, log, store, topology, logger, intelligence: this.intelligence, setAsideTally: this.setAsideTally, failpoints: this.failpoints };
  }

  /** Read-model versions of generations that are not live (held for a switch back, or previews): a replay leaves them. */
  async keptVersions(): Promise<ReadonlySet<number>> {
    const docs = await new Generations(this.store).all();
    return new Set(docs.filter((d) => d.state === 'held' || d.state === 'shadow').map((d) => d.readModelVersion));
  }

  /** The generation the pointer names, with its stored values (none for generation 0: the environment's). */
  private async readLive(): Promise<{ n: number; values: DefinitionValues | null }> {
    const n = (await new ReadModelSet(this.store).pointer()).generation;
    if (n === 0) return { n, values: null };
    const doc = await new Generations(this.store).get(n);
    if (!doc) throw new Error(`the read-model pointer names definitions generation ${n}, which has no stored definitions`);
    return { n, values: doc.values };
  }

  async start(): Promise<void> {
    const { config, log, store, logger } = this;
    this.live = await this.readLive();
    if (this.live.n !== 0) logger.info({ generation: this.live.n, ...this.live.values }, 'running definitions generation');
    const built = buildStages({ ...this.stageDeps(), generation: this.live });
    this.processor = built.processor;
    this.projector = built.projector;
    this.intelligenceConsumer = built.intelligence;
    const stages = [built.processor, built.projector, built.intelligence].filter((s): s is NonNullable<typeof s> => s !== null);
    for (const stage of stages) this.running.push({ stage, consumer: await runStage(log, stage, this.healthOf(stage)) });
    if (config.roles.has('intelligence')) {
      const { allowPrivate, retryBaseMs, retryWindowSec } = config.alertHooks;
      this.hookDispatcher = new AlertHookDispatcher(store, { allowPrivate, policy: { ...DEFAULT_RETRY_POLICY, baseMs: retryBaseMs, windowMs: retryWindowSec * 1000 } }, logger.child({ role: 'alert-hooks' }));
      await this.hookDispatcher.start();
    }
    if (this.processor) {
      this.ticker = new Ticker(log, this.topology.inbound, config.tickIntervalSec * 1000, logger.child({ role: 'ticker' }));
      this.ticker.start();
    }
  }

  /** Stops the consumers for good (shutdown); a purge or reset running stops at its next step and does not start them again. */
  async stop(): Promise<void> {
    this.closing = true;
    await this.fencing?.catch(() => undefined);
    await this.halt();
  }

  private async halt(): Promise<void> {
    await this.replay?.abort();
    this.ticker?.stop();
    // Intelligence first: its wait for the projector ends instead of holding the stop.
    await this.intelligenceConsumer?.stop();
    await this.hookDispatcher?.stop();
    this.hookDispatcher = null;
    for (const { consumer } of this.running.splice(0)) await consumer.stop();
    this.intelligenceConsumer = null;
    this.ticker = null;
    this.processor = null;
    this.projector = null;
    this.paused = false;
  }

  async resetAll(): Promise<ResetOutcome> {
    if (!this.runsProcessing) throw new Error('this process does not run both the processor and the projector');
    const previewing = (await new Generations(this.store).all()).find((g) => g.state === 'shadow');
    if (previewing) throw new PipelineBusyError(`definitions generation ${previewing.generation} is being previewed; apply or cancel it first`);
    // Fenced like a purge, without the drain: what is in the log is skipped anyway.
    return this.exclusive(async () => {
      try {
        await this.halt();
        return await this.dropEverything();
      } finally {
        await this.restart();
      }
    });
  }

  private async dropEverything(): Promise<ResetOutcome> {
    const skippedTo: Record<string, Record<number, number>> = {};
    for (const [group, topic] of [[this.topology.processorGroup, this.topology.inbound], [this.topology.projectorGroup, this.topology.sessionEvents]] as const) {
      const ends = await this.log.endOffsets(topic);
      await this.log.setGroupPosition(group, topic, { kind: 'offsets', offsets: ends });
      skippedTo[topic] = ends;
    }
    const models = new ReadModelSet(this.store);
    // Set-aside records go with the chat states they were decided against; alerts and analyses
    // with the sessions they were about (left, they stayed open on the floor until a sweep).
    // Every definitions generation but the first goes with its prefixed collections; the first is live again.
    const generationCollections = (await this.store.listCollections()).filter((n) => /^g\d+\./.test(n));
    const dropped = [...await models.allCollections(), ...generationCollections, GENERATIONS_COLLECTION, CHAT_STATE_COLLECTION, CHAT_LEDGER_COLLECTION, SET_ASIDE_COLLECTION, ALERTS_COLLECTION, ANALYSES_COLLECTION, EVENT_DIGESTS_COLLECTION, STATE_ROLLBACKS_COLLECTION, APPLIED_MARKS_COLLECTION, PROJECTOR_MARKS_COLLECTION, READ_MODEL_HEALS_COLLECTION];
    for (const name of dropped) await this.store.collection(name).drop();
    await models.resetPointer();
    this.logger.warn({ skippedTo }, 'pipeline reset: read models dropped, consumers moved past the existing log');
    return { droppedCollections: dropped, skippedTo };
  }

  /**
   * Runs `work` with this process's consumers stopped at a point where everything appended to
   * the log before the call has been applied: the processor is drained up to the inbound log's
   * end as it was at the call and stopped (with its ticker), then the projector is drained up to
   * every session event the processor wrote and stopped, with intelligence (its consumer and
   * its sweep). So no round is half way through a chat while `work` deletes it, none of them
   * writes back what it read before, and nothing already in the log reappears afterwards.
   * Whatever `work` does, the consumers start again (a restart that fails is retried in the
   * background until it goes through); records appended during the call are concurrent with it
   * and may land on either side. Ingest keeps accepting throughout.
   *
   * Refused with PipelineBusyError unless this process runs both the processor and the
   * projector, or while a replay (whose new read-model version would bring the data back),
   * another purge or a reset runs here; with DrainTimeoutError, changing nothing, when the
   * consumers do not catch up within `drainMs` (a stage whose rounds keep failing).
   *
   * The trade-off: only this process's consumers are fenced. In a deployment with several
   * processor or projector workers (Kafka), stopping ours hands our partitions to the others,
   * whose rounds go on and may write a purged chat back while `work` runs; the drain itself
   * waits on the groups' committed offsets, so it covers their earlier rounds, but not what
   * they do during the purge. Fencing them would take a flag in the store that their processor
   * and projector check before each round, which they do not today: purge a multi-worker
   * deployment with the other workers stopped (a full reset has the same limit). The
   * intelligence role is fenced here too; one running elsewhere only analyses sessions that
   * still exist, so it cannot bring a purged alert back (apart from an alert a manager
   * acknowledges in the instant between the purge's reads and its deletes).
   */
  async fenced<T>(work: () => Promise<T>, drainMs = FENCE_DRAIN_MS): Promise<T> {
    if (!this.runsProcessing) throw new PipelineBusyError('this process does not run both the processor and the projector (ROLES)');
    if (this.paused) throw new PipelineBusyError('a replay is running in this process; try again when it is done');
    return this.exclusive(async () => {
      const deadline = Date.now() + drainMs;
      // Nothing stopped yet: a drain that times out changes nothing.
      const t = this.liveTopology();
      await this.drained('processor', t.processorGroup, t.inbound, await this.log.endOffsets(t.inbound), deadline);
      try {
        this.ticker?.stop();
        await this.haltStage(this.processor);
        await this.drained('projector', t.projectorGroup, t.sessionEvents, await this.log.endOffsets(t.sessionEvents), deadline);
        await this.halt();
        return await work();
      } finally {
        await this.restart();
      }
    });
  }

  /** One fenced piece of work at a time, refused while closing; stop() waits for it. */
  private async exclusive<T>(work: () => Promise<T>): Promise<T> {
    if (this.closing) throw new PipelineBusyError('the pipeline is shutting down');
    if (this.fencing) throw new PipelineBusyError('a purge or reset is already running; try again when it is done');
    if (this.restarting) throw new PipelineBusyError('the consumers are being started again after a failed restart; try again when they run');
    const running = work();
    this.fencing = running;
    try {
      return await running;
    } finally {
      this.fencing = null;
    }
  }

  /** Waits until `group` has committed every offset below `ends` on `topic`. */
  async drained(role: string, group: string, topic: string, ends: Readonly<Record<number, number>>, deadline: number): Promise<void> {
    for (;;) {
      if (this.closing) throw new PipelineBusyError('the pipeline is shutting down');
      const committed = await this.log.committedOffsets(group, topic);
      const behind = Object.entries(ends).filter(([p, end]) => end > 0 && (committed[Number(p)] ?? 0) < end);
      if (behind.length === 0) return;
      if (Date.now() >= deadline) {
        throw new DrainTimeoutError(`the ${role} did not catch up with ${topic} in time (partitions ${behind.map(([p]) => p).join(', ')} behind); nothing was changed`);
      }
      await new Promise((r) => setTimeout(r, DRAIN_POLL_MS));
    }
  }

  /** Stops one stage's consumer, as pause() does the projector's. */
  private async haltStage(stage: Stage | null): Promise<void> {
    const i = this.running.findIndex((r) => r.stage === stage);
    const held = this.running[i];
    if (!held) return;
    this.running.splice(i, 1);
    await held.consumer.stop();
  }

  /**
   * Stops whatever still runs and starts every stage afresh (new caches), unless shutting down.
   * A start that fails (the store down) is retried in the background until it goes through, so
   * the consumers are never left stopped; the caller still hears of the first failure.
   */
  private async restart(): Promise<void> {
    const attempt = async (): Promise<void> => {
      await this.halt();
      if (!this.closing) await this.start();
    };
    try {
      await attempt();
    } catch (err) {
      this.logger.error({ err }, 'consumers did not start again; retrying');
      this.restarting = true;
      const retry = (): void => {
        setTimeout(() => {
          if (this.closing) {
            this.restarting = false;
            return;
          }
          attempt().then(
            () => {
              this.restarting = false;
              this.logger.warn('consumers started again');
            },
            (again: unknown) => {
              this.logger.error({ err: again }, 'consumers did not start again; retrying');
              retry();
            },
          );
        }, RESTART_RETRY_MS).unref();
      };
      retry();
      throw err;
    }
  }
}
