// Recompute, preview, apply (issue 55): a definitions change runs the whole `inbound` log again
// through the same processor and projector, as a new generation beside the live one
// (./generations.ts), into its own chat states, session-events topic and read-model version.
// One preview at a time. It gives way to the live pipeline (its consumers stop while the live
// processor is more than `giveWayRecords` behind), reports its progress, can be cancelled,
// resumes after a restart, and when it has caught up can be applied: with the live consumers
// drained and stopped, the preview's are drained to the log's end and stopped, and one write of
// the read-model pointer makes its version and its generation live together. The generation
// switched away from is kept, so applying it again (after a preview brings it up to date)
// undoes the switch; dropping it frees its space.
import type { Log, Consumer, RecordBatch } from './adapters/log/log.js';
import type { DocumentStore } from './adapters/store/store.js';
import { FENCE_DRAIN_MS, type PipelineControl } from './pipeline-control.js';
import { generationProcessor, generationProjector } from './pipeline-stages.js';
import { runStage, type Stage } from './pipeline/stage.js';
import { ProjectionProgress } from './projector/progress.js';
import { CHAT_LEDGER_COLLECTION } from './processor/chat-ledger.js';
import { CHAT_STATE_COLLECTION } from './processor/chat-state.js';
import { APPLIED_MARKS_COLLECTION, STATE_ROLLBACKS_COLLECTION } from './processor/rollback.js';
import { SET_ASIDE_COLLECTION } from './pipeline/set-aside.js';
import { ReadModelSet } from './read-models/read-model-set.js';
import type { Logger } from './support/logger.js';
import type { Topology } from './topology.js';
import { DefinitionsStore, type DefinitionValues } from './definitions/definitions-store.js';
import { Generations, generationTopology, type GenerationDoc, type GenerationProgress } from './definitions/generations.js';

/** Why a preview request was refused; nothing was changed. The route answers 409 (400 for `INVALID_DEFINITIONS`). */
export type PreviewRefusal = 'INVALID_DEFINITIONS' | 'PREVIEW_RUNNING' | 'NOT_CAUGHT_UP' | 'STALE_BASE' | 'GENERATION_LIVE' | 'NOT_A_PREVIEW' | 'PIPELINE_BUSY';

export class PreviewRefused extends Error {
  constructor(readonly reason: PreviewRefusal, message: string) {
    super(message);
    this.name = 'PreviewRefused';
  }
}

export class GenerationNotFound extends Error {
  constructor(n: number) {
    super(`definitions generation ${n} does not exist`);
    this.name = 'GenerationNotFound';
  }
}

/** What a definitions change may set, with the environment's bounds (config.ts). */
/** The definitions given in whole seconds (the restatement time is not one). */
export type DefinitionSeconds = Exclude<keyof DefinitionValues, 'businessHoursRestatedAt'>;

export const DEFINITION_BOUNDS: Readonly<Record<DefinitionSeconds, readonly [number, number]>> = {
  sessionIdleSec: [1, 30 * 86_400],
  allowedLatenessSec: [0, 7 * 86_400],
  unansweredCloseSec: [0, 365 * 86_400],
  attributionLookbackSec: [60, 30 * 86_400],
};

/** Values in range and consistent, or the reason naming the field. */
export function definitionsProblem(v: DefinitionValues): string | null {
  for (const [k, [min, max]] of Object.entries(DEFINITION_BOUNDS) as [DefinitionSeconds, readonly [number, number]][]) {
    const x = v[k];
    if (!Number.isInteger(x) || x < min || x > max) return `${k}: must be a whole number of seconds from ${min} to ${max} (got ${x})`;
  }
  if (v.allowedLatenessSec >= v.sessionIdleSec) return `allowedLatenessSec: must be less than sessionIdleSec (${v.allowedLatenessSec} >= ${v.sessionIdleSec})`;
  return null;
}

