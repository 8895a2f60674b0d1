// Payments: one document per payment of an account, credited to a session and chatter once
// the machine has placed it.
import type { Doc } from '../../adapters/store/store.js';
import type { PaymentKind } from '../../../machines/chat-input.js';
import type { SessionEvent } from '../../../machines/session-events.js';
import type { ModelCredits } from '../../../machines/credit-ledger.js';
import { PAYMENTS } from '../names.js';
import type { DocumentProjection } from '../projection.js';

export interface PaymentDoc extends Doc {
  readonly paymentId: string;
  readonly accountId: string;
  readonly chatId: string;
  readonly chatKey: string;
  readonly kind: PaymentKind;
  readonly grossCents: number;
  readonly netCents: number;
  readonly paidAt: number;
  readonly sessionId: string | null;
  readonly chatterId: string | null;
  /** Arrived later than the allowed lateness: counted as revenue, credited to nobody. */
  readonly late?: boolean;
  /** A manager's reassignment (PaymentReassigned): credited to its chatter whatever the model says, until undone. */
  readonly override?: PaymentOverride;
  /** The credit under the sender and converter models, with the rule that gave it (PaymentAttributed); absent: none (a late payment). */
  readonly models?: ModelCredits;
  readonly lastSeq: number;
}

export interface PaymentOverride {
  readonly chatterId: string;
  readonly by: string;
  readonly at: number;
  readonly reason: string;
}

/** The attribution models (docs/api.md, "Money"): `session` is the session's last human reply before the payment. */
export type CreditModel = 'session' | 'sender' | 'converter';
export const CREDIT_MODELS: readonly CreditModel[] = ['session', 'sender', 'converter'];
/**
 * Every model a report can be asked for: those the buckets keep per chatter, and `shift` (the
 * chatters clocked in on the account when it was paid), which is worked out at read time from the
 * window's payments and clock intervals (read-models/shift-credits.ts).
 */
export type AttributionModel = CreditModel | 'shift';

/** Who the payment is credited to under a model: the manager's reassignment, else the model's chatter. */
export const creditedChatter = (p: Pick<PaymentDoc, 'chatterId' | 'override' | 'models'>, model: CreditModel = 'session'): string | null =>
  p.override?.chatterId ?? (model === 'session' ? p.chatterId : p.models?.[model].chatterId ?? null);

export const paymentDocId = (accountId: string, paymentId: string): string => `${accountId}:${paymentId}`;

export function foldPayment(doc: PaymentDoc | undefined, e: SessionEvent): PaymentDoc | undefined {
  if (e.type === 'PaymentAttributed') {
    // Emitted after its PaymentRecorded, in the same chat.
    if (!doc || doc.lastSeq >= e.seq) return undefined;
    return { ...doc, models: { sender: e.data.sender, converter: e.data.converter }, lastSeq: e.seq };
  }
  if (e.type === 'PaymentReassigned') {
    // The route names only payments it found, and the command follows the payment in its chat.
    if (!doc || doc.lastSeq >= e.seq) return undefined;
    const { override: _undone, ...rest } = doc;
    const d = e.data;
    return d.chatterId === null ? { ...rest, lastSeq: e.seq } : { ...doc, override: { chatterId: d.chatterId, by: d.requestedBy, at: e.at, reason: d.reason }, lastSeq: e.seq };
  }
  if (e.type === 'PaymentCredited') {
    // Its PaymentRecorded has a lower sequence in the same chat, so the document exists.
    if (!doc || doc.lastSeq >= e.seq) return undefined;
    return { ...doc, sessionId: e.data.sessionId, chatterId: e.data.chatterId, lastSeq: e.seq };
  }
  if (e.type !== 'PaymentRecorded') return undefined;
  if (doc && doc.lastSeq >= e.seq) return undefined;
  const d = e.data;
  return {
    _id: paymentDocId(e.accountId, d.paymentId),
    paymentId: d.paymentId,
    accountId: e.accountId,
    chatId: e.chatId,
    chatKey: e.chatKey,
    kind: d.kind,
    grossCents: d.grossCents,
    netCents: d.netCents,
    paidAt: d.paidAt,
    sessionId: d.sessionId,
    chatterId: d.chatterId,
    late: d.late === true,
    ...(doc?.override ? { override: doc.override } : {}),
    ...(doc?.models ? { models: doc.models } : {}),
    lastSeq: e.seq,
  };
}

export const payments: DocumentProjection<PaymentDoc> = {
  name: PAYMENTS,
  canHandle: (e) => e.type === 'PaymentRecorded' || e.type === 'PaymentCredited' || e.type === 'PaymentReassigned' || e.type === 'PaymentAttributed',
  documentIds: (p) => {
    const e = p.event;
    if (e.type === 'PaymentRecorded' || e.type === 'PaymentCredited' || e.type === 'PaymentReassigned' || e.type === 'PaymentAttributed') return [paymentDocId(e.accountId, e.data.paymentId)];
    return [];
  },
  evolve: (doc, p) => foldPayment(doc, p.event),
  indexes: [
    // Reports: payments made at a window's partial ends (report-buckets/queries.ts).
    { keys: { paidAt: 1 } },
  ],
};
