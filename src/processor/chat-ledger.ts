// The durable side of dedupe (machines/dedupe.ts decides): every id a chat has taken in (one
// per record: a message's or payment's own id, any other record's key), one document each,
// written before the chat's state and visible only once a state that includes it is stored. A
// crash between the two leaves documents whose offset is past the stored state; they are
// ignored and written again, identically, when the record is re-run. So the ledger and the
// state move together without a transaction, on both stores.
import type { BulkOp, Collection, CollectionWrite, Doc, DocumentStore } from '../adapters/store/store.js';
import type { KnownId, Remembered } from '../../machines/dedupe.js';

export const CHAT_LEDGER_COLLECTION = 'chat_ledger';

export interface LedgerDoc extends Doc {
  readonly chatKey: string;
  readonly partition: number;
  /** The `inbound` offset of the record that first brought this id. */
  readonly offset: number;
  readonly unattributed: boolean;
  /** The offset of the copy that named the message's chatter. */
  readonly attributedOffset?: number;
  /** A send first taken in without its send facts (machines/dedupe.ts KnownId). Written only
   *  when true: absent, as in every document written before it, is not bare. */
  readonly bare?: boolean;
  /** The offset of the copy that brought the send facts of a bare send. */
  readonly factsOffset?: number;
}

/** Where a chat's stored state stands: ledger entries past it are not part of it yet. */
export interface StatePosition {
  readonly partition: number;
  readonly offset: number;
}

/** A ledger document's id: one per chat and id. */
export const ledgerDocId = (chatKey: string, id: string): string => `${chatKey}|${id}`;
const docId = ledgerDocId;

export class ChatLedger {
  private readonly docs: Collection<LedgerDoc>;

  constructor(store: DocumentStore) {
    this.docs = store.collection<LedgerDoc>(CHAT_LEDGER_COLLECTION);
  }

  /**
   * One read for a whole round: the entries of the given ids. It needs no chat state, so it
   * goes out alongside the states' read; `resolve` then judges the entries against them.
   */
  async fetch(wanted: ReadonlyMap<string, readonly string[]>): Promise<LedgerDoc[]> {
    const ids: string[] = [];
    for (const [chatKey, list] of wanted) for (const id of list) ids.push(docId(chatKey, id));
    return ids.length > 0 ? this.docs.find({ _id: { $in: ids } }) : [];
  }

  /** What each chat durably knows of the fetched ids (resolveLedger). */
  resolve(docs: readonly LedgerDoc[], positions: ReadonlyMap<string, StatePosition>): BatchLedger {
    return resolveLedger(docs, positions);
  }

  /** The batch's ledger writes, to go in the same store write as the chat states, before them. */
  writes(batch: BatchLedger): CollectionWrite {
    return { collection: CHAT_LEDGER_COLLECTION, ops: batch.ops() as BulkOp<Doc>[] };
  }
}

/** What each chat durably knows of the fetched ids: entries past its stored state do not count yet. */
export function resolveLedger(docs: readonly LedgerDoc[], positions: ReadonlyMap<string, StatePosition>): BatchLedger {
  const found = new Map<string, KnownId>();
  const existing = new Set<string>();
  for (const d of docs) {
    existing.add(d._id);
    const at = positions.get(d.chatKey);
    if (!at || d.partition !== at.partition || d.offset > at.offset) continue;
    const named = d.attributedOffset !== undefined && d.attributedOffset <= at.offset;
    const filled = d.factsOffset !== undefined && d.factsOffset <= at.offset;
    found.set(d._id, { unattributed: d.unattributed && !named, bare: d.bare === true && !filled });
  }
  return new BatchLedger(found, existing);
}

/** An entry as a batch keeps it: as first taken in, and the offsets of the copies that added to it. */
interface Entry {
  readonly chatKey: string;
  readonly partition: number;
  /** -1 for an entry already stored: only what this batch added to it is written. */
  readonly offset: number;
  readonly unattributed: boolean;
  readonly bare: boolean;
  readonly attributedOffset?: number;
  readonly factsOffset?: number;
}

const knownOf = (a: Entry): KnownId => ({ unattributed: a.unattributed && a.attributedOffset === undefined, bare: a.bare && a.factsOffset === undefined });

/** The ledger as one batch sees it: what was stored, plus what this batch admitted so far. */
export class BatchLedger {
  private readonly added = new Map<string, Entry>();

  constructor(private readonly stored: Map<string, KnownId>, private readonly existing: ReadonlySet<string> = new Set()) {}

  known(chatKey: string, id: string): KnownId | undefined {
    const key = docId(chatKey, id);
    const a = this.added.get(key);
    if (a) return knownOf(a);
    return this.stored.get(key);
  }

  /** A copy to admit into, leaving this one as it was: a round takes the facts it read as its input, not as its scratch. */
  fork(): BatchLedger {
    const copy = new BatchLedger(this.stored, this.existing);
    for (const [k, v] of this.added) copy.added.set(k, { ...v });
    return copy;
  }

  remember(chatKey: string, partition: number, offset: number, ids: readonly Remembered[]): void {
    for (const r of ids) {
      const key = docId(chatKey, r.id);
      const stored = this.stored.get(key);
      const seen = this.added.get(key) ?? (stored ? { chatKey, partition, offset: -1, ...stored } : undefined);
      if (!seen) {
        this.added.set(key, { chatKey, partition, offset, unattributed: r.unattributed, bare: r.bare });
        continue;
      }
      // A later copy: it names the chatter, brings the send facts, or both (dedupe.ts).
      const was = knownOf(seen);
      const named = was.unattributed && !r.unattributed;
      const filled = was.bare && !r.bare;
      if (named || filled) this.added.set(key, { ...seen, ...(named ? { attributedOffset: offset } : {}), ...(filled ? { factsOffset: offset } : {}) });
    }
  }

  ops(): BulkOp<LedgerDoc>[] {
    const ops: BulkOp<LedgerDoc>[] = [];
    for (const [_id, a] of this.added) {
      const fresh = a.offset >= 0;
      // An entry left by an interrupted run of the same record is the same entry: keep it.
      if (fresh && !this.existing.has(_id)) {
        const doc: LedgerDoc = {
          _id, chatKey: a.chatKey, partition: a.partition, offset: a.offset, unattributed: a.unattributed, ...(a.bare ? { bare: true } : {}), ...later(a),
        };
        ops.push({ insertOne: { document: doc } });
      } else if (a.attributedOffset !== undefined || a.factsOffset !== undefined) {
        ops.push({ updateOne: { filter: { _id }, update: { $set: later(a) } } });
      }
    }
    return ops;
  }
}

/** The offsets of the later copies that added to an entry. */
function later(a: Entry): Pick<LedgerDoc, 'attributedOffset' | 'factsOffset'> {
  return { ...(a.attributedOffset !== undefined ? { attributedOffset: a.attributedOffset } : {}), ...(a.factsOffset !== undefined ? { factsOffset: a.factsOffset } : {}) };
}