export interface PreviewLimits {
  /** How often progress is measured and stored. */
  readonly pollMs?: number;
  /** Caught up: no more than this many inbound records and session events left to fold. */
  readonly caughtUpRecords?: number;
  /** The preview's consumers stop while the live processor is more than this many records behind, and start again below half. */
  readonly giveWayRecords?: number;
  /** How long one of a preview's rounds should hold the event loop (the embedded log sizes them to it). */
  readonly roundMs?: number;
}

const DEFAULTS: Required<PreviewLimits> = { pollMs: 1_000, caughtUpRecords: 1_000, giveWayRecords: 5_000, roundMs: 50 };

/**
 * Sizes a stage's rounds to take about `targetMs` each: after every round, records per
 * partition go to what the last round's rate says fits (halfway there, so one slow round
 * does not collapse the size), between 5 and 1,000.
 */
class RoundSizer {
  perPartition = 50;

  constructor(private readonly targetMs: number) {}

  timing<S extends Stage>(stage: S): Stage {
    const handleBatch = async (batches: readonly RecordBatch[]): Promise<void> => {
      const t = performance.now();
      await stage.handleBatch(batches);
      const ms = performance.now() - t;
      const largest = Math.max(1, ...batches.map((b) => b.records.length));
      // Only a full round says how many fit; a short one (the end of the log) says nothing.
      if (largest < this.perPartition && ms < this.targetMs) return;
      const fits = (largest * this.targetMs) / Math.max(1, ms);
      this.perPartition = Math.max(5, Math.min(1_000, Math.round((this.perPartition + fits) / 2)));
    };
    return {
      role: stage.role, group: stage.group, topics: stage.topics, startFrom: stage.startFrom,
      prepare: () => stage.prepare?.() ?? Promise.resolve(),
      handleBatch,
      failed: (err, batches) => stage.failed?.(err, batches),
      ...(stage.idle ? { idle: () => (stage.idle as () => Promise<boolean>).call(stage), idleEveryMs: stage.idleEveryMs ?? 1_000 } : {}),
    };
  }
}

interface Shadow {
  readonly n: number;
  readonly version: number;
  readonly values: DefinitionValues | null;
  consumers: Consumer[];
  timer: NodeJS.Timeout | null;
  polling: Promise<void> | null;
  yielding: boolean;
  readonly startedAt: number;
  startRecords: number | null;
  startEvents: number | null;
  caughtUpAt: number | null;
}

const sumBehind = (ends: Readonly<Record<number, number>>, committed: Readonly<Record<number, number>>): number =>
  Object.entries(ends).reduce((s, [p, end]) => s + Math.max(0, end - (committed[Number(p)] ?? 0)), 0);
const sumOf = (o: Readonly<Record<number, number>>): number => Object.values(o).reduce((s, x) => s + x, 0);

export class DefinitionsPreviews {
  private readonly generations: Generations;
  private readonly definitions: DefinitionsStore;
  private readonly models: ReadModelSet;
  private readonly limits: Required<PreviewLimits>;
  private shadow: Shadow | null = null;
  /** A request that changes generations (propose, apply, cancel, resume): one at a time in this process. */
  private busy: Promise<unknown> | null = null;

  constructor(
    private readonly control: PipelineControl,
    private readonly store: DocumentStore,
    private readonly log: Log,
    private readonly topology: Topology,
    private readonly logger: Logger,
    limits: PreviewLimits = {},
    private readonly clock: () => number = Date.now,
  ) {
    this.generations = new Generations(store);
    this.definitions = new DefinitionsStore(store);
    this.models = new ReadModelSet(store);
    this.limits = { ...DEFAULTS, ...limits };
  }

