// A document projection: one read model folded document by document from session events, in
// the shape of emmett's and Pongo's projections. It says which events it takes, which
// documents an event touches, and how an event changes one of them; the runner (runner.ts)
// loads, evolves and writes. Its folder also holds its indexes' reasons and its named queries.
//
// Documents remember the last per-chat event sequence they applied, so a redelivered event
// changes nothing, and carry a revision (`_rev`) that every write is conditional on, so a
// projector that lost its partition cannot put back an older document.
import type { Doc, IndexSpec } from '../adapters/store/store.js';
import type { SessionEvent } from '../../machines/session-events.js';
import type { ReadModel } from './names.js';

/** An event with where it sits in `session-events`, for documents that count per partition. */
export interface Positioned {
  readonly event: SessionEvent;
  readonly partition: number;
  readonly offset: number;
}

/** The input record an event came from; events from before sources were recorded fall back to their own position. */
export function sourceOf(p: Positioned): { partition: number; offset: number } {
  return p.event.source ?? { partition: p.partition, offset: p.offset };
}

/** One document an event changed: what it was (undefined: new) and what it became. */
export interface DocChange<D extends Doc = Doc> {
  readonly model: ReadModel;
  readonly before: D | undefined;
  readonly after: D;
}

export interface DocumentProjection<D extends Doc> {
  /** The collection it writes (versioned by the read-model set). */
  readonly name: ReadModel;
  /** Whether the event touches any document of this read model. */
  canHandle(e: SessionEvent): boolean;
  /** The `_id`s of the documents the event touches (asked only when canHandle). */
  documentIds(p: Positioned): string[];
  /** A pure fold: the document to store, or undefined when the event does not change it (already applied, or not its concern). */
  evolve(doc: D | undefined, p: Positioned): D | undefined;
  /**
   * For a read model derived from others' changes (totals): folds the event together with what
   * it changed in the projections before this one. Used instead of evolve when present.
   */
  evolveFromChanges?(doc: D | undefined, p: Positioned, changes: readonly DocChange[]): D | undefined;
  /** Each serves a named query's filter and sort (see the read model's queries.ts). */
  readonly indexes: readonly IndexSpec[];
}

/** Any read model's projection, as the runner and the read-model set hold them. */
export type AnyProjection = DocumentProjection<Doc>;
