// Pure folds from session events to read-model documents. A fold returns the document to
// store, or undefined when the event does not change it (already applied, or not its concern).
import { sessionAfter, type SessionEvent } from '../../machines/session-events.js';
import { ACCOUNT_STATS, CHATS, MESSAGES, PAYMENTS, SESSIONS, type AccountStatsDoc, type ChatDoc, type MessageDoc, type PaymentDoc, type ReadModel, type SessionDoc } from './read-models.js';
import { priorityAt } from './priority.js';

/** Account-wide events (deletions, account status) use this chat id; it is not a fan's chat. */
const ACCOUNT_CHAT = '_account';

/** An event with where it sits in `session-events`, for documents that count per partition. */
export interface Positioned {
  readonly event: SessionEvent;
  readonly partition: number;
  readonly offset: number;
}

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
  if (e.type === 'MessageRecorded' || e.type === 'MessageAttributed' || e.type === 'MessageMoved' || e.type === 'MessageDeleted') t.push({ collection: MESSAGES, id: messageDocId(e.accountId, e.data.messageId) });
  if (e.type === 'PaymentRecorded' || e.type === 'PaymentCredited') t.push({ collection: PAYMENTS, id: paymentDocId(e.accountId, e.data.paymentId) });
  if (e.chatId !== ACCOUNT_CHAT) t.push({ collection: CHATS, id: e.chatKey });
  return t;
}

export const accountStatsDocId = (accountId: string, partition: number): string => `${accountId}#${partition}`;

/** The input record an event came from; events from before sources were recorded fall back to their own position. */
export function sourceOf(p: Positioned): { partition: number; offset: number } {
  return p.event.source ?? { partition: p.partition, offset: p.offset };
}

/** Every document a positioned event touches, including its account's row for its partition. */
export function positionedTargets(p: Positioned): DocTarget[] {
  return [...targetsOf(p.event), { collection: ACCOUNT_STATS, id: accountStatsDocId(p.event.accountId, sourceOf(p).partition) }];
}

function isLate(e: SessionEvent): boolean {
  return (e.type === 'MessageRecorded' || e.type === 'PaymentRecorded' || e.type === 'FanSignalRecorded') && e.data.late === true;
}

function reportedSpend(e: SessionEvent): number | null | undefined {
  return e.type === 'MessageRecorded' || e.type === 'PaymentRecorded' || e.type === 'FanSignalRecorded' ? e.data.fanSpendCents : undefined;
}

export function foldSession(doc: SessionDoc | undefined, e: SessionEvent): SessionDoc | undefined {
  if (doc && doc.lastSeq >= e.seq) return undefined;
  const session = sessionAfter(e);
  if (!session) return undefined;
  // Summaries carry the spend since events record order-independent figures; older ones did not.
  const fanSpendCents = session.fanSpendCents ?? reportedSpend(e) ?? doc?.fanSpendCents ?? null;
  return {
    _id: session.sessionId, accountId: e.accountId, chatId: e.chatId, chatKey: e.chatKey, ...session,
    fanSpendCents, priorityAt: priorityAt(session, fanSpendCents), lastSeq: e.seq,
  };
}

function emptyChat(e: SessionEvent): ChatDoc {
  return {
    _id: e.chatKey, accountId: e.accountId, chatId: e.chatId, chatKey: e.chatKey, firstSeenAt: e.at, lastActivityAt: e.at,
    lastMessageAt: null, lastMessageId: null, lastMessageText: null, lastSender: null, messageCount: 0, fanMessageCount: 0, sessionCount: 0,
    openSessionId: null, awaiting: false, waitingSince: null, paidCents: 0, paymentCount: 0, lastPaymentAt: null,
    fanSpendCents: null, lifetimeSpendCents: null, lateRecords: 0, lastSeq: 0,
  };
}

export function lifetimeSpend(fanSpendCents: number | null, paidCents: number): number | null {
  if (fanSpendCents === null && paidCents === 0) return null;
  return Math.max(fanSpendCents ?? 0, paidCents);
}

export function foldChat(doc: ChatDoc | undefined, e: SessionEvent): ChatDoc | undefined {
  const next = foldChatCounts(doc, e);
  return next && { ...next, lifetimeSpendCents: lifetimeSpend(next.fanSpendCents, next.paidCents) };
}