  /** Resumes a preview a stopped process left running, and tidies a switch a stop cut short. */
  async start(): Promise<void> {
    if (!this.control.runsProcessing) return;
    const live = (await this.models.pointer()).generation;
    for (const d of await this.generations.all()) {
      if (d.state !== 'shadow') continue;
      if (d.generation === live) {
        // The pointer was written, the generation's own state not: it is live.
        await this.generations.update(d.generation, { state: 'held' }, { at: this.clock(), by: 'system', action: 'apply', detail: 'switch completed at start' });
        continue;
      }
      await this.generations.update(d.generation, { progress: null }, { at: this.clock(), by: 'system', action: 'resume', detail: 'the process running the preview stopped; resumed where it stood' });
      await this.run(d.generation, d.readModelVersion, d.generation === 0 ? null : d.values);
    }
  }

  /** Stops the preview's consumers (shutdown); it resumes at the next start. */
  async stop(): Promise<void> {
    await this.halt();
  }

  async list(): Promise<{ live: number; items: GenerationDoc[] }> {
    const [pointer, docs] = await Promise.all([this.models.pointer(), this.generations.all()]);
    return { live: pointer.generation, items: docs };
  }

  async get(n: number): Promise<GenerationDoc> {
    const d = await this.generations.get(n);
    if (!d) throw new GenerationNotFound(n);
    return d;
  }

  /** The live generation, its definitions version and values. */
  async live(): Promise<{ generation: number; definitionsVersion: number | null; values: DefinitionValues | null; readModelVersion: number }> {
    const pointer = await this.models.pointer();
    if (pointer.generation !== 0) {
      const d = await this.get(pointer.generation);
      return { generation: d.generation, definitionsVersion: d.definitionsVersion, values: d.values, readModelVersion: pointer.version };
    }
    const first = (await this.definitions.all()).filter((d) => d.generation === undefined).at(-1) ?? null;
    return { generation: 0, definitionsVersion: first?.version ?? null, values: first?.values ?? null, readModelVersion: pointer.version };
  }

  /** Starts a preview of the live definitions changed by `change`. */
  propose(request: Partial<DefinitionValues> & { readonly restateBusinessHours?: boolean }, by: string): Promise<GenerationDoc> {
    return this.exclusive(async () => {
      this.checkProcessing();
      await this.checkNoPreview();
      const live = await this.live();
      if (live.values === null || live.definitionsVersion === null) throw new PreviewRefused('PIPELINE_BUSY', 'no processor has recorded the live definitions yet; try again when the pipeline runs');
      const now = this.clock();
      const { restateBusinessHours, ...change } = request;
      // true: restated as of now (every record received before is measured by the schedules in
      // force now); false: not restated (each by the schedule in force when received); absent: as live.
      const { businessHoursRestatedAt: liveRestatedAt, ...liveValues } = live.values;
      const restatedAt = restateBusinessHours === true ? now : restateBusinessHours === false ? undefined : liveRestatedAt;
      const values: DefinitionValues = { ...liveValues, ...change, ...(restatedAt !== undefined ? { businessHoursRestatedAt: restatedAt } : {}) };
      const problem = definitionsProblem(values);
      if (problem) throw new PreviewRefused('INVALID_DEFINITIONS', problem);
      const docs = await this.generations.all();
      const n = Math.max(live.generation, ...docs.map((d) => d.generation)) + 1;
      const version = await this.freeVersion();
      const defs = await this.definitions.propose(values, now, by, n);
      await this.prepareGeneration(n, version);
      const doc = await this.generations.put({
        generation: n, definitionsVersion: defs.version, values, readModelVersion: version, state: 'shadow',
        basedOn: { generation: live.generation, definitionsVersion: live.definitionsVersion }, createdAt: now, createdBy: by, progress: null,
        audit: [{ at: now, by, action: 'preview', detail: JSON.stringify(request) }], error: null,
      });
      this.logger.info({ generation: n, definitionsVersion: defs.version, readModelVersion: version, by, ...values }, 'definitions preview started');
      await this.run(n, version, values);
      return doc;
    });
  }

