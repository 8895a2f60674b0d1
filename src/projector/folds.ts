// Pure folds from session events to read-model documents. A fold returns the document to
// store, or undefined when the event does not change it (already applied, or not its concern).
import { sessionAfter, type SessionEvent } from '../../machines/session-events.js';
import { MESSAGES, PAYMENTS, SESSIONS, type MessageDoc, type PaymentDoc, type ReadModel, type SessionDoc } from './read-models.js';

export interface DocTarget {
  readonly collection: ReadModel;
  readonly id: string;
}

export const messageDocId = (accountId: string, messageId: string): string => `${accountId}:${messageId}`;
export const paymentDocId = (accountId: string, paymentId: string): string => `${accountId}:${paymentId}`;

/** The documents an event touches. */
export function targetsOf(e: SessionEvent): DocTarget[] {
  const t: DocTarget[] = [];
  const session = sessionAfter(e);
  if (session) t.push({ collection: SESSIONS, id: session.sessionId });
  if (e.type === 'MessageRecorded' || e.type === 'MessageAttributed' || e.type === 'MessageDeleted') t.push({ collection: MESSAGES, id: messageDocId(e.accountId, e.data.messageId) });
  if (e.type === 'PaymentRecorded') t.push({ collection: PAYMENTS, id: paymentDocId(e.accountId, e.data.paymentId) });
  return t;
}

export function foldSession(doc: SessionDoc | undefined, e: SessionEvent): SessionDoc | undefined {
  if (doc && doc.lastSeq >= e.seq) return undefined;
  const session = sessionAfter(e);
  if (!session) return undefined;
  return { _id: session.sessionId, accountId: e.accountId, chatId: e.chatId, chatKey: e.chatKey, ...session, lastSeq: e.seq };
}

export function foldMessage(doc: MessageDoc | undefined, e: SessionEvent): MessageDoc | undefined {
  if (e.type === 'MessageDeleted') {
    // Deletions come from the account's own stream, so they may overtake their message.
    if (doc?.deleted) return undefined;
    if (doc) return { ...doc, deleted: true, deletedAt: e.data.deletedAt };
    return { _id: messageDocId(e.accountId, e.data.messageId), messageId: e.data.messageId, accountId: e.accountId, deleted: true, deletedAt: e.data.deletedAt, tombstone: true, lastSeq: 0 };
  }
  if (e.type === 'MessageAttributed') {
    // Its MessageRecorded has a lower sequence in the same chat, so the document exists.
    if (!doc || doc.lastSeq >= e.seq) return undefined;
    return { ...doc, chatterId: e.data.chatterId, lastSeq: e.seq };
  }
  if (e.type !== 'MessageRecorded') return undefined;
  if (doc && doc.lastSeq >= e.seq) return undefined;
  const d = e.data;
  return {
    _id: messageDocId(e.accountId, d.messageId),
    messageId: d.messageId,
    accountId: e.accountId,
    chatId: e.chatId,
    chatKey: e.chatKey,
    sessionId: d.sessionId,
    sender: d.sender,
    chatterId: d.chatterId,
    text: d.text,
    priceCents: d.priceCents,
    sentAt: d.sentAt,
    deleted: doc?.deleted ?? false,
    deletedAt: doc?.deletedAt ?? null,
    tombstone: false,
    lastSeq: e.seq,
  };
}

export function foldPayment(doc: PaymentDoc | undefined, e: SessionEvent): PaymentDoc | undefined {
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
    lastSeq: e.seq,
  };
}
