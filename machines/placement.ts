// Event-time placement: where a record goes by its own time, not by the order it arrived in.
// Webhooks come late and out of order, so every figure a session shows is a function of the
// set of records it holds, and a session's boundaries are decided only once no record that
// could still move them may arrive:
//
// - The watermark W is the latest record time seen less the allowed lateness (or a tick's
//   clock less it). A record older than W whose place is not inside the open session is
//   "late": it is counted, once, outside any session, and flagged (`late: true`).
// - A record inside the open session's span is applied at once, whatever its order.
// - A fan message just before the open session extends it backwards (the gap is at most the
//   lateness, which is shorter than the idle gap, so it could only have been the same session).
// - A reply, payment or signal with no session around it is recorded at once outside any
//   session; while W has not passed it (`loose`), a session that opens or grows over it takes
//   it in (MessageMoved, PaymentCredited).
// - A fan message is held in `pending` and placed in time order once nothing earlier can move
//   it; one after the open session's idle deadline waits until W passes the deadline (an
//   earlier record could still extend the session over it), so a fan who returns after a
//   pause shows up at most the lateness later.
//
// Opening and closing sessions is not decided here: placeHeld() stops where the chart must
// decide (session-machine.ts), and the chart's actions call lifecycle.ts.
import type { ChatAttributionInput, ChatMessageInput, TimedRecord } from './chat-input.js';
import { deadlineOf, keepWaits, type ChatContext, type Emit, type OpenSession, type Reply } from './chat-context.js';
import { compareRecords, insertSorted, isFan } from './record-order.js';
import { creditPayment, noteSpend, recordMessage, recordSignal } from './session-figures.js';
import { emitNext } from './chat-context.js';
import { sendFacts } from './session-events.js';

/** Kept lists are pruned to what a record within the lateness can still change; this caps a flood inside it. */
const KEEP_MAX = 2_000;

export function inOpenSpan(ctx: ChatContext, at: number): boolean {
  const s = ctx.session;
  return s !== null && at >= s.summary.openedAt && at <= deadlineOf(ctx, s);
}

/** Older than the watermark and outside the open session: its place is already settled without it. */
export function isLate(ctx: ChatContext, r: TimedRecord): boolean {
  return ctx.watermark !== null && r.at < ctx.watermark && !inOpenSpan(ctx, r.at);
}

/** The open session has passed its idle deadline: no record that could extend it may still arrive. */
export function pastIdleDeadline(ctx: ChatContext): boolean {
  const s = ctx.session;
  return s !== null && deadlineOf(ctx, s) < (ctx.watermark ?? Number.NEGATIVE_INFINITY);
}

/** With no session open, a held fan message is the one that opens the next. */
export function heldFanMessage(ctx: ChatContext): ChatMessageInput | null {
  const r = ctx.pending[0];
  return ctx.session === null && r !== undefined && isFan(r) ? r : null;
}

/** Takes in the loose records the open session's span now covers; its span may grow as it does. */
export function absorb(ctx: ChatContext, emit: Emit): ChatContext {
  let c = ctx;
  for (;;) {
    const s = c.session;
    if (!s || c.loose.length === 0) return c;
    const r = c.loose.find((l) => l.at >= s.summary.openedAt && l.at <= deadlineOf(c, s));
    if (!r) return c;
    c = { ...c, loose: c.loose.filter((l) => l !== r) };
    c = r.type === 'chat.message' ? recordMessage(c, r, emit, true) : creditPayment(c, r, emit, true);
  }
}

/** Applies a record inside the open session's span. */
export function recordInSession(ctx: ChatContext, r: TimedRecord, emit: Emit): ChatContext {
  if (r.type === 'chat.message') return absorb(recordMessage(ctx, r, emit), emit);
  if (r.type === 'chat.payment') return absorb(creditPayment(ctx, r, emit), emit);
  const s = ctx.session as OpenSession;
  return recordSignal(ctx, r, s.summary.sessionId, emit);
}

