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
    found.set(d._id, { unattributed: d.unattributed && !named });
  }
  return new BatchLedger(found, existing);
}

/** The ledger as one batch sees it: what was stored, plus what this batch admitted so far. */
export class BatchLedger {
  private readonly added = new Map<string, { chatKey: string; partition: number; offset: number; unattributed: boolean; attributedOffset?: number }>();

  constructor(private readonly stored: Map<string, KnownId>, private readonly existing: ReadonlySet<string> = new Set()) {}

  known(chatKey: string, id: string): KnownId | undefined {
    const key = docId(chatKey, id);
    const a = this.added.get(key);
    if (a) return { unattributed: a.unattributed && a.attributedOffset === undefined };
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
      const before = this.added.get(key);
      const seen = before ?? (this.stored.has(key) ? { chatKey, partition, offset: -1, unattributed: true } : undefined);
      if (seen && !r.unattributed) this.added.set(key, { ...seen, attributedOffset: offset });
      else if (!seen) this.added.set(key, { chatKey, partition, offset, unattributed: r.unattributed });
    }
  }

  ops(): BulkOp<LedgerDoc>[] {
    const ops: BulkOp<LedgerDoc>[] = [];
    for (const [_id, a] of this.added) {
      const fresh = a.offset >= 0;
      // An entry left by an interrupted run of the same record is the same entry: keep it.
      if (fresh && !this.existing.has(_id)) {
        const doc: LedgerDoc = { _id, chatKey: a.chatKey, partition: a.partition, offset: a.offset, unattributed: a.unattributed, ...(a.attributedOffset !== undefined ? { attributedOffset: a.attributedOffset } : {}) };
        ops.push({ insertOne: { document: doc } });
      } else if (a.attributedOffset !== undefined) {
        ops.push({ updateOne: { filter: { _id }, update: { $set: { attributedOffset: a.attributedOffset } } } });
      }
    }
    return ops;
  }
}
