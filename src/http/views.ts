// API views of read-model documents: epoch milliseconds become ISO-8601 strings and the
// bookkeeping fields (lastSeq, applied offsets) stay inside.
import { Type, type Static, type TSchema } from '@fastify/type-provider-typebox';
import type { AccountTotals } from '../read-models/account-stats/queries.js';
import type { ChatDoc } from '../read-models/chats/projection.js';
import type { MessageDoc } from '../read-models/messages/projection.js';
import type { SessionDoc } from '../read-models/sessions/projection.js';
import { priorityScore } from '../read-models/sessions/priority.js';
import { gradeOf, waitedSec } from '../domain/sla.js';
import { openAt, shownClose } from '../domain/session-deadline.js';
import { priorityReasons } from '../read-models/sessions/priority-reasons.js';

// The views' schemas: the routes declare them, so each answer is serialised by them and each
// view's return type is checked against its schema by the compiler.
export const Nullable = <T extends TSchema>(t: T, description?: string) => Type.Union([t, Type.Null()], description ? { description } : {});
/** An ISO-8601 time; null when there is none (or a stored value no date can hold). */
export const timeOf = (description?: string) => Type.Union([Type.String({ format: 'date-time' }), Type.Null()], description ? { description } : {});
export const Time = timeOf();
export const Count = Type.Integer({ minimum: 0 });
export const Cents = Type.Integer({ description: 'US cents' });
const L = Type.Literal;

export const SessionSchema = Type.Object({
  id: Type.String({ description: 'the session id: account:chat:number' }),
  accountId: Type.String(),
  chatId: Type.String({ description: 'the fan\'s platform user id' }),
  status: Type.Union([L('open'), L('closed')], { description: 'as the clock has it: a session past its deadline shows closed before the processor closes it' }),
  openedAt: Time,
  closedAt: Time,
  closeReason: Nullable(Type.Union([L('idle'), L('unanswered'), L('forced')])),
  lastMessageAt: Time,
  messageCount: Count,
  fanMessageCount: Count,
  replyCount: Count,
  awaiting: Type.Boolean({ description: 'the fan wrote last and waits for a reply' }),
  waitingSince: Time,
  waitSec: Count,
  grade: Nullable(Type.Union([L('ok'), L('at-risk'), L('breached')], { description: 'the wait against the threshold; null when nobody waits' })),
  priorityScore: Type.Number(),
  priorityReasons: Type.Array(Type.Object({
    kind: Type.Union([L('waiting'), L('past-sla'), L('sla-at-risk'), L('spend'), L('open-alerts')]),
    text: Type.String(),
  }), { description: 'why it stands where it does in the inbox' }),
  firstResponseAt: Time,
  firstResponseSec: Nullable(Type.Number()),
  firstResponseBusinessSec: Nullable(Type.Number({ description: 'the first response in seconds of the account\'s business hours (clock=business), as measured when the session last changed; null: no schedule then, or not answered' })),
  waitBusinessSec: Nullable(Type.Number({ description: 'not answered: the fan\'s wait in seconds of business hours, until it closed (while open, until it will close); null otherwise or without a schedule' })),
  firstResponderId: Nullable(Type.String()),
  lastHumanChatterId: Nullable(Type.String()),
  revenueCents: Cents,
  paymentCount: Count,
  fanSpendCents: Nullable(Cents),
});
export type SessionView = Static<typeof SessionSchema>;

/** Who sent a message. */
export const SenderSchema = Type.Union([L('fan'), L('human'), L('automated')], { description: 'the fan, a person answering (a chatter or the creator), or an automated send' });

export const MessageSchema = Type.Object({
  id: Type.String({ description: 'the platform\'s message id' }),
  accountId: Type.String(),
  chatId: Type.String(),
  sessionId: Nullable(Type.String()),
  sender: SenderSchema,
  chatterId: Nullable(Type.String()),
  text: Type.String(),
  priceCents: Cents,
  sentAt: Time,
  deleted: Type.Boolean(),
});

export const ChatSchema = Type.Object({
  accountId: Type.String(),
  chatId: Type.String(),
  firstSeenAt: Time,
  lastActivityAt: Time,
  lastMessageAt: Time,
  lastMessageText: Nullable(Type.String()),
  lastSender: Nullable(SenderSchema),
  messageCount: Count,
  fanMessageCount: Count,
  sessionCount: Count,
  openSessionId: Nullable(Type.String()),
  awaiting: Type.Boolean(),
  waitingSince: Time,
});

export const FanSchema = Type.Object({
  accountId: Type.String(),
  fanId: Type.String(),
  chatId: Type.String(),
  lifetimeSpendCents: Nullable(Cents),
  spendKnown: Type.Boolean(),
  platformReportedSpendCents: Nullable(Cents),
  recordedPaymentsCents: Cents,
  paymentCount: Count,
  lastPaymentAt: Time,
  messageCount: Count,
  sessionCount: Count,
  lastActivityAt: Time,
  awaiting: Type.Boolean(),
  waitingSince: Time,
});

export const AccountStatsSchema = Type.Object({
  chats: Count,
  sessions: Count,
  openSessions: Type.Integer(),
  messages: Count,
  fanMessages: Count,
  revenueCents: Cents,
  paymentCount: Count,
  lastActivityAt: Time,
  lastStatusEvent: Nullable(Type.String()),
  lastStatusState: Nullable(Type.String()),
});

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
export function sessionView(d: SessionDoc, now: number, thresholdSec: number, openAlerts = 0): SessionView {
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
    firstResponseBusinessSec: d.firstResponseBusinessSec ?? null,
    waitBusinessSec: d.waitBusinessSec ?? null,
    firstResponderId: d.firstResponderId,
    lastHumanChatterId: d.lastHumanChatterId,
    revenueCents: d.revenueCents,
    paymentCount: d.paymentCount,
    fanSpendCents: d.fanSpendCents ?? null,
  };
}

/** A listed message: the queries leave tombstones out, so the fields only a tombstone lacks are there (the fallbacks are for the type). */
export function messageView(d: MessageDoc): Static<typeof MessageSchema> {
  return {
    id: d.messageId,
    accountId: d.accountId,
    chatId: d.chatId ?? '',
    sessionId: d.sessionId ?? null,
    sender: d.sender ?? 'fan',
    chatterId: d.chatterId ?? null,
    text: d.text ?? '',
    priceCents: d.priceCents ?? 0,
    sentAt: iso(d.sentAt),
    deleted: d.deleted,
  };
}

export function chatView(d: ChatDoc): Static<typeof ChatSchema> {
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

export function fanView(d: ChatDoc): Static<typeof FanSchema> {
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

export function accountStatsView(d: AccountTotals): Static<typeof AccountStatsSchema> {
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

export function emptyAccountStats(): Static<typeof AccountStatsSchema> {
  return { chats: 0, sessions: 0, openSessions: 0, messages: 0, fanMessages: 0, revenueCents: 0, paymentCount: 0, lastActivityAt: null, lastStatusEvent: null, lastStatusState: null };
}
