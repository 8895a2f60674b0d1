// Definitions generations (issue 55). A change of definitions is not applied to the chats as
// they come: the whole history is computed again under the new values, beside the live one, and
// swapped in when it has caught up. Each such computation is a generation: the same processor
// and projector as ever, over the same `inbound` log, with its own chat states (a store prefix),
// its own session-events topic and consumer groups, its own read-model version and its own id tag
// (machines/chat-context.ts), so two generations never share a document, an offset or an id.
// Generation 0 is the deployment as it always was (no prefix, no tag); which generation is live is
// the read-model pointer's `generation`, written in the same document as its version, so the
// switch is one write.
import { withPrefix } from '../adapters/store/prefixed-store.js';
import type { Collection, Doc, DocumentStore } from '../adapters/store/store.js';
import type { Topology } from '../topology.js';
import type { DefinitionValues } from './definitions-store.js';

export const GENERATIONS_COLLECTION = 'definitions_generations';

/** Where generation `n` keeps its chat states and their bookkeeping (the processor's stateStore). */
export function generationStore(store: DocumentStore, n: number): DocumentStore {
  return withPrefix(store, n === 0 ? '' : `g${n}.`);
}

/** Generation `n`'s topics and groups: the deployment's own for 0, else `g<n>.`-named beside them over the same inbound. */
export function generationTopology(base: Topology, n: number): Topology {
  if (n === 0) return base;
  const prefix = base.sessionEvents.slice(0, -'session-events'.length);
  const g = `${prefix}g${n}.`;
  return {
    inbound: base.inbound,
    sessionEvents: `${g}session-events`,
    processorGroup: `${g}sessions`,
    projectorGroup: `${g}projections`,
    intelligenceGroup: `${g}projections-intelligence`,
  };
}

/** The id tag of generation `n`'s chats: none for 0, so the first generation's ids stay as they were. */
export const idTagOf = (n: number): string | undefined => (n === 0 ? undefined : `g${n}`);

/** An entry of a generation's audit trail: who did what, when. */
export interface GenerationAudit {
  readonly at: number;
  readonly by: string;
  readonly action: 'preview' | 'cancel' | 'apply' | 'switch-away' | 'drop' | 'fail' | 'resume';
  readonly detail?: string;
}

export interface GenerationProgress {
  /** Inbound records the generation's processor has still to step. */
  readonly recordsBehind: number;
  /** Session events its projector has still to fold. */
  readonly eventsBehind: number;
  /** Inbound records stepped since the preview (re)started, and events folded. */
  readonly recordsDone: number;
  readonly eventsDone: number;
  readonly startedAt: number;
  /** When it first had nothing left to do; null: not yet. */
  readonly caughtUpAt: number | null;
  readonly updatedAt: number;
}

/**
 * `shadow`: its processor and projector run beside the live ones (a preview); `held`: stopped,
 * kept (the live one, or one switched away from that can be switched back to); `dropped` and
 * `failed`: its data is gone. Which one is live is the pointer's, not this document's.
 */
export type GenerationState = 'shadow' | 'held' | 'dropped' | 'failed';

export interface GenerationFields {
  readonly generation: number;
  readonly definitionsVersion: number;
  readonly values: DefinitionValues;
  /** The read-model version it folds into (while live, the pointer's, which a replay moves). */
  readonly readModelVersion: number;
  readonly state: GenerationState;
  /** The live generation and definitions version when the preview started: applying it over any other is refused. */
  readonly basedOn: { readonly generation: number; readonly definitionsVersion: number };
  readonly createdAt: number;
  readonly createdBy: string;
  readonly progress: GenerationProgress | null;
  readonly audit: readonly GenerationAudit[];
  readonly error: string | null;
}

export type GenerationDoc = GenerationFields & Doc;

const idOf = (n: number): string => `g${String(n).padStart(9, '0')}`;

export class Generations {
  readonly docs: Collection<GenerationDoc>;

  constructor(store: DocumentStore) {
    this.docs = store.collection<GenerationDoc>(GENERATIONS_COLLECTION);
  }

  all(): Promise<GenerationDoc[]> {
    return this.docs.find({ _id: { $gte: idOf(0) } }, { sort: { _id: 1 } });
  }

  get(n: number): Promise<GenerationDoc | null> {
    return this.docs.findOne({ _id: idOf(n) });
  }

  async put(doc: GenerationFields): Promise<GenerationDoc> {
    const full: GenerationDoc = { ...doc, _id: idOf(doc.generation) };
    await this.docs.replaceOne({ _id: full._id }, full, { upsert: true });
    return full;
  }

  async update(n: number, set: Partial<Omit<GenerationFields, 'generation' | 'audit'>>, audit?: GenerationAudit): Promise<void> {
    const update: Record<string, unknown> = { $set: set };
    if (audit) update.$push = { audit };
    await this.docs.updateOne({ _id: idOf(n) }, update);
  }
}
