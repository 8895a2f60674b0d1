// Records that made a step throw, set aside so processing goes on. A record the session
// machine (or the normaliser, or a projector fold) cannot take would otherwise fail its whole
// batch, and the consumer would retry it forever: the partition stalls, and a restart repeats
// it. Instead the record is kept here, with enough to find and read it, and counted.
//
// The document is written in the same store write as the batch's other results (chat states,
// read models), before them: once a state or read model has moved past the record, its
// document exists. Its id is the record's position, and it is written by an upsert that only
// inserts, so a redelivered batch writes the same document again (the decision is pure, so a
// redelivery or a re-derivation makes the same one) and the first one stays as it was.
import type { BulkOp, CollectionWrite, Doc } from '../adapters/store/store.js';

export const SET_ASIDE_COLLECTION = 'set_aside';

/**
 * On a record an admin put back into processing (POST /api/admin/set-aside/:id/retry): the id of
 * the set-aside record it retries. A copy appended anew, so processing takes it as new work; if
 * it is set aside again, its document names the one it retried (`retryOf`).
 */
export const RETRY_OF_HEADER = 'convops-retry-of';

/** How much of a record's body is kept: enough to recognise it, never the whole of a large one. */
export const SET_ASIDE_BODY_PREFIX_BYTES = 4096;
const ERROR_MAX_CHARS = 1000;

/**
 * Where it went wrong: normalising an inbound record, stepping its chat's machine, folding a
 * session event, or writing what a record produced (its round failed the same way twice, and so
 * did its own round: ./repeat-failures.ts), or a session event whose id came back
 * with other content than it first had ('conflict': ../projector/event-digests.ts).
 */
export type SetAsideStage = 'normalise' | 'step' | 'fold' | 'write' | 'conflict';

export interface SetAsideDoc extends Doc {
  /** `<topic>:<partition>:<offset>`; a clock tick steps many chats, so its entries add `|<chat key>`. */
  readonly _id: string;
  readonly stage: SetAsideStage;
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly chatKey: string | null;
  /** The inbound event name (`messages.received`, `chat.tick`, …) or the session event type. */
  readonly event: string | null;
  /** The error's message only: no stack, no input beyond the body prefix below. */
  readonly error: string;
  /** When ingest received the record (inbound records), else null. */
  readonly receivedAt: number | null;
  /** Wall time of the first decision (a redelivery keeps it); for operators, never for decisions. */
  readonly setAsideAt: number;
  readonly body: {
    readonly encoding: 'utf8' | 'base64';
    /** The first SET_ASIDE_BODY_PREFIX_BYTES bytes (fewer, to end on a whole UTF-8 character). */
    readonly prefix: string;
    readonly bytes: number;
    readonly truncated: boolean;
  };
  /** The set-aside record this one is a retry of (absent: not a retry). */
  readonly retryOf?: string;
  /** Stage 'conflict': the event id, this version's digest, and the first version's digest and position (read it from the log there). */
  readonly conflict?: { readonly eventId: string; readonly digest: string; readonly firstDigest: string; readonly firstPartition: number; readonly firstOffset: number };
  /** While an admin's retry of it is under way: when it started (a retry older than a minute is taken as dead). */
  readonly retryClaimedAt?: number | null;
}

export const SET_ASIDE_STAGES: readonly SetAsideStage[] = ['normalise', 'step', 'fold', 'write', 'conflict'];

/**
 * Records this process set aside, by stage, since it started (`convops_set_aside_total`): one
 * per decision stored by a live stage. A redelivered record its chat state already includes is
 * skipped before any decision, so it is not counted again; a replay's re-decisions are not counted.
 */
export class SetAsideTally {
  private readonly counts = new Map<SetAsideStage, number>();

  add(stage: SetAsideStage): void {
    this.counts.set(stage, (this.counts.get(stage) ?? 0) + 1);
  }

  get(stage: SetAsideStage): number {
    return this.counts.get(stage) ?? 0;
  }
}

export const setAsideId = (topic: string, partition: number, offset: number, chatKey?: string): string =>
  `${topic}:${partition}:${offset}${chatKey === undefined ? '' : `|${chatKey}`}`;

/** The message of whatever was thrown, bounded; never its stack. */
export function errorMessage(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : typeof err === 'string' ? err : 'a non-error value was thrown';
  return text.length > ERROR_MAX_CHARS ? `${text.slice(0, ERROR_MAX_CHARS)}…` : text;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** A bounded prefix of a body: UTF-8 text when it is text (cut on a character boundary), else base64. */
export function bodyPrefix(raw: Buffer | string): SetAsideDoc['body'] {
  const buf = typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw;
  const end = Math.min(buf.length, SET_ASIDE_BODY_PREFIX_BYTES);
  const truncated = buf.length > end;
  // A cut inside a multi-byte character leaves at most 3 bytes of it: try dropping them.
  for (let back = 0; back <= (truncated ? 3 : 0) && back <= end; back++) {
    try {
      return { encoding: 'utf8', prefix: strictUtf8.decode(buf.subarray(0, end - back)), bytes: buf.length, truncated };
    } catch {
      // not text at this length
    }
  }
  return { encoding: 'base64', prefix: buf.subarray(0, end).toString('base64'), bytes: buf.length, truncated };
}

/** Inserts each document unless one with its id exists (a redelivery's copy is the same decision). */
export function setAsideWrite(docs: readonly SetAsideDoc[]): CollectionWrite {
  return {
    collection: SET_ASIDE_COLLECTION,
    ops: docs.map(({ _id, ...rest }): BulkOp<Doc> => ({ updateOne: { filter: { _id }, update: { $setOnInsert: rest }, upsert: true } })),
  };
}
