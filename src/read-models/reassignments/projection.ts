// Reassignments: one document per manager's reassignment of a payment's credit (or its undoing),
// with who, when, from whom, to whom and why: the list a manager reads back. Derived from what
// the payment's own document went through in the same event (payments/projection.ts), so "from"
// is the credit the payment had just before, whatever model or earlier reassignment gave it.
import type { Doc } from '../../adapters/store/store.js';
import type { SessionEvent } from '../../../machines/session-events.js';
import { PAYMENTS, REASSIGNMENTS } from '../names.js';
import { creditedChatter, paymentDocId, type PaymentDoc } from '../payments/projection.js';
import type { DocChange, DocumentProjection } from '../projection.js';

export interface ReassignmentDoc extends Doc {
  readonly accountId: string;
  readonly chatId: string;
  readonly paymentId: string;
  readonly grossCents: number;
  readonly paidAt: number;
  /** Credited before it; null: nobody. */
  readonly from: string | null;
  /** Credited after it; on an undo, the model's own credit again. */
  readonly to: string | null;
  readonly undo: boolean;
  readonly by: string;
  readonly at: number;
  readonly reason: string;
}

export function foldReassignment(doc: ReassignmentDoc | undefined, e: SessionEvent, changes: readonly DocChange[]): ReassignmentDoc | undefined {
  if (doc || e.type !== 'PaymentReassigned') return undefined;
  const id = paymentDocId(e.accountId, e.data.paymentId);
  const change = changes.find((c) => c.model === PAYMENTS && c.after._id === id);
  if (!change?.before) return undefined;
  const before = change.before as PaymentDoc;
  const after = change.after as PaymentDoc;
  return {
    _id: e.id, accountId: e.accountId, chatId: e.chatId, paymentId: e.data.paymentId, grossCents: after.grossCents, paidAt: after.paidAt,
    from: creditedChatter(before), to: creditedChatter(after), undo: e.data.chatterId === null, by: e.data.requestedBy, at: e.at, reason: e.data.reason,
  };
}

export const reassignments: DocumentProjection<ReassignmentDoc> = {
  name: REASSIGNMENTS,
  canHandle: (e) => e.type === 'PaymentReassigned',
  documentIds: (p) => [p.event.id],
  evolve: () => undefined,
  evolveFromChanges: (doc, p, changes) => foldReassignment(doc, p.event, changes),
  indexes: [
    // The list: newest first.
    { keys: { at: 1 } },
    // One payment's history.
    { keys: { accountId: 1, paymentId: 1 } },
  ],
};
