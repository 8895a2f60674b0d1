// API views of read-model documents: epoch milliseconds become ISO-8601 strings and the
// bookkeeping fields (lastSeq, applied offsets) stay inside.
import type { AccountTotals } from '../projector/models/account-stats/queries.js';
import type { ChatDoc } from '../projector/models/chats/projection.js';
import type { MessageDoc } from '../projector/models/messages/projection.js';
import type { PaymentDoc } from '../projector/models/payments/projection.js';
import type { SessionDoc } from '../projector/models/sessions/projection.js';
import { priorityScore } from '../projector/priority.js';
import { gradeOf, waitedSec } from '../domain/sla.js';
import { openAt, shownClose } from '../domain/session-deadline.js';
import { priorityReasons } from '../projector/priority-reasons.js';

let noteUnshowable: (value: unknown) => void = () => undefined;
let noted = false;

/** Where a stored time that cannot be shown is reported (the app's logger), once per process. */
export function reportUnshowableTimesTo(note: (value: unknown) => void): void {
  noteUnshowable = note;
}

/**
 * Epoch milliseconds as ISO-8601. A stored value no Date can hold (written before the door
 * bounded times, or by a bug) shows as null: one such document once made every list answer
 * 500, for good, since replay played it back.
 */
export function iso(ms: number | null | undefined): string | null {
  if (ms === null || ms === undefined) return null;
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) {
    if (!noted) {
      noted = true;
      noteUnshowable(ms);
    }
    return null;
  }
  return d.toISOString();
}

/**
 * A session as the API shows it; a waiting fan's wait comes with its grade against
 * `thresholdSec` (null when nobody waits) and the reasons for its place in the inbox, which
 * count `openAlerts` (the caller's count of the session's open alerts).
 */
export function sessionView(d: SessionDoc, now: number, thresholdSec: number, openAlerts = 0) {
  // Past its deadline, it shows as the tick will close it.
  const open = openAt(d, now);
  const shown = shownClose(d, now);
  const waited = open ? waitedSec(d, now) : null;
  return {
    id: d._id,
    accountId: d.accountId,
    chatId: d.chatId,
    status: shown.status,
    openedAt: iso(d.openedAt),
    closedAt: iso(shown.closedAt),
    closeReason: shown.closeReason,
    lastMessageAt: iso(d.lastMessageAt),
    messageCount: d.messageCount,
    fanMessageCount: d.fanMessageCount,
    replyCount: d.replyCount,
    awaiting: d.awaiting,
    waitingSince: iso(d.waitingSince),
    waitSec: waited ?? 0,
    grade: waited === null ? null : gradeOf(waited, thresholdSec),
    priorityScore: open ? priorityScore(d.priorityAt ?? null, now) : 0,
    priorityReasons: priorityReasons({ waitSec: waited, fanSpendCents: d.fanSpendCents ?? null, openAlerts }, thresholdSec),
    firstResponseAt: iso(d.firstResponseAt),
    firstResponseSec: d.firstResponseSec,
    firstResponderId: d.firstResponderId,
    lastHumanChatterId: d.lastHumanChatterId,
    revenueCents: d.revenueCents,
    paymentCount: d.paymentCount,
    fanSpendCents: d.fanSpendCents ?? null,
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

export function chatView(d: ChatDoc) {
  return {
    accountId: d.accountId,
    chatId: d.chatId,
    firstSeenAt: iso(d.firstSeenAt),
    lastActivityAt: iso(d.lastActivityAt),
    lastMessageAt: iso(d.lastMessageAt),
    lastMessageText: d.lastMessageText,
    lastSender: d.lastSender,
    messageCount: d.messageCount,
    fanMessageCount: d.fanMessageCount,
    sessionCount: d.sessionCount,
    openSessionId: d.openSessionId,
    awaiting: d.awaiting,
    waitingSince: iso(d.waitingSince),
  };
}

export function fanView(d: ChatDoc) {
  return {
    accountId: d.accountId,
    fanId: d.chatId,
    chatId: d.chatId,
    lifetimeSpendCents: d.lifetimeSpendCents,
    spendKnown: d.lifetimeSpendCents !== null,
    platformReportedSpendCents: d.fanSpendCents,
    recordedPaymentsCents: d.paidCents,
    paymentCount: d.paymentCount,
    lastPaymentAt: iso(d.lastPaymentAt),
    messageCount: d.messageCount,
    sessionCount: d.sessionCount,
    lastActivityAt: iso(d.lastActivityAt),
    awaiting: d.awaiting,
    waitingSince: iso(d.waitingSince),
  };
}

export function accountStatsView(d: AccountTotals) {
  return {
    chats: d.chats,
    sessions: d.sessionsOpened,
    openSessions: d.sessionsOpened - d.sessionsClosed,
    messages: d.messages,
    fanMessages: d.fanMessages,
    revenueCents: d.revenueCents,
    paymentCount: d.paymentCount,
    lastActivityAt: iso(d.lastActivityAt),
    lastStatusEvent: d.lastStatusEvent,
    lastStatusState: d.lastStatusState,
  };
}

export function emptyAccountStats() {
  return { chats: 0, sessions: 0, openSessions: 0, messages: 0, fanMessages: 0, revenueCents: 0, paymentCount: 0, lastActivityAt: null, lastStatusEvent: null, lastStatusState: null };
}

export function paymentView(d: PaymentDoc) {
  return {
    id: d.paymentId, accountId: d.accountId, chatId: d.chatId, kind: d.kind, grossCents: d.grossCents, netCents: d.netCents,
    paidAt: iso(d.paidAt), sessionId: d.sessionId, chatterId: d.chatterId,
  };
}