  /** Brings a generation switched away from up to date again as a preview, so it can be applied back (an undo). */
  resume(n: number, by: string): Promise<GenerationDoc> {
    return this.exclusive(async () => {
      this.checkProcessing();
      const d = await this.get(n);
      const live = await this.live();
      if (n === live.generation) throw new PreviewRefused('GENERATION_LIVE', `generation ${n} is live; nothing to bring up to date`);
      if (d.state !== 'held') throw new PreviewRefused('NOT_A_PREVIEW', `generation ${n} is ${d.state}; only one kept after a switch can be brought up to date`);
      await this.checkNoPreview();
      const now = this.clock();
      await this.generations.update(n, { state: 'shadow', progress: null, basedOn: { generation: live.generation, definitionsVersion: live.definitionsVersion ?? 0 }, error: null }, { at: now, by, action: 'resume' });
      await this.prepareGeneration(n, d.readModelVersion);
      await this.run(n, d.readModelVersion, n === 0 ? null : d.values);
      return this.get(n);
    });
  }

  /** Stops a preview and drops it, or drops a generation kept after a switch; the live one is refused. */
  cancel(n: number, by: string): Promise<GenerationDoc> {
    return this.exclusive(async () => {
      const d = await this.get(n);
      if (n === (await this.models.pointer()).generation) throw new PreviewRefused('GENERATION_LIVE', `generation ${n} is live; apply another before dropping it`);
      if (d.state === 'dropped' || d.state === 'failed') return d;
      if (this.shadow?.n === n) await this.halt();
      await this.dropData(n, d.readModelVersion);
      await this.generations.update(n, { state: 'dropped' }, { at: this.clock(), by, action: d.state === 'shadow' ? 'cancel' : 'drop' });
      this.logger.info({ generation: n, by }, 'definitions generation dropped');
      return this.get(n);
    });
  }

  /** Makes a caught-up preview live (see the module comment). */
  apply(n: number, by: string): Promise<GenerationDoc> {
    return this.exclusive(async () => {
      this.checkProcessing();
      const d = await this.get(n);
      const live = await this.live();
      if (n === live.generation) throw new PreviewRefused('GENERATION_LIVE', `generation ${n} is already live`);
      if (d.state !== 'shadow' || this.shadow?.n !== n) throw new PreviewRefused('NOT_A_PREVIEW', `generation ${n} is ${d.state === 'shadow' ? 'not running in this process' : d.state}; only a running preview can be applied`);
      if (d.basedOn.generation !== live.generation || d.basedOn.definitionsVersion !== live.definitionsVersion) {
        throw new PreviewRefused('STALE_BASE', `the preview was built over generation ${d.basedOn.generation} (definitions version ${d.basedOn.definitionsVersion}), but generation ${live.generation} (version ${live.definitionsVersion}) is live now; cancel it and preview again`);
      }
      if (this.shadow.caughtUpAt === null) throw new PreviewRefused('NOT_CAUGHT_UP', `generation ${n} has not caught up with the log yet (GET its progress); apply it once caughtUpAt is set`);
      if (this.control.replay?.busy) throw new PreviewRefused('PIPELINE_BUSY', 'a replay is running; apply when it is done');
      const shadow = this.shadow;
      let switched = false;
      await this.control.fenced(async () => {
        const deadline = this.clock() + FENCE_DRAIN_MS;
        const t = generationTopology(this.topology, n);
        // No more measuring (and no giving way: the live consumers are stopped on purpose).
        if (shadow.timer) clearInterval(shadow.timer);
        shadow.timer = null;
        await shadow.polling;
        if (shadow.yielding) {
          shadow.yielding = false;
          await this.startConsumers(shadow);
        }
        // The live consumers are stopped: the preview takes up every record appended before this.
        await this.control.drained('preview processor', t.processorGroup, t.inbound, await this.log.endOffsets(t.inbound), deadline);
        await shadow.consumers[0]?.stop();
        await this.control.drained('preview projector', t.projectorGroup, t.sessionEvents, await this.log.endOffsets(t.sessionEvents), deadline);
        await this.halt();
        // Its alerts start from here: its history's sessions were analysed as they happened.
        await this.log.setGroupPosition(t.intelligenceGroup, t.sessionEvents, { kind: 'offsets', offsets: await this.log.endOffsets(t.sessionEvents) });
        const pointer = await this.models.pointer();
        const now = this.clock();
        await this.keepLive(live, pointer.version, by, now);
        const failpoints = this.control.stageDeps().failpoints;
        if (failpoints?.stallBeforeSwitchMs) await new Promise((r) => setTimeout(r, failpoints.stallBeforeSwitchMs));
        // The switch: one write names the new read-model version and the generation feeding it.
        await this.models.switchTo(d.readModelVersion, now, n);
        switched = true;
        if (failpoints?.stallAfterSwitchMs) await new Promise((r) => setTimeout(r, failpoints.stallAfterSwitchMs));
        await this.generations.update(n, { state: 'held' }, { at: now, by, action: 'apply', detail: `was generation ${live.generation}` });
      }).catch(async (err: unknown) => {
        if (switched) throw err;
        // Nothing switched: the preview goes on as it was.
        await this.halt();
        await this.run(n, d.readModelVersion, d.values === null || n === 0 ? null : d.values);
        throw new PreviewRefused('PIPELINE_BUSY', `not applied: ${err instanceof Error ? err.message : String(err)}`);
      });
      this.logger.warn({ generation: n, definitionsVersion: d.definitionsVersion, readModelVersion: d.readModelVersion, by }, 'definitions generation applied: it is live');
      return this.get(n);
    });
  }