/** A record with no session around it: settled outside every session, or late. */
export function recordOutside(ctx: ChatContext, r: TimedRecord, emit: Emit, late: boolean): ChatContext {
  const flag = late ? { late } : {};
  const base = late ? { ...ctx, lateCount: ctx.lateCount + 1 } : ctx;
  if (r.type === 'chat.signal') return recordSignal(base, r, null, emit, late);
  const c = noteSpend(base, r);
  if (r.type === 'chat.message') {
    const kept = late ? c : { ...c, loose: insertSorted(c.loose, r, compareRecords) };
    return emitNext(kept, emit, 'MessageRecorded', r.at, {
      messageId: r.messageId, sessionId: null, sender: r.sender, chatterId: r.chatterId, text: r.text,
      priceCents: r.priceCents, sentAt: r.at, session: null, fanSpendCents: c.fanSpendCents, ...flag, ...sendFacts(r),
    });
  }
  const kept = late ? c : { ...c, loose: insertSorted(c.loose, r, compareRecords) };
  return emitNext(kept, emit, 'PaymentRecorded', r.at, {
    paymentId: r.paymentId, kind: r.kind, grossCents: r.grossCents, netCents: r.netCents, paidAt: r.at,
    sessionId: null, chatterId: null, session: null, fanSpendCents: kept.fanSpendCents, ...flag,
  });
}

/** A record seen: the latest record time moves, and the watermark with it; a conversation record also moves the arrival clock. */
export function see(ctx: ChatContext, r: TimedRecord): ChatContext {
  // A record stamped ahead of when it arrived (a skewed clock, a scheduled send) moves the
  // watermark only as far as its arrival allows, or it would make every real record late.
  const seenAt = r.receivedAt === undefined ? r.at : Math.min(r.at, r.receivedAt + ctx.lateMs);
  const maxSeenAt = Math.max(ctx.maxSeenAt ?? seenAt, seenAt);
  const watermark = maxSeenAt - ctx.lateMs;
  return {
    ...ctx,
    maxSeenAt,
    watermark: ctx.watermark === null || watermark > ctx.watermark ? watermark : ctx.watermark,
    lastArrivalAt: r.receivedAt === undefined ? ctx.lastArrivalAt : Math.max(ctx.lastArrivalAt ?? 0, r.receivedAt),
  };
}

export function raiseWatermark(ctx: ChatContext, watermark: number): ChatContext {
  return ctx.watermark === null || watermark > ctx.watermark ? { ...ctx, watermark } : ctx;
}

/** A fan message waits in `pending` until placeHeld() can place it; with nothing held before
 *  it and a place inside the open session, placeHeld() would apply it at once, and so does this. */
export function hold(ctx: ChatContext, r: ChatMessageInput, emit: Emit): ChatContext {
  if (ctx.pending.length === 0 && ctx.session !== null && inOpenSpan(ctx, r.at)) return recordInSession(ctx, r, emit);
  return { ...ctx, pending: insertSorted(ctx.pending, r, compareRecords) };
}

function prunable(s: OpenSession, w: number): boolean {
  const u = s.unanswered;
  if (u.length > 1 && (u[1] as number) < w) return true;
  if (s.replies.length > 1 && (s.replies[1] as Reply).at < w) return true;
  if (s.credits.length > 0 && (s.credits[0] as { at: number }).at < w) return true;
  return u.length > KEEP_MAX || s.replies.length > KEEP_MAX || s.credits.length > KEEP_MAX;
}

/** Keeps only what a record at or after the watermark can still change. */
function prune(ctx0: ChatContext): ChatContext {
  const w = ctx0.watermark;
  // Loose records before the watermark can no longer be taken in: nothing that could open or
  // extend a session over them may still arrive.
  const ctx = w !== null && ctx0.loose.some((l) => l.at < w) ? { ...ctx0, loose: ctx0.loose.filter((l) => l.at >= w) } : ctx0;
  const s = ctx.session;
  if (!s || w === null) return ctx;
  if (!prunable(s, w)) return ctx;
  const kept = keepWaits(s, (t, i) => i === 0 || t >= w);
  const unanswered = kept.unanswered;
  let cut = 0;
  while (cut + 1 < s.replies.length && (s.replies[cut + 1] as Reply).at < w) cut++;
  const replies = s.replies.slice(cut).slice(-KEEP_MAX);
  const credits = s.credits.filter((p) => p.at >= w).slice(-KEEP_MAX);
  if (unanswered.length === s.unanswered.length && replies.length === s.replies.length && credits.length === s.credits.length) return ctx;
  const n = unanswered.length;
  const waits = n > KEEP_MAX ? keepWaits(kept, (_t, i) => i === 0 || i >= n - KEEP_MAX + 1) : kept;
  const { unansweredEnds: _before, ...rest } = s;
  return { ...ctx, session: { ...rest, unanswered: waits.unanswered, ...(waits.unansweredEnds !== undefined ? { unansweredEnds: waits.unansweredEnds } : {}), replies, credits } };
}

