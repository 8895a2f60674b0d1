// PPVs: one document per priced or queued send of an account, keyed by the message id as the
// messages are, and the unlock that bought it. The send is read from its message document as
// the messages projection (before this one) just left it, so the copies of a message (the
// connector's names the chatter, the webhook's the price) make one send whatever their order. The platform names the PPV an unlock bought only
// in its chat link (the normaliser reads it), and the send and the unlock come in any order, so
// both fold into the one document: whichever comes first makes it, the other fills it in. An
// unlock whose send convops never saw keeps a document with no send; an unlock whose link names
// no PPV of this chat keeps one of its own, keyed by the notification, so every unlock is
// counted once and none is dropped.
//
// Every fact folds by value (the send's as the platform said it, the earliest unlock), so a
// redelivered event, a replay or any arrival order leaves the same document.
import type { Doc } from '../../adapters/store/store.js';
import type { MessageSender } from '../../../machines/chat-input.js';
import type { SessionEvent } from '../../../machines/session-events.js';
import type { MessageDoc } from '../messages/projection.js';
import { MESSAGES, PPVS } from '../names.js';
import type { DocChange, DocumentProjection } from '../projection.js';

export interface PpvSend {
  readonly sentAt: number;
  readonly sender: Exclude<MessageSender, 'fan'>;
  readonly chatterId: string | null;
  /** The mass message or queue it came from; absent for a direct send. */
  readonly queueId?: string;
  /** 0 for a free (queued) send. */
  readonly priceCents: number;
  /** Not a PPV: neither priced nor said to be not free (a campaign's free send). */
  readonly free: boolean;
}

export interface PpvUnlock {
  readonly unlockedAt: number;
  /** The amount the notification showed (display text read as cents); null when unreadable. */
  readonly amountCents: number | null;
}

export interface PpvDoc extends Doc {
  readonly accountId: string;
  readonly chatId: string;
  /** The PPV's message id; null for an unlock whose link names none (see `unlinked`). */
  readonly messageId: string | null;
  readonly send?: PpvSend;
  readonly unlock?: PpvUnlock;
  /** Why an unlock names no PPV: no readable link, or a link to another fan's chat. */
  readonly unlinked?: 'no-link' | 'other-chat';
  /** Copies of `send.sentAt` and `unlock.unlockedAt`, indexed: a report's partial ends read them. */
  readonly sentAt?: number;
  readonly unlockedAt?: number;
}

export const ppvDocId = (accountId: string, messageId: string): string => `${accountId}:${messageId}`;
/** An unlinked unlock's own document, by its notification id ('~' is never in a message id). */
export const unlinkedDocId = (accountId: string, refId: string): string => `${accountId}:~${refId}`;

/** A send worth a document: priced (a PPV), or sent from a queue (a campaign reaches its fans with free sends too). */
export function isPpvOrQueued(d: { sender: MessageSender; priceCents: number; isFree?: boolean; queueId?: string }): boolean {
  return d.sender !== 'fan' && (d.priceCents > 0 || d.isFree === false || d.queueId !== undefined);
}

function sameSend(a: PpvSend | undefined, b: PpvSend): boolean {
  return a !== undefined && a.sentAt === b.sentAt && a.sender === b.sender && a.chatterId === b.chatterId && a.queueId === b.queueId && a.priceCents === b.priceCents && a.free === b.free;
}

function withSend(doc: PpvDoc | undefined, base: Pick<PpvDoc, '_id' | 'accountId' | 'chatId' | 'messageId'>, send: PpvSend): PpvDoc | undefined {
  if (sameSend(doc?.send, send)) return undefined;
  return { ...(doc ?? base), send, sentAt: send.sentAt };
}

function withUnlock(doc: PpvDoc | undefined, base: PpvDoc, unlock: PpvUnlock): PpvDoc | undefined {
  const had = doc?.unlock;
  // The earliest notification of the unlock stands (a second one about the same PPV is the same sale).
  if (had && (had.unlockedAt < unlock.unlockedAt || (had.unlockedAt === unlock.unlockedAt && (had.amountCents ?? -1) >= (unlock.amountCents ?? -1)))) return undefined;
  return { ...(doc ?? base), unlock, unlockedAt: unlock.unlockedAt };
}

