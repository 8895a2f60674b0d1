// The definitions that shape history (issue 55): the session gap, the allowed lateness, the
// unanswered limit and the attribution lookback decide where sessions start and end, how they
// close and who is credited, once, when the processor steps a chat. A change applies from then on
// only, so a report over a window that spans one mixes two definitions. Each set the processor
// decides under is kept here as a numbered version, recorded when a processor starts with
// settings that differ from the latest (who: `environment`), so every report can name the
// versions in force over its window and an explanation the version it re-decided under.
import { DuplicateKeyError, type Collection, type Doc, type DocumentStore } from '../adapters/store/store.js';

export const DEFINITIONS_COLLECTION = 'definitions';

export interface DefinitionValues {
  readonly sessionIdleSec: number;
  readonly allowedLatenessSec: number;
  readonly unansweredCloseSec: number;
  readonly attributionLookbackSec: number;
}

export interface DefinitionsDoc extends Doc {
  readonly version: number;
  readonly values: DefinitionValues;
  /** When a processor first decided under it (epoch ms). */
  readonly since: number;
  /** Who made it: `environment` (a processor started with these settings). */
  readonly recordedBy: string;
}

/** A version in force over part of a window: from `since` until the next version's (null: still). */
export interface VersionInForce {
  readonly version: number;
  readonly since: number;
  readonly until: number | null;
  readonly values: DefinitionValues;
}

/** Sortable by `_id`: versions in order. */
export const definitionsId = (version: number): string => `v${String(version).padStart(9, '0')}`;

const KEYS: readonly (keyof DefinitionValues)[] = ['sessionIdleSec', 'allowedLatenessSec', 'unansweredCloseSec', 'attributionLookbackSec'];
const same = (a: DefinitionValues, b: DefinitionValues): boolean => KEYS.every((k) => a[k] === b[k]);

/** The versions in force at some time in [from, to), oldest first (all of them for an open window). */
export function inForce(docs: readonly DefinitionsDoc[], from: number, to: number): VersionInForce[] {
  const sorted = [...docs].sort((a, b) => a.version - b.version);
  return sorted
    .map((d, i) => ({ version: d.version, since: d.since, until: sorted[i + 1]?.since ?? null, values: d.values }))
    // Before the first version, the first stands for what was decided (nothing older is known).
    .filter((v, i) => (v.until === null || v.until > from) && (i === 0 || v.since < to));
}

/** Read at most once per this many ms per process: reports ask on every request. */
const KEEP_MS = 2000;

export class DefinitionsStore {
  private readonly docs: Collection<DefinitionsDoc>;
  private kept: { at: number; docs: Promise<DefinitionsDoc[]> } | null = null;

  constructor(store: DocumentStore) {
    this.docs = store.collection<DefinitionsDoc>(DEFINITIONS_COLLECTION);
  }

  /** Every version, oldest first. */
  all(now = Date.now()): Promise<DefinitionsDoc[]> {
    if (this.kept && now - this.kept.at < KEEP_MS) return this.kept.docs;
    const docs = this.docs.find({ _id: { $gte: definitionsId(0) } }, { sort: { _id: 1 } });
    this.kept = { at: now, docs };
    docs.catch(() => { this.kept = null; });
    return docs;
  }

  /**
   * The version these values are: the latest when it has them, else a new one from `now`.
   * Processes starting together with other values race for the next number: the loser reads
   * again and compares with what won.
   */
  async record(values: DefinitionValues, now: number, recordedBy = 'environment'): Promise<DefinitionsDoc> {
    for (let attempt = 0; attempt < 20; attempt++) {
      this.kept = null;
      const latest = (await this.all(now)).at(-1);
      if (latest && same(latest.values, values)) return latest;
      const doc: DefinitionsDoc = { _id: definitionsId((latest?.version ?? 0) + 1), version: (latest?.version ?? 0) + 1, values: { ...values }, since: now, recordedBy };
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
