// One id, one content. Event ids are `<chat key>:<seq>` and every document skips a sequence it
// has applied, so an id that comes back with other content (a processor that numbered a chat's
// events again from a rolled-back state) would be dropped without a trace: its message or
// payment never counted, while the documents disagree with one another. The projector keeps
// a digest of the content of every event id it takes (its first version, with its position)
// and compares each event of a round with it: an id seen before with another digest is a
// fault, set aside (stage 'conflict') with both digests and both positions (the first version
// is read from the log at its position; the body prefix is the second's) and never folded. A
// redelivery (same content) is not.
//
// Kept for EVENT_DIGESTS_KEEP_DAYS (30 by default), then trimmed (trimEventDigests). An id can
// come back with other content only from a processor that stepped a chat again from a state
// older than the one that first issued it: a store rolled back, or restored from a backup. A
// state older than the horizon is a backup older than any the operations guide has one restore
// (docs/operations.md), and the processor re-derives a rolled-back chat from the log before it
// numbers anything (docs/architecture.md); past the horizon, an id that came back would still be
// skipped by every document that applied it, only not reported.
//
// Cost: one read of the round's ids per round, and the new ones inserted in the round's own store
// write, ahead of the read models (so no document moves past an event whose digest is not
// stored; on MongoDB, where that write is not one transaction, a crash between the two leaves
// digests that the redelivery finds equal).
import { createHash } from 'node:crypto';
import type { CollectionWrite, Doc, DocumentStore } from '../adapters/store/store.js';
import { bodyPrefix, setAsideId, setAsideWrite, type SetAsideDoc } from '../pipeline/set-aside.js';
import type { Positioned } from '../read-models/projection.js';

export const EVENT_DIGESTS_COLLECTION = 'event_digests';

export interface EventDigestDoc extends Doc {
  /** The event id. */
  readonly _id: string;
  /** sha256 (base64url, 22 characters) of the event's content as the log holds it. */
  readonly d: string;
  /** Position of the first version in `session-events`. */
  readonly p: number;
  readonly o: number;
  /** When it was stored (epoch ms): what trimming goes by. Absent on digests stored before trimming; trims stamp them, a batch a round. */
  readonly at?: number;
}

/** The index trimming reads: oldest digests first. */
export const EVENT_DIGESTS_INDEX = { keys: { at: 1 } } as const;

/** A positioned event with the bytes the log held. */
export interface RawPositioned extends Positioned {
  readonly raw: Buffer;
}

const digestOf = (raw: Buffer): string => createHash('sha256').update(raw).digest('base64url').slice(0, 22);

/**
 * Splits a round's events into those to fold and those whose id came back with other content
 * (set aside), and gives the writes that store the digests of ids seen for the first time and
 * the set-aside documents: the caller makes them part of the round's one store write, ahead of
 * the read models (a commit of their own per round cost the embedded pipeline about half its
 * received → visible latency at 1,000 webhooks/s).
 */
export async function checkEventContent(store: DocumentStore, topic: string, events: readonly RawPositioned[]): Promise<{ fold: RawPositioned[]; conflicts: SetAsideDoc[]; writes: CollectionWrite[] }> {
  if (events.length === 0) return { fold: [], conflicts: [], writes: [] };
  const digests = store.collection<EventDigestDoc>(EVENT_DIGESTS_COLLECTION);
  const ids = [...new Set(events.map((e) => eventIdOf(e)).filter((id): id is string => id !== null))];
  const known = new Map<string, EventDigestDoc>();
  if (ids.length > 0) for (const d of await digests.find({ _id: { $in: ids } })) known.set(d._id, d);
  const fresh: EventDigestDoc[] = [];
  const storedAt = Date.now();
  const fold: RawPositioned[] = [];
  const conflicts: SetAsideDoc[] = [];
  for (const e of events) {
    const id = eventIdOf(e);
    if (id === null) {
      fold.push(e);
      continue;
    }
    const d = digestOf(e.raw);
    const first = known.get(id);
    if (!first) {
      const doc = { _id: id, d, p: e.partition, o: e.offset, at: storedAt };
      known.set(id, doc);
      fresh.push(doc);
      fold.push(e);
      continue;
    }
    // The same content again (a redelivery, a re-run after a crash), or this very record again.
    if (first.d === d || (first.p === e.partition && first.o === e.offset)) {
      fold.push(e);
      continue;
    }
    const ev = e.event as unknown as Record<string, unknown>;
    conflicts.push({
      _id: setAsideId(topic, e.partition, e.offset), stage: 'conflict', topic, partition: e.partition, offset: e.offset,
      chatKey: typeof ev.chatKey === 'string' ? ev.chatKey.slice(0, 300) : null, event: typeof ev.type === 'string' ? ev.type.slice(0, 100) : null,
      error: `event id ${id.slice(0, 300)} came back with different content: first at ${topic}:${first.p}:${first.o} (sha256 ${first.d}), this one sha256 ${d}; not folded`,
      receivedAt: null, setAsideAt: Date.now(), body: bodyPrefix(e.raw),
      conflict: { eventId: id.slice(0, 300), digest: d, firstDigest: first.d, firstPartition: first.p, firstOffset: first.o },
    });
  }
  const writes: CollectionWrite[] = [setAsideWrite(conflicts)];
  if (fresh.length > 0) {
    writes.push({ collection: EVENT_DIGESTS_COLLECTION, ops: fresh.map((document) => ({ insertOne: { document } })) });
  }
  return { fold, conflicts, writes: writes.filter((w) => w.ops.length > 0) };
}

function eventIdOf(p: Positioned): string | null {
  const id = (p.event as unknown as Record<string, unknown> | null)?.id;
  return typeof id === 'string' && id.length > 0 ? id : null;
}

/** Digests removed per trim at most: a round that trims stays a round's length. */
export const TRIM_BATCH = 5_000;

/**
 * Removes up to `TRIM_BATCH` digests stored before `before`, oldest first, and stamps up to as
 * many stored before trimming existed (no time: they go a horizon after they are stamped rather
 * than all at once). `more`: a batch was full, so there may be more of either.
 */
export async function trimEventDigests(store: DocumentStore, before: number, now: number): Promise<{ removed: number; more: boolean }> {
  const digests = store.collection<EventDigestDoc>(EVENT_DIGESTS_COLLECTION);
  const unstamped = await digests.find({ at: null }, { limit: TRIM_BATCH, projection: { _id: 1 } });
  if (unstamped.length > 0) await digests.bulkWrite(unstamped.map((d) => ({ updateOne: { filter: { _id: d._id, at: null }, update: { $set: { at: now } } } })));
  const old = await digests.find({ at: { $lt: before } }, { sort: { at: 1 }, limit: TRIM_BATCH, projection: { _id: 1 } });
  if (old.length > 0) await digests.deleteMany({ _id: { $in: old.map((d) => d._id) } });
  return { removed: old.length, more: old.length >= TRIM_BATCH || unstamped.length >= TRIM_BATCH };
}