  /** The generation switched away from stays, stopped where it stood, with the version it fed. */
  private async keepLive(live: Awaited<ReturnType<DefinitionsPreviews['live']>>, version: number, by: string, now: number): Promise<void> {
    const audit = { at: now, by, action: 'switch-away' as const };
    if (await this.generations.get(live.generation)) {
      await this.generations.update(live.generation, { state: 'held', readModelVersion: version }, audit);
      return;
    }
    await this.generations.put({
      generation: live.generation, definitionsVersion: live.definitionsVersion ?? 0, values: live.values as DefinitionValues, readModelVersion: version, state: 'held',
      basedOn: { generation: live.generation, definitionsVersion: live.definitionsVersion ?? 0 }, createdAt: now, createdBy: 'environment', progress: null, audit: [audit], error: null,
    });
  }

  private checkProcessing(): void {
    if (!this.control.runsProcessing) throw new PreviewRefused('PIPELINE_BUSY', 'this process does not run both the processor and the projector (ROLES); ask the one that does');
  }

  private async checkNoPreview(): Promise<void> {
    const running = (await this.generations.all()).find((d) => d.state === 'shadow');
    if (running) throw new PreviewRefused('PREVIEW_RUNNING', `generation ${running.generation} is being previewed; apply or cancel it first`);
  }

  private async exclusive<T>(work: () => Promise<T>): Promise<T> {
    if (this.busy) throw new PreviewRefused('PIPELINE_BUSY', 'another definitions request is in progress; try again in a moment');
    const running = work();
    this.busy = running;
    try {
      return await running;
    } finally {
      this.busy = null;
    }
  }

  /** A read-model version above every stored and held one. */
  private async freeVersion(): Promise<number> {
    const [pointer, stored, docs] = await Promise.all([this.models.pointer(), this.models.storedVersions(), this.generations.all()]);
    return Math.max(pointer.version, ...stored, ...docs.map((d) => d.readModelVersion)) + 1;
  }

  private async prepareGeneration(n: number, version: number): Promise<void> {
    const t = generationTopology(this.topology, n);
    const partitions = await this.log.partitionCount(t.inbound);
    await this.log.createTopics([{ name: t.sessionEvents, partitions }]);
    await this.models.ensureIndexes(version);
  }

