// What the session machine consumes: normalised, source-independent facts about one chat.
// Times are record times in epoch milliseconds, never the clock of the machine running it.

export type MessageSender = 'fan' | 'human' | 'automated';

interface InputBase {
  readonly dedupeKey: string;
  readonly at: number;
  /** When convops received the record (epoch ms). Only clock ticks compare against it. */
  readonly receivedAt?: number;
}

export interface ChatMessageInput extends InputBase {
  readonly type: 'chat.message';
  readonly messageId: string;
  readonly sender: MessageSender;
  readonly text: string;
  readonly priceCents: number;
  readonly chatterId: string | null;
  /** The fan's lifetime spend as the platform reported it with this record, if it did. */
  readonly fanSpendCents?: number;
  /** Whether the platform said the message is free (`isFree`); absent when it did not say. A PPV is priced and not free. */
  readonly isFree?: boolean;
  /** The mass message or queue it was sent from (`queueId`), when it was. */
  readonly queueId?: string;
  /** A human reply's banned phrases (the account's list in force when it was received), as the processor found them. */
  readonly bannedPhrases?: readonly string[];
  /**
   * A fan message on an account with business hours: when a wait that begins with it reaches
   * the unanswered limit counted in open hours (by the schedule in force when it was received),
   * as the processor found it. Absent: the limit is wall-clock from the message.
   */
  readonly waitEndsAt?: number;
}

/**
 * A later copy of a message that knows what its first copy did not: the chatter of a human
 * message recorded without one (the connector's copy after the webhook's), the send facts of
 * a send recorded without them (the webhook's copy after the connector's), or both. The
 * dedupe ledger (dedupe.ts) turns such a copy into this input.
 */
export interface ChatAttributionInput extends InputBase {
  readonly type: 'chat.attribution';
  readonly messageId: string;
  /** The chatter the copy names; null when it brings only the send facts. */
  readonly chatterId: string | null;
  /** The send facts, as ChatMessageInput has them; `priceCents` is present exactly when the copy brings them. */
  readonly priceCents?: number;
  readonly isFree?: boolean;
  readonly queueId?: string;
}

export interface ChatMessageDeletedInput extends InputBase {
  readonly type: 'chat.messageDeleted';
  readonly messageId: string;
}

export type PaymentKind = 'tip' | 'ppv' | 'subscription' | 'post' | 'stream' | 'other';

/** A revenue row from `transactions.new` (or a backfilled transaction): the source of truth for money. */
export interface ChatPaymentInput extends InputBase {
  readonly type: 'chat.payment';
  readonly paymentId: string;
  readonly kind: PaymentKind;
  readonly grossCents: number;
  readonly netCents: number;
  readonly fanSpendCents?: number;
}

export type FanSignalKind = 'tip' | 'ppv-unlocked' | 'subscribed' | 'resubscribed' | 'subscription-expired';

/** A notification about the fan that carries no revenue of its own (revenue comes from transactions). */
export interface ChatSignalInput extends InputBase {
  readonly type: 'chat.signal';
  readonly signal: FanSignalKind;
  readonly refId: string;
  /** Informational amount (e.g. the tip notification's gross); never counted as revenue. */
  readonly amountCents: number | null;
  readonly fanSpendCents?: number;
  /**
   * A PPV unlock's message, read from its chat link: the id, or why there is none (`no-link`:
   * no readable link; `other-chat`: the link opens another fan's chat). Absent on other signals.
   */
  readonly ppv?: { readonly messageId: string } | { readonly unlinked: 'no-link' | 'other-chat' };
}

export interface ChatPresenceInput extends InputBase {
  readonly type: 'chat.presence';
  readonly presence: 'typing' | 'online' | 'offline';
}

export interface ChatAccountInput extends InputBase {
  readonly type: 'chat.account';
  /** The event's own name, e.g. `accounts.session_expired`. */
  readonly event: string;
  readonly state: string | null;
}

/** A manager's reassignment of a payment's credit (POST /api/admin/reassignments), through the log like every change. */
export interface ChatReassignInput extends InputBase {
  readonly type: 'chat.reassign';
  readonly paymentId: string;
  /** The chatter credited from now on; null: back to the model's own credit (the reassignment undone). */
  readonly chatterId: string | null;
  readonly reason: string;
  readonly requestedBy: string;
}

/**
 * A chatter clocking in or out of an account (POST /api/admin/chatters/:id/clock), through the
 * log like every change. It goes to the chatter's own clock chat (`_clock.<chatterId>`), so a
 * chatter's clock events on an account are ordered and replay keeps them.
 */
export interface ChatClockInput extends InputBase {
  readonly type: 'chat.clock';
  readonly action: 'in' | 'out';
  readonly chatterId: string;
  readonly requestedBy: string;
  /**
   * When the open interval ended by idling (the route works it out from the chatter's replies,
   * which this chat cannot see): a clock-in closes it there first; a clock-out is stamped there.
   */
  readonly idleSince?: number;
}

/** Clock record: lets idle sessions close without new messages, the same way live and on replay. */
export interface ChatTickInput {
  readonly type: 'chat.tick';
  readonly dedupeKey: string;
  readonly at: number;
}

/**
 * convops appended this chat's history in bulk (seeding, a backfill) and all of it is now in
 * the log before this record: the chat settles up to `at` less the lateness at once, without
 * waiting for its arrivals to go idle, so history whose idle gap (or unanswered limit) has
 * passed arrives closed instead of showing open until the next tick.
 */
export interface ChatSettleInput extends InputBase {
  readonly type: 'chat.settle';
}

/** Admin command: close the named session (or the open one when null). */
export interface ChatCloseInput extends InputBase {
  readonly type: 'chat.close';
  readonly sessionId: string | null;
  readonly requestedBy: string;
  /**
   * The named session's span as the admin saw it (first to last activity, epoch ms): how a
   * definitions generation that decides the chat again, with other session ids, finds the same
   * conversation. Absent from closes asked before it was kept.
   */
  readonly span?: { readonly from: number; readonly to: number };
}

/** A record the machine keeps in the log but does not act on (unknown kind, malformed). */
export interface ChatSkippedInput extends InputBase {
  readonly type: 'chat.skipped';
  readonly event: string;
  readonly reason: string;
}

export type ChatInput =
  | ChatMessageInput
  | ChatAttributionInput
  | ChatMessageDeletedInput
  | ChatPaymentInput
  | ChatSignalInput
  | ChatPresenceInput
  | ChatAccountInput
  | ChatReassignInput
  | ChatClockInput
  | ChatTickInput
  | ChatSettleInput
  | ChatCloseInput
  | ChatSkippedInput;

/** Records that belong to a session by their time: they wait for the watermark when their place is not yet certain. */
export type TimedRecord = ChatMessageInput | ChatPaymentInput | ChatSignalInput;
