// The durable side of dedupe (machines/ledger.ts decides): every key and id a chat has taken
// in, one document each, written before the chat's state and visible only once a state that
// includes it is stored. A crash between the two leaves documents whose offset is past the
// stored state; they are ignored and written again, identically, when the record is re-run.
// So the ledger and the state move together without a transaction, on both stores.
import type { BulkOp, Collection, Doc, DocumentStore } from '../adapters/store/store.js';
import type { KnownId, Remembered } from '../../machines/ledger.js';

export const CHAT_LEDGER_COLLECTION = 'chat_ledger';

interface LedgerDoc extends Doc {
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

const docId = (chatKey: string, id: string): string => `${chatKey}|${id}`;

export class ChatLedger {
  private readonly docs: Collection<LedgerDoc>;

  constructor(store: DocumentStore) {
    this.docs = store.collection<LedgerDoc>(CHAT_LEDGER_COLLECTION);
  }

  /** One read for a whole batch: what each chat durably knows of the given ids. */
  async lookup(wanted: ReadonlyMap<string, readonly string[]>, positions: ReadonlyMap<string, StatePosition>): Promise<BatchLedger> {
    const ids: string[] = [];
    for (const [chatKey, list] of wanted) if (positions.has(chatKey)) for (const id of list) ids.push(docId(chatKey, id));
    const found = new Map<string, KnownId>();
    if (ids.length > 0) {
      for (const d of await this.docs.find({ _id: { $in: ids } })) {
        const at = positions.get(d.chatKey);
        if (!at || d.partition !== at.partition || d.offset > at.offset) continue;
        const named = d.attributedOffset !== undefined && d.attributedOffset <= at.offset;
        found.set(d._id, { unattributed: d.unattributed && !named });
      }
    }
    return new BatchLedger(found);
  }

  async write(batch: BatchLedger): Promise<void> {
    const ops = batch.ops();
    if (ops.length > 0) await this.docs.bulkWrite(ops);
  }
}

/** The ledger as one batch sees it: what was stored, plus what this batch admitted so far. */
export class BatchLedger {
  private readonly added = new Map<string, { chatKey: string; partition: number; offset: number; unattributed: boolean; attributedOffset?: number }>();

  constructor(private readonly stored: Map<string, KnownId>) {}

  known(chatKey: string, id: string): KnownId | undefined {
    const key = docId(chatKey, id);
    const a = this.added.get(key);
    if (a) return { unattributed: a.unattributed && a.attributedOffset === undefined };
    return this.stored.get(key);
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
    return [...this.added].map(([_id, a]) => {
      // $setOnInsert: an entry left by an interrupted run of the same record is the same entry.
      const insert = a.offset < 0 ? {} : { $setOnInsert: { chatKey: a.chatKey, partition: a.partition, offset: a.offset, unattributed: a.unattributed } };
      const update = a.attributedOffset === undefined ? insert : { ...insert, $set: { attributedOffset: a.attributedOffset } };
      return { updateOne: { filter: { _id }, update, upsert: a.offset >= 0 } };
    });
  }
}