/** The send a message document describes, if it is a PPV or a queued send. */
export function sendOf(m: MessageDoc): PpvSend | undefined {
  if (m.tombstone || m.sentAt === undefined || m.sender === undefined || m.sender === 'fan') return undefined;
  const facts = { sender: m.sender, priceCents: m.priceCents ?? 0, ...(m.isFree !== undefined ? { isFree: m.isFree } : {}), ...(m.queueId !== undefined ? { queueId: m.queueId } : {}) };
  if (!isPpvOrQueued(facts)) return undefined;
  return {
    sentAt: m.sentAt, sender: m.sender, chatterId: m.chatterId ?? null, priceCents: facts.priceCents, free: !(facts.priceCents > 0 || m.isFree === false),
    ...(m.queueId !== undefined ? { queueId: m.queueId } : {}),
  };
}

/**
 * Folds an event with what it changed in the messages before (the send as its message document
 * now stands, whichever copies of it brought which facts), or the unlock it carries.
 */
export function foldPpv(doc: PpvDoc | undefined, e: SessionEvent, changes: readonly DocChange[]): PpvDoc | undefined {
  if (e.type === 'MessageRecorded' || e.type === 'MessageAttributed') {
    const id = ppvDocId(e.accountId, e.data.messageId);
    const message = changes.find((c) => c.model === MESSAGES && c.after._id === id)?.after as MessageDoc | undefined;
    const send = message === undefined ? undefined : sendOf(message);
    if (!send) return undefined;
    return withSend(doc, { _id: id, accountId: e.accountId, chatId: e.chatId, messageId: e.data.messageId }, send);
  }
  if (e.type !== 'FanSignalRecorded' || e.data.signal !== 'ppv-unlocked') return undefined;
  const d = e.data;
  const unlock: PpvUnlock = { unlockedAt: e.at, amountCents: d.amountCents };
  const ppv = d.ppv;
  if (ppv && 'messageId' in ppv) {
    return withUnlock(doc, { _id: ppvDocId(e.accountId, ppv.messageId), accountId: e.accountId, chatId: e.chatId, messageId: ppv.messageId }, unlock);
  }
  return withUnlock(doc, { _id: unlinkedDocId(e.accountId, d.refId), accountId: e.accountId, chatId: e.chatId, messageId: null, unlinked: ppv?.unlinked ?? 'no-link' }, unlock);
}

export const ppvs: DocumentProjection<PpvDoc> = {
  name: PPVS,
  canHandle: (e) => e.type === 'MessageRecorded' || e.type === 'MessageAttributed' || (e.type === 'FanSignalRecorded' && e.data.signal === 'ppv-unlocked'),
  documentIds: (p) => {
    const e = p.event;
    if (e.type === 'MessageRecorded') return e.data.sender !== 'fan' && isPpvOrQueued(e.data) ? [ppvDocId(e.accountId, e.data.messageId)] : [];
    // A later copy that brought a send's facts may make it a PPV; one that only names its chatter, a PPV's sender.
    if (e.type === 'MessageAttributed') return [ppvDocId(e.accountId, e.data.messageId)];
    if (e.type === 'FanSignalRecorded' && e.data.signal === 'ppv-unlocked') {
      const ppv = e.data.ppv;
      return [ppv && 'messageId' in ppv ? ppvDocId(e.accountId, ppv.messageId) : unlinkedDocId(e.accountId, e.data.refId)];
    }
    return [];
  },
  evolve: (doc, p) => foldPpv(doc, p.event, []),
  evolveFromChanges: (doc, p, changes) => foldPpv(doc, p.event, changes),
  indexes: [
    // Reports: sends and unlocks at a window's partial ends (report-buckets/edges.ts).
    { keys: { sentAt: 1 } },
    { keys: { unlockedAt: 1 } },
  ],
};