  /** The generation's own collections and its read-model version. */
  private async dropData(n: number, version: number): Promise<void> {
    const names = n === 0
      ? [CHAT_STATE_COLLECTION, CHAT_LEDGER_COLLECTION, APPLIED_MARKS_COLLECTION, STATE_ROLLBACKS_COLLECTION, SET_ASIDE_COLLECTION]
      : (await this.store.listCollections()).filter((c) => c.startsWith(`g${n}.`));
    for (const c of names) await this.store.collection(c).drop();
    await this.models.dropVersion(version);
  }

  private async run(n: number, version: number, values: DefinitionValues | null): Promise<void> {
    this.shadow = { n, version, values, consumers: [], timer: null, polling: null, yielding: false, startedAt: this.clock(), startRecords: null, startEvents: null, caughtUpAt: null };
    await this.startConsumers(this.shadow);
    const shadow = this.shadow;
    shadow.timer = setInterval(() => {
      shadow.polling ??= this.poll(shadow).catch((err: unknown) => this.logger.warn({ err, generation: n }, 'preview progress not measured')).finally(() => { shadow.polling = null; });
    }, this.limits.pollMs);
    shadow.timer.unref();
  }

  private async startConsumers(s: Shadow): Promise<void> {
    const deps = this.control.stageDeps();
    const logger = this.logger.child({ generation: s.n });
    const processor = generationProcessor(deps, s.n, s.values, logger.child({ role: 'preview-processor' }));
    const projector = generationProjector(deps, s.n, new ProjectionProgress(), logger.child({ role: 'preview-projector' }), s.version);
    // Rounds sized to a time: a preview shares the event loop with the API and the live pipeline.
    s.consumers = [];
    for (const stage of [processor, projector]) {
      const size = new RoundSizer(this.limits.roundMs);
      s.consumers.push(await runStage(this.log, size.timing(stage), undefined, () => size.perPartition));
    }
  }

  private async halt(): Promise<void> {
    const s = this.shadow;
    if (!s) return;
    this.shadow = null;
    if (s.timer) clearInterval(s.timer);
    await s.polling;
    for (const c of s.consumers.splice(0)) await c.stop();
  }

  /** Measures and stores the preview's progress, and gives way to the live processor when it falls behind. */
  private async poll(s: Shadow): Promise<void> {
    const t = generationTopology(this.topology, s.n);
    const live = this.control.liveTopology();
    const [inboundEnds, done, eventEnds, folded, liveDone] = await Promise.all([
      this.log.endOffsets(t.inbound), this.log.committedOffsets(t.processorGroup, t.inbound),
      this.log.endOffsets(t.sessionEvents), this.log.committedOffsets(t.projectorGroup, t.sessionEvents),
      this.log.committedOffsets(live.processorGroup, live.inbound),
    ]);
    if (this.shadow !== s) return;
    s.startRecords ??= sumOf(done);
    s.startEvents ??= sumOf(folded);
    const recordsBehind = sumBehind(inboundEnds, done);
    const eventsBehind = sumBehind(eventEnds, folded);
    const now = this.clock();
    if (s.caughtUpAt === null && recordsBehind + eventsBehind <= this.limits.caughtUpRecords) s.caughtUpAt = now;
    const liveBehind = sumBehind(inboundEnds, liveDone);
    if (!s.yielding && liveBehind > this.limits.giveWayRecords) {
      s.yielding = true;
      this.logger.info({ generation: s.n, liveBehind }, 'preview gives way: the live processor is behind');
      for (const c of s.consumers.splice(0)) await c.stop();
    } else if (s.yielding && liveBehind <= this.limits.giveWayRecords / 2) {
      s.yielding = false;
      await this.startConsumers(s);
    }
    const progress: GenerationProgress = {
      recordsBehind, eventsBehind, recordsDone: sumOf(done) - s.startRecords, eventsDone: sumOf(folded) - s.startEvents,
      startedAt: s.startedAt, caughtUpAt: s.caughtUpAt, updatedAt: now,
    };
    await this.generations.update(s.n, { progress });
  }
}