/**
 * Places held records in time order under the current watermark, repeating until nothing
 * moves (applying a record can extend the session's span over records that waited). It stops
 * where the session's lifecycle must change, leaving that record first in `pending`: before a
 * record past the open session's deadline once the watermark has passed it
 * (`pastIdleDeadline`), at a fan message with no session open (`heldFanMessage`), or after a
 * round once the watermark has passed the deadline. No record is kept back before such a stop
 * (a kept one would be past the same deadline, or before the session by more than the idle
 * gap, which the watermark cannot then have passed), so the chart can act and call this again.
 */
export function placeHeld(ctx: ChatContext, emit: Emit): ChatContext {
  if (ctx.pending.length === 0) return pastIdleDeadline(ctx) ? ctx : prune(ctx);
  let c = ctx;
  for (;;) {
    const w = c.watermark ?? Number.NEGATIVE_INFINITY;
    let moved = false;
    const kept: TimedRecord[] = [];
    const held = c.pending;
    for (let i = 0; i < held.length; i++) {
      const r = held[i] as TimedRecord;
      const open = c.session;
      if (open && r.at > deadlineOf(c, open)) {
        if (deadlineOf(c, open) >= w) {
          kept.push(r);
          continue;
        }
        return { ...c, pending: [...kept, ...held.slice(i)] };
      }
      if (open && r.at >= open.summary.openedAt) {
        c = recordInSession(c, r, emit);
        moved = true;
      } else if (isFan(r) && open && open.summary.openedAt - r.at <= c.idleMs) {
        // Just before the open session: the lateness is shorter than the idle gap, so it opened it.
        c = absorb(recordMessage(c, r, emit), emit);
        moved = true;
      } else if (isFan(r) && !open) {
        return { ...c, pending: [...kept, ...held.slice(i)] };
      } else if (!isFan(r) || r.at < w) {
        c = recordOutside(c, r, emit, false);
        moved = true;
      } else {
        kept.push(r);
      }
    }
    c = { ...c, pending: kept };
    if (pastIdleDeadline(c)) return c;
    if (!moved) return prune(c);
  }
}

/** The clock time after which a tick would settle something in this chat (close its session); null when nothing waits or nothing could. */
export function tickDue(ctx: ChatContext): number | null {
  const s = ctx.session;
  if (!s) return null;
  const due = Math.max(deadlineOf(ctx, s) + ctx.lateMs, (ctx.lastArrivalAt ?? Number.NEGATIVE_INFINITY) + ctx.lateMs);
  return Number.isFinite(due) ? due : null;
}

/**
 * When a tick should announce that the open session's deadline has passed by the clock
 * (SessionLapsed), ahead of the close the lateness holds back: its deadline, unless that one
 * was announced already; null with no session or no deadline.
 */
export function lapseDue(ctx: ChatContext): number | null {
  const s = ctx.session;
  if (!s) return null;
  const d = deadlineOf(ctx, s);
  return Number.isFinite(d) && s.lapsed !== d ? d : null;
}

/** What a tick of the chat's partition selects it by: the earlier of its settling and its lapse. */
export function dueAt(ctx: ChatContext): number | null {
  const settle = tickDue(ctx);
  const lapse = lapseDue(ctx);
  return settle === null ? lapse : lapse === null ? settle : Math.min(settle, lapse);
}

/** A tick promises that nothing older than its clock less the lateness is still coming, but
 *  only for chats that received nothing for as long: a backfill streaming a chat's history
 *  (record times far behind the clock) is not cut up between its pages. */
export function arrivalsIdleAt(ctx: ChatContext, at: number): boolean {
  return ctx.lastArrivalAt === null || at > ctx.lastArrivalAt + ctx.lateMs;
}

/** Only records that carry conversation move the arrival clock (see() for records placed by
 *  time): presence pings every few seconds must not keep a tick from closing an idle session. */
export function noteArrival(ctx: ChatContext, input: TimedRecord | ChatAttributionInput): ChatContext {
  if (input.receivedAt === undefined) return ctx;
  return { ...ctx, lastArrivalAt: Math.max(ctx.lastArrivalAt ?? 0, input.receivedAt) };
}