function foldChatCounts(doc: ChatDoc | undefined, e: SessionEvent): ChatDoc | undefined {
  if (e.chatId === ACCOUNT_CHAT) return undefined;
  if (doc && doc.lastSeq >= e.seq) return undefined;
  const c = doc ?? emptyChat(e);
  // Times are minima and maxima over the events' own times, so arrival order does not matter;
  // a close's time is the idle deadline, not activity.
  let next: ChatDoc = {
    ...c, lastSeq: e.seq, fanSpendCents: reportedSpend(e) ?? c.fanSpendCents,
    firstSeenAt: Math.min(c.firstSeenAt, e.at),
    lastActivityAt: e.type === 'SessionClosed' ? c.lastActivityAt : Math.max(c.lastActivityAt, e.at),
    lateRecords: (c.lateRecords ?? 0) + (isLate(e) ? 1 : 0),
  };
  const session = sessionAfter(e);
  if (session) {
    const open = session.status === 'open';
    next = { ...next, openSessionId: open ? session.sessionId : null, awaiting: open && session.awaiting, waitingSince: open ? session.waitingSince : null };
  }
  switch (e.type) {
    case 'SessionOpened':
      return { ...next, sessionCount: c.sessionCount + 1 };
    case 'MessageRecorded': {
      const newest = c.lastMessageAt === null || e.data.sentAt > c.lastMessageAt || (e.data.sentAt === c.lastMessageAt && e.data.messageId > (c.lastMessageId ?? ''));
      return {
        ...next,
        messageCount: c.messageCount + 1,
        fanMessageCount: c.fanMessageCount + (e.data.sender === 'fan' ? 1 : 0),
        lastMessageAt: newest ? e.data.sentAt : c.lastMessageAt,
        lastMessageId: newest ? e.data.messageId : c.lastMessageId ?? null,
        lastMessageText: newest ? e.data.text : c.lastMessageText,
        lastSender: newest ? e.data.sender : c.lastSender,
      };
    }
    case 'PaymentRecorded':
      return {
        ...next,
        paidCents: c.paidCents + e.data.grossCents,
        paymentCount: c.paymentCount + 1,
        lastPaymentAt: Math.max(c.lastPaymentAt ?? 0, e.data.paidAt),
      };
    default:
      return next;
  }
}

export function foldAccountStats(doc: AccountStatsDoc | undefined, p: Positioned): AccountStatsDoc | undefined {
  const e = p.event;
  const { partition, offset } = sourceOf(p);
  if (doc && (offset < doc.appliedOffset || (offset === doc.appliedOffset && doc.appliedIds.includes(e.id)))) return undefined;
  const a: AccountStatsDoc = doc ?? {
    _id: accountStatsDocId(e.accountId, partition), accountId: e.accountId, partition, appliedOffset: -1, appliedIds: [], chats: 0, sessionsOpened: 0,
    sessionsClosed: 0, messages: 0, fanMessages: 0, revenueCents: 0, paymentCount: 0, lateRecords: 0, lastActivityAt: null,
    lastStatusEvent: null, lastStatusState: null, lastStatusAt: null,
  };
  const next: AccountStatsDoc = {
    ...a, appliedOffset: offset, appliedIds: offset === a.appliedOffset ? [...a.appliedIds, e.id] : [e.id],
    lateRecords: (a.lateRecords ?? 0) + (isLate(e) ? 1 : 0),
  };
  const active = (at: number) => Math.max(a.lastActivityAt ?? 0, at);
  switch (e.type) {
    case 'SessionOpened':
      // A chat's first session is the first sign of that chat.
      return { ...next, sessionsOpened: a.sessionsOpened + 1, chats: a.chats + (e.data.session.sessionId.endsWith(':1') ? 1 : 0) };
    case 'SessionClosed':
      return { ...next, sessionsClosed: a.sessionsClosed + 1 };
    case 'MessageRecorded':
      return { ...next, messages: a.messages + 1, fanMessages: a.fanMessages + (e.data.sender === 'fan' ? 1 : 0), lastActivityAt: active(e.data.sentAt) };
    case 'PaymentRecorded':
      return { ...next, revenueCents: a.revenueCents + e.data.grossCents, paymentCount: a.paymentCount + 1, lastActivityAt: active(e.data.paidAt) };
    case 'AccountStatusChanged': {
      // The newest status by its own time, whatever order the notices arrived in.
      const prev = a.lastStatusAt;
      const newer = prev === null || e.at > prev || (e.at === prev && e.data.event > (a.lastStatusEvent ?? ''));
      return newer ? { ...next, lastStatusEvent: e.data.event, lastStatusState: e.data.state, lastStatusAt: e.at } : next;
    }
    default:
      return next;
  }
}

export function foldMessage(doc: MessageDoc | undefined, e: SessionEvent): MessageDoc | undefined {
  if (e.type === 'MessageDeleted') {
    // Deletions come from the account's own stream, so they may overtake their message.
    if (doc?.deleted) return undefined;
    if (doc) return { ...doc, deleted: true, deletedAt: e.data.deletedAt };
    return { _id: messageDocId(e.accountId, e.data.messageId), messageId: e.data.messageId, accountId: e.accountId, deleted: true, deletedAt: e.data.deletedAt, tombstone: true, lastSeq: 0 };
  }
  if (e.type === 'MessageMoved') {
    if (!doc || doc.lastSeq >= e.seq) return undefined;
    return { ...doc, sessionId: e.data.sessionId, lastSeq: e.seq };
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
    lastSeq: e.seq,
  };
}
