// API views of read-model documents: epoch milliseconds become ISO-8601 strings and the
// bookkeeping fields stay inside.
import type { MessageDoc, SessionDoc } from '../projector/read-models.js';

const iso = (ms: number | null | undefined): string | null => (ms === null || ms === undefined ? null : new Date(ms).toISOString());

export function sessionView(d: SessionDoc) {
  return {
    id: d._id,
    accountId: d.accountId,
    chatId: d.chatId,
    status: d.status,
    openedAt: iso(d.openedAt),
    closedAt: iso(d.closedAt),
    closeReason: d.closeReason,
    lastMessageAt: iso(d.lastMessageAt),
    messageCount: d.messageCount,
    fanMessageCount: d.fanMessageCount,
    replyCount: d.replyCount,
    awaiting: d.awaiting,
    waitingSince: iso(d.waitingSince),
    firstResponseAt: iso(d.firstResponseAt),
    firstResponseSec: d.firstResponseSec,
    firstResponderId: d.firstResponderId,
    lastHumanChatterId: d.lastHumanChatterId,
    revenueCents: d.revenueCents,
    paymentCount: d.paymentCount,
  };
}

export function messageView(d: MessageDoc) {
  return {
    id: d.messageId,
    accountId: d.accountId,
    chatId: d.chatId,
    sessionId: d.sessionId,
    sender: d.sender,
    chatterId: d.chatterId,
    text: d.text,
    priceCents: d.priceCents,
    sentAt: iso(d.sentAt),
    deleted: d.deleted,
  };
}
