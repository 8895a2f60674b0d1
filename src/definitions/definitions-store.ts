// The definitions that shape history (issue 55): the session gap, the allowed lateness, the
// unanswered limit and the attribution lookback decide where sessions start and end, how they
// close and who is credited, once, when the processor steps a chat. A chat keeps the values it
// was first seen with (they are in its state), so a change reaches the chats first seen after it,
// and a report's figures can come from chats of every version up to its window's end. Each set
// the processor decides under is kept here as a numbered version, recorded when a processor
// starts with settings that differ from the latest (who: `environment`), so every report can name
// the versions its figures may have been decided under, and an explanation the chat's own.
import { DuplicateKeyError, type Collection, type Doc, type DocumentStore } from '../adapters/store/store.js';
import { ReadModelSet } from '../read-models/read-model-set.js';

export const DEFINITIONS_COLLECTION = 'definitions';

export interface DefinitionValues {
  readonly sessionIdleSec: number;
  readonly allowedLatenessSec: number;
  readonly unansweredCloseSec: number;
  readonly attributionLookbackSec: number;
  /**
   * Business hours restated as of this time (epoch ms): every record received before it is
   * measured by the schedules in force then, so a schedule change reaches history. Set by a
   * preview that asks for it (`restateBusinessHours`); absent: each record by the schedule in
   * force when it was received.
   */
  readonly businessHoursRestatedAt?: number;
}

export interface DefinitionsDoc extends Doc {
  readonly version: number;
  readonly values: DefinitionValues;
  /** When a processor first decided under it (epoch ms). */
  readonly since: number;
  /** Who made it: `environment` (a processor started with these settings), or `admin:<key>` (a preview). */
  readonly recordedBy: string;
  /** The definitions generation it was proposed for (./generations.ts); absent: the first, from the environment. */
  readonly generation?: number;
}

/** A version: chats first seen from `since` until the next version's (null: still) start under it. */
export interface VersionInForce {
  readonly version: number;
  readonly since: number;
  readonly until: number | null;
  readonly recordedBy: string;
  readonly values: DefinitionValues;
}

/** Sortable by `_id`: versions in order. */
export const definitionsId = (version: number): string => `v${String(version).padStart(9, '0')}`;

const KEYS: readonly (keyof DefinitionValues)[] = ['sessionIdleSec', 'allowedLatenessSec', 'unansweredCloseSec', 'attributionLookbackSec'];
const same = (a: DefinitionValues, b: DefinitionValues): boolean => KEYS.every((k) => a[k] === b[k]);

/**
 * The versions a window's figures may have been decided under, oldest first: every version that
 * had begun before the window's end, since a chat keeps the version it was first seen under.
 * The first version stands for everything decided before it.
 */
export function inForce(docs: readonly DefinitionsDoc[], to: number, generation = 0): VersionInForce[] {
  // A later generation computed every chat again under its one version: that one is in force over any window.
  const sorted = docs.filter((d) => (d.generation ?? 0) === generation).sort((a, b) => a.version - b.version);
  return sorted
    .map((d, i) => ({ version: d.version, since: d.since, until: sorted[i + 1]?.since ?? null, recordedBy: d.recordedBy, values: d.values }))
    .filter((v, i) => i === 0 || v.since < to);
}

/** Read at most once per this many ms per process: reports ask on every request. */
const KEEP_MS = 2000;

export class DefinitionsStore {
  private readonly docs: Collection<DefinitionsDoc>;
  private kept: { at: number; docs: Promise<DefinitionsDoc[]> } | null = null;

  private readonly models: ReadModelSet;
  private liveKept: { at: number; generation: Promise<number> } | null = null;

  constructor(store: DocumentStore) {
    this.docs = store.collection<DefinitionsDoc>(DEFINITIONS_COLLECTION);
    this.models = new ReadModelSet(store);
  }

  /** The live definitions generation (the read-model pointer's), read at most once per KEEP_MS. */
  liveGeneration(now = Date.now()): Promise<number> {
    if (this.liveKept && now - this.liveKept.at < KEEP_MS) return this.liveKept.generation;
    const generation = this.models.pointer().then((p) => p.generation);
    this.liveKept = { at: now, generation };
    generation.catch(() => { this.liveKept = null; });
    return generation;
  }

  /** The versions in force over a window ending at `to`, in the live generation. */
  async inForceUntil(to: number): Promise<VersionInForce[]> {
    const [docs, generation] = await Promise.all([this.all(), this.liveGeneration()]);
    return inForce(docs, to, generation);
  }

  /** Every version, oldest first. */
  all(now = Date.now()): Promise<DefinitionsDoc[]> {
    if (this.kept && now - this.kept.at < KEEP_MS) return this.kept.docs;
    const docs = this.docs.find({ _id: { $gte: definitionsId(0) } }, { sort: { _id: 1 } });
    this.kept = { at: now, docs };
    docs.catch(() => { this.kept = null; });
    return docs;
  }

  /** The latest version with these values (a chat's own, named by its explanation); null when none has them. */
  async versionOf(values: DefinitionValues): Promise<number | null> {
    return (await this.all()).filter((d) => same(d.values, values)).at(-1)?.version ?? null;
  }

  /**
   * The version these values are: the latest when it has them, else a new one from `now`.
   * Processes starting together with other values race for the next number: the loser reads
   * again and compares with what won.
   */
  async record(values: DefinitionValues, now: number, recordedBy = 'environment'): Promise<DefinitionsDoc> {
    return this.insert(values, now, recordedBy, undefined);
  }

  /** A new version for definitions generation `generation` (a preview of changed definitions), whatever the latest's values. */
  propose(values: DefinitionValues, now: number, by: string, generation: number): Promise<DefinitionsDoc> {
    return this.insert(values, now, by, generation);
  }

  private async insert(values: DefinitionValues, now: number, recordedBy: string, generation: number | undefined): Promise<DefinitionsDoc> {
    for (let attempt = 0; attempt < 20; attempt++) {
      this.kept = null;
      const all = await this.all(now);
      const latestFirst = all.filter((d) => d.generation === undefined).at(-1);
      if (generation === undefined && latestFirst && same(latestFirst.values, values)) return latestFirst;
      const next = (all.at(-1)?.version ?? 0) + 1;
      const doc: DefinitionsDoc = { _id: definitionsId(next), version: next, values: { ...values }, since: now, recordedBy, ...(generation !== undefined ? { generation } : {}) };
      try {
        await this.docs.insertOne(doc);
        this.kept = null;
        return doc;
      } catch (err) {
        if (!(err instanceof DuplicateKeyError)) throw err;
      }
    }
    throw new Error('definitions: could not record a version after 20 attempts (other processes keep recording)');
  }
}
