// The pure heart of the session machine: a chat's records placed by their own time, not by
// the order they arrive in. Webhooks come late and out of order, so every figure a session
// shows is a function of the set of records it holds, and a session's boundaries are decided
// only once no record that could still move them may arrive:
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
// - A fan message after the open session's idle deadline waits in `pending` until W passes
//   the deadline (an earlier record could still extend the session over it), so a fan who
//   returns after a pause shows up at most the lateness later.
// - The idle close is emitted when W passes the open session's deadline, never earlier.
//
// So for any arrival order in which no record is later than the allowed lateness, the events
// fold into the same read models as the same records in time order.
import type {
  ChatAttributionInput, ChatCloseInput, ChatInput, ChatMessageInput, ChatPaymentInput, ChatSignalInput, TimedRecord,
} from './chat-input.js';
import type { SessionEvent, SessionSummary } from './session-events.js';

export interface ChatMachineInput {
  readonly accountId: string;
  readonly chatId: string;
  readonly idleMs: number;
  /** Allowed lateness: how far behind the latest record a record may arrive and still be placed exactly. Less than idleMs. */
  readonly lateMs: number;
}

export interface Reply {
  readonly at: number;
  readonly messageId: string;
  readonly chatterId: string | null;
}

export interface Credit {
  readonly at: number;
  readonly paymentId: string;
  readonly chatterId: string | null;
}

/** The open session and the few record times its figures need to stay order-independent. */
export interface OpenSession {
  readonly summary: SessionSummary;
  /** Fan message times after the latest human reply, ascending (the first is `waitingSince`). */
  readonly unanswered: readonly number[];
  /** The earliest human reply: the first response. */
  readonly first: Reply | null;
  /** Human replies ascending: the latest before the watermark and every one after it. */
  readonly replies: readonly Reply[];
  /** Payments at or after the watermark with their credit, so a late reply can move it. */
  readonly credits: readonly Credit[];
}

export interface ChatContext extends ChatMachineInput {
  readonly chatKey: string;
  /** Sequence of the last emitted event. */
  readonly seq: number;
  readonly sessionCount: number;
  readonly session: OpenSession | null;
  readonly maxSeenAt: number | null;
  /** Records older than this are settled; null before the first record. */
  readonly watermark: number | null;
  /** Fan messages after the open session's deadline, waiting for the watermark, in time order. */
  readonly pending: readonly TimedRecord[];
  /** Messages and payments recorded outside any session at or after the watermark: a session may still take them in. */
  readonly loose: readonly (ChatMessageInput | ChatPaymentInput)[];
  /** The fan's lifetime spend as the platform last reported it, by record time. */
  readonly fanSpendCents: number | null;
  readonly fanSpendAt: number | null;
  readonly presence: 'typing' | 'online' | 'offline' | null;
  readonly presenceAt: number | null;
  /** When the latest record of this chat arrived. A tick settles a chat only once its arrivals
   *  are idle too, so history ingested now is not cut up by ticks between its records. */
  readonly lastArrivalAt: number | null;
  readonly skippedCount: number;
  readonly ignoredCloseCount: number;
  readonly lateCount: number;
}

/** Kept lists are pruned to what a record within the lateness can still change; this caps a flood inside it. */
const KEEP_MAX = 2_000;

type Emit = (e: SessionEvent) => void;

export function initialContext(input: ChatMachineInput): ChatContext {
  return {
    accountId: input.accountId,
    chatId: input.chatId,
    idleMs: input.idleMs,
    lateMs: input.lateMs,
    chatKey: `${input.accountId}:${input.chatId}`,
    seq: 0,
    sessionCount: 0,
    session: null,
    maxSeenAt: null,
    watermark: null,
    pending: [],
    loose: [],
    fanSpendCents: null,
    fanSpendAt: null,
    presence: null,
    presenceAt: null,
    lastArrivalAt: null,
    skippedCount: 0,
    ignoredCloseCount: 0,
    lateCount: 0,
  };
}

// ---- order -----------------------------------------------------------------------------

const isFan = (r: TimedRecord): r is ChatMessageInput => r.type === 'chat.message' && r.sender === 'fan';

/** At one instant a fan's message comes first, then replies, payments, signals; then ids. */
function rank(r: TimedRecord): number {
  if (r.type === 'chat.message') return r.sender === 'fan' ? 0 : 1;
  return r.type === 'chat.payment' ? 2 : 3;
}

function idOf(r: TimedRecord): string {
  return r.type === 'chat.message' ? r.messageId : r.type === 'chat.payment' ? r.paymentId : `${r.refId}|${r.dedupeKey}`;
}

export function compareRecords(a: TimedRecord, b: TimedRecord): number {
  return a.at - b.at || rank(a) - rank(b) || (idOf(a) < idOf(b) ? -1 : idOf(a) > idOf(b) ? 1 : 0);
}

const replyOrder = (a: Reply, b: Reply): number => a.at - b.at || (a.messageId < b.messageId ? -1 : a.messageId > b.messageId ? 1 : 0);

function insertSorted<T>(list: readonly T[], item: T, cmp: (a: T, b: T) => number): T[] {
  const out = [...list];
  let i = out.length;
  while (i > 0 && cmp(out[i - 1] as T, item) > 0) i--;
  out.splice(i, 0, item);
  return out;
}

// ---- events ----------------------------------------------------------------------------

function emitNext<T extends SessionEvent['type']>(ctx: ChatContext, emit: Emit, type: T, at: number, data: Extract<SessionEvent, { type: T }>['data']): ChatContext {
  const seq = ctx.seq + 1;
  emit({ id: `${ctx.chatKey}:${seq}`, type, seq, chatKey: ctx.chatKey, accountId: ctx.accountId, chatId: ctx.chatId, at, data } as SessionEvent);
  return { ...ctx, seq };
}

function noteSpend(ctx: ChatContext, r: { at: number; fanSpendCents?: number }): ChatContext {
  const cents = r.fanSpendCents;
  if (cents === undefined) return ctx;
  const newer = ctx.fanSpendAt === null || r.at > ctx.fanSpendAt || (r.at === ctx.fanSpendAt && cents > (ctx.fanSpendCents ?? -1));
  return newer ? { ...ctx, fanSpendCents: cents, fanSpendAt: r.at } : ctx;
}

// ---- the open session's figures ---------------------------------------------------------

const deadlineOf = (ctx: ChatContext, s: OpenSession): number => s.summary.lastActivityAt + ctx.idleMs;

function creditAt(replies: readonly Reply[], at: number): Reply | null {
  let found: Reply | null = null;
  for (const r of replies) {
    if (r.at <= at) found = r;
    else break;
  }
  return found;
}

/** Derives the summary's order-sensitive fields from the kept record times. */
function refigure(s: OpenSession, spend: number | null): OpenSession {
  const last = s.replies[s.replies.length - 1] ?? null;
  const firstFan = s.summary.firstFanMessageAt;
  return {
    ...s,
    summary: {
      ...s.summary,
      awaiting: s.unanswered.length > 0,
      waitingSince: s.unanswered[0] ?? null,
      firstResponseAt: s.first?.at ?? null,
      firstResponseSec: s.first && firstFan !== null ? Math.round((s.first.at - firstFan) / 1000) : null,
      firstResponderId: s.first?.chatterId ?? null,
      lastHumanChatterId: last?.chatterId ?? null,
      fanSpendCents: spend,
    },
  };
}

/** Re-credits kept payments after the replies changed; emits what moved. */
function recredit(ctx: ChatContext, emit: Emit): ChatContext {
  const s = ctx.session;
  if (!s || s.credits.length === 0) return ctx;
  let c = ctx;
  const credits: Credit[] = [];
  for (const p of s.credits) {
    const chatterId = creditAt(s.replies, p.at)?.chatterId ?? null;
    credits.push(chatterId === p.chatterId ? p : { ...p, chatterId });
  }
  c = { ...c, session: { ...s, credits } };
  credits.forEach((p, i) => {
    if (p === s.credits[i]) return;
    const cs = c.session as OpenSession;
    c = emitNext(c, emit, 'PaymentCredited', p.at, { paymentId: p.paymentId, sessionId: cs.summary.sessionId, chatterId: p.chatterId, session: cs.summary });
  });
  return c;
}

function withSession(ctx: ChatContext, s: OpenSession): ChatContext {
  return { ...ctx, session: refigure(s, ctx.fanSpendCents) };
}

function applyMessage(ctx: ChatContext, m: ChatMessageInput, emit: Emit, moved = false): ChatContext {
  const s0 = ctx.session as OpenSession;
  const sum = s0.summary;
  const isFanMsg = m.sender === 'fan';
  const isHuman = m.sender === 'human';
  const lastReply = s0.replies[s0.replies.length - 1];
  let s: OpenSession = {
    ...s0,
    summary: {
      ...sum,
      openedAt: Math.min(sum.openedAt, m.at),
      lastMessageAt: Math.max(sum.lastMessageAt, m.at),
      lastActivityAt: Math.max(sum.lastActivityAt, m.at),
      messageCount: sum.messageCount + 1,
      fanMessageCount: sum.fanMessageCount + (isFanMsg ? 1 : 0),
      replyCount: sum.replyCount + (isHuman ? 1 : 0),
      firstFanMessageAt: isFanMsg ? Math.min(sum.firstFanMessageAt ?? m.at, m.at) : sum.firstFanMessageAt,
    },
  };
  if (isFanMsg && (!lastReply || m.at > lastReply.at)) s = { ...s, unanswered: insertSorted(s.unanswered, m.at, (a, b) => a - b) };
  if (isHuman) {
    const reply: Reply = { at: m.at, messageId: m.messageId, chatterId: m.chatterId };
    const replies = insertSorted(s.replies, reply, replyOrder);
    const latest = replies[replies.length - 1] as Reply;
    s = {
      ...s,
      replies,
      first: !s.first || replyOrder(reply, s.first) < 0 ? reply : s.first,
      unanswered: s.unanswered.filter((t) => t > latest.at),
    };
  }
  let c = withSession(noteSpend(ctx, m), s);
  if (isHuman) c = recredit(c, emit);
  const after = (c.session as OpenSession).summary;
  if (moved) return emitNext(c, emit, 'MessageMoved', m.at, { messageId: m.messageId, sessionId: after.sessionId, session: after });
  return emitNext(c, emit, 'MessageRecorded', m.at, {
    messageId: m.messageId, sessionId: after.sessionId, sender: m.sender, chatterId: m.chatterId, text: m.text,
    priceCents: m.priceCents, sentAt: m.at, session: after, fanSpendCents: c.fanSpendCents,
  });
}

function applyPayment(ctx: ChatContext, p: ChatPaymentInput, emit: Emit, moved = false): ChatContext {
  const s0 = ctx.session as OpenSession;
  const chatterId = creditAt(s0.replies, p.at)?.chatterId ?? null;
  const s: OpenSession = {
    ...s0,
    credits: insertSorted(s0.credits, { at: p.at, paymentId: p.paymentId, chatterId }, (a, b) => a.at - b.at || (a.paymentId < b.paymentId ? -1 : 1)),
    summary: {
      ...s0.summary,
      revenueCents: s0.summary.revenueCents + p.grossCents,
      paymentCount: s0.summary.paymentCount + 1,
      lastActivityAt: Math.max(s0.summary.lastActivityAt, p.at),
    },
  };
  const c = withSession(noteSpend(ctx, p), s);
  const after = (c.session as OpenSession).summary;
  if (moved) return emitNext(c, emit, 'PaymentCredited', p.at, { paymentId: p.paymentId, sessionId: after.sessionId, chatterId, session: after });
  return emitNext(c, emit, 'PaymentRecorded', p.at, {
    paymentId: p.paymentId, kind: p.kind, grossCents: p.grossCents, netCents: p.netCents, paidAt: p.at,
    // Credit goes to whoever sent the last human message of this session before the payment.
    sessionId: after.sessionId, chatterId, session: after, fanSpendCents: c.fanSpendCents,
  });
}

function applySignal(ctx: ChatContext, sig: ChatSignalInput, sessionId: string | null, emit: Emit, late = false): ChatContext {
  const c = noteSpend(ctx, sig);
  return emitNext(c, emit, 'FanSignalRecorded', sig.at, {
    signal: sig.signal, refId: sig.refId, amountCents: sig.amountCents, sessionId, fanSpendCents: c.fanSpendCents, ...(late ? { late } : {}),
  });
}

function applyToSession(ctx: ChatContext, r: TimedRecord, emit: Emit): ChatContext {
  if (r.type === 'chat.message') return absorb(applyMessage(ctx, r, emit), emit);
  if (r.type === 'chat.payment') return absorb(applyPayment(ctx, r, emit), emit);
  const s = ctx.session as OpenSession;
  return applySignal(ctx, r, s.summary.sessionId, emit);
}

/** Takes in the loose records the open session's span now covers; its span may grow as it does. */
function absorb(ctx: ChatContext, emit: Emit): ChatContext {
  let c = ctx;
  for (;;) {
    const s = c.session;
    if (!s || c.loose.length === 0) return c;
    const r = c.loose.find((l) => l.at >= s.summary.openedAt && l.at <= deadlineOf(c, s));
    if (!r) return c;
    c = { ...c, loose: c.loose.filter((l) => l !== r) };
    c = r.type === 'chat.message' ? applyMessage(c, r, emit, true) : applyPayment(c, r, emit, true);
  }
}

/** A record with no session around it: settled outside every session, or late. */
function applyOutside(ctx: ChatContext, r: TimedRecord, emit: Emit, late: boolean): ChatContext {
  const flag = late ? { late } : {};
  const base = late ? { ...ctx, lateCount: ctx.lateCount + 1 } : ctx;
  if (r.type === 'chat.signal') return applySignal(base, r, null, emit, late);
  const c = noteSpend(base, r);
  if (r.type === 'chat.message') {
    const kept = late ? c : { ...c, loose: insertSorted(c.loose, r, compareRecords) };
    return emitNext(kept, emit, 'MessageRecorded', r.at, {
      messageId: r.messageId, sessionId: null, sender: r.sender, chatterId: r.chatterId, text: r.text,
      priceCents: r.priceCents, sentAt: r.at, session: null, fanSpendCents: c.fanSpendCents, ...flag,
    });
  }
  const kept = late ? c : { ...c, loose: insertSorted(c.loose, r, compareRecords) };
  return emitNext(kept, emit, 'PaymentRecorded', r.at, {
    paymentId: r.paymentId, kind: r.kind, grossCents: r.grossCents, netCents: r.netCents, paidAt: r.at,
    sessionId: null, chatterId: null, session: null, fanSpendCents: kept.fanSpendCents, ...flag,
  });
}

function openWith(ctx: ChatContext, m: ChatMessageInput, emit: Emit): ChatContext {
  const sessionCount = ctx.sessionCount + 1;
  const summary: SessionSummary = {
    sessionId: `${ctx.chatKey}:${sessionCount}`,
    status: 'open',
    openedAt: m.at,
    closedAt: null,
    closeReason: null,
    lastMessageAt: m.at,
    lastActivityAt: m.at,
    messageCount: 0,
    fanMessageCount: 0,
    replyCount: 0,
    awaiting: false,
    waitingSince: null,
    firstFanMessageAt: null,
    firstResponseAt: null,
    firstResponseSec: null,
    firstResponderId: null,
    lastHumanChatterId: null,
    revenueCents: 0,
    paymentCount: 0,
    fanSpendCents: ctx.fanSpendCents,
  };
  const session: OpenSession = { summary, unanswered: [], first: null, replies: [], credits: [] };
  const opened = emitNext({ ...ctx, sessionCount, session }, emit, 'SessionOpened', m.at, { session: summary });
  return absorb(applyMessage(opened, m, emit), emit);
}

function close(ctx: ChatContext, reason: 'idle' | 'forced', at: number, requestedBy: string | null, emit: Emit): ChatContext {
  const s = ctx.session;
  if (!s) return ctx;
  const closedAt = reason === 'idle' ? deadlineOf(ctx, s) : Math.max(at, s.summary.lastActivityAt);
  const closed: SessionSummary = { ...s.summary, status: 'closed', closedAt, closeReason: reason, fanSpendCents: ctx.fanSpendCents };
  return { ...emitNext(ctx, emit, 'SessionClosed', closedAt, { session: closed, requestedBy }), session: null };
}

/** Keeps only what a record at or after the watermark can still change. */
function prune(ctx0: ChatContext): ChatContext {
  const w = ctx0.watermark;
  // Loose records before the watermark can no longer be taken in: nothing that could open or
  // extend a session over them may still arrive.
  const ctx = w !== null && ctx0.loose.some((l) => l.at < w) ? { ...ctx0, loose: ctx0.loose.filter((l) => l.at >= w) } : ctx0;
  const s = ctx.session;
  if (!s || w === null) return ctx;
  const firstUnanswered = s.unanswered[0];
  const unanswered = s.unanswered.filter((t, i) => i === 0 || t >= w);
  let cut = 0;
  while (cut + 1 < s.replies.length && (s.replies[cut + 1] as Reply).at < w) cut++;
  const replies = s.replies.slice(cut).slice(-KEEP_MAX);
  const credits = s.credits.filter((p) => p.at >= w).slice(-KEEP_MAX);
  if (unanswered.length === s.unanswered.length && replies.length === s.replies.length && credits.length === s.credits.length) return ctx;
  const keptUnanswered = unanswered.length > KEEP_MAX ? [firstUnanswered as number, ...unanswered.slice(-KEEP_MAX + 1)] : unanswered;
  return { ...ctx, session: { ...s, unanswered: keptUnanswered, replies, credits } };
}

// ---- placing records ------------------------------------------------------------------

function inOpenSpan(ctx: ChatContext, at: number): boolean {
  const s = ctx.session;
  return s !== null && at >= s.summary.openedAt && at <= deadlineOf(ctx, s);
}

/**
 * Places pending records in time order under the current watermark, closing the open session
 * once the watermark passes its deadline. Repeats until nothing moves: applying a record can
 * extend the session's span over records that waited.
 */
function drain(ctx: ChatContext, emit: Emit): ChatContext {
  let c = ctx;
  for (;;) {
    const w = c.watermark ?? Number.NEGATIVE_INFINITY;
    let moved = false;
    const kept: TimedRecord[] = [];
    for (const r of c.pending) {
      const s = c.session;
      if (s && r.at > deadlineOf(c, s)) {
        if (deadlineOf(c, s) >= w) {
          kept.push(r);
          continue;
        }
        c = close({ ...c, pending: kept }, 'idle', r.at, null, emit);
        moved = true;
      }
      const open = c.session;
      if (open && r.at >= open.summary.openedAt) {
        c = applyToSession(c, r, emit);
        moved = true;
      } else if (isFan(r) && open && open.summary.openedAt - r.at <= c.idleMs) {
        // Just before the open session: the lateness is shorter than the idle gap, so it opened it.
        c = absorb(applyMessage(c, r, emit), emit);
        moved = true;
      } else if (isFan(r) && !open) {
        c = openWith(c, r, emit);
        moved = true;
      } else if (!isFan(r) || r.at < w) {
        c = applyOutside(c, r, emit, false);
        moved = true;
      } else {
        kept.push(r);
      }
    }
    c = { ...c, pending: kept };
    const s = c.session;
    if (s && deadlineOf(c, s) < w) {
      c = close(c, 'idle', w, null, emit);
      moved = true;
    }
    if (!moved) return prune(c);
  }
}

function advance(ctx: ChatContext, watermark: number, emit: Emit): ChatContext {
  const c = ctx.watermark === null || watermark > ctx.watermark ? { ...ctx, watermark } : ctx;
  return drain(c, emit);
}

function receive(ctx: ChatContext, r: TimedRecord, emit: Emit): ChatContext {
  const w = ctx.watermark;
  const s = ctx.session;
  if (w !== null && r.at < w && !inOpenSpan(ctx, r.at)) return applyOutside(ctx, r, emit, true);
  // A record stamped ahead of when it arrived (a skewed clock, a scheduled send) moves the
  // watermark only as far as its arrival allows, or it would make every real record late.
  const seenAt = r.receivedAt === undefined ? r.at : Math.min(r.at, r.receivedAt + ctx.lateMs);
  const maxSeenAt = Math.max(ctx.maxSeenAt ?? seenAt, seenAt);
  let c: ChatContext = { ...ctx, maxSeenAt };
  if (isFan(r)) c = { ...c, pending: insertSorted(c.pending, r, compareRecords) };
  else if (s && inOpenSpan(c, r.at)) c = applyToSession(c, r, emit);
  else c = applyOutside(c, r, emit, false);
  return advance(c, maxSeenAt - ctx.lateMs, emit);
}

function attribute(ctx: ChatContext, a: ChatAttributionInput, emit: Emit): ChatContext {
  // Outside any session for now: if a session takes it in, it comes with its chatter.
  const named = (r: ChatMessageInput | ChatPaymentInput) => (r.type === 'chat.message' && r.messageId === a.messageId ? { ...r, chatterId: a.chatterId } : r);
  let c: ChatContext = ctx.loose.some((r) => r.type === 'chat.message' && r.messageId === a.messageId) ? { ...ctx, loose: ctx.loose.map(named) } : ctx;
  const s = c.session;
  const name = (r: Reply): Reply => (r.messageId === a.messageId ? { ...r, chatterId: a.chatterId } : r);
  const inSession = s !== null && (s.replies.some((r) => r.messageId === a.messageId) || s.first?.messageId === a.messageId);
  if (s && inSession) {
    c = withSession(c, { ...s, replies: s.replies.map(name), first: s.first && name(s.first) });
    c = recredit(c, emit);
  }
  const after = inSession ? (c.session as OpenSession).summary : null;
  return emitNext(c, emit, 'MessageAttributed', a.at, { messageId: a.messageId, chatterId: a.chatterId, sessionId: after?.sessionId ?? null, session: after });
}

function forceClose(ctx: ChatContext, cmd: ChatCloseInput, emit: Emit): ChatContext {
  // Everything before the command's time happened before it: settle up to it first. A close
  // that finds nothing to close changes nothing, not even the watermark.
  const open = ctx.session;
  if (!open || (cmd.sessionId !== null && cmd.sessionId !== open.summary.sessionId)) return { ...ctx, ignoredCloseCount: ctx.ignoredCloseCount + 1 };
  let c = advance(ctx, cmd.at, emit);
  const s = c.session;
  if (!s || (cmd.sessionId !== null && cmd.sessionId !== s.summary.sessionId)) return { ...c, ignoredCloseCount: c.ignoredCloseCount + 1 };
  c = close(c, 'forced', cmd.at, cmd.requestedBy, emit);
  // A record from before the close that arrives after it can no longer join the closed session.
  return advance(c, Math.max(cmd.at, s.summary.lastActivityAt) + 1, emit);
}

/** The clock time after which a tick would settle something in this chat (close its idle session); null when nothing waits. */
export function tickDue(ctx: ChatContext): number | null {
  const s = ctx.session;
  if (!s) return null;
  return Math.max(deadlineOf(ctx, s) + ctx.lateMs, (ctx.lastArrivalAt ?? Number.NEGATIVE_INFINITY) + ctx.lateMs);
}

/** Only records that carry conversation move the arrival clock: presence pings every few
 *  seconds must not keep a tick from closing an idle session. */
function arrived(ctx: ChatContext, input: ChatInput): ChatContext {
  if (input.type !== 'chat.message' && input.type !== 'chat.payment' && input.type !== 'chat.signal' && input.type !== 'chat.attribution') return ctx;
  if (input.receivedAt === undefined) return ctx;
  return { ...ctx, lastArrivalAt: Math.max(ctx.lastArrivalAt ?? 0, input.receivedAt) };
}

/** One input, already admitted by the dedupe ledger (see ledger.ts): the next context, and the events it emits. */
export function applyInput(ctx: ChatContext, input: ChatInput, emit: Emit): ChatContext {
  switch (input.type) {
    case 'chat.message':
    case 'chat.payment':
    case 'chat.signal':
      return arrived(receive(ctx, input, emit), input);
    case 'chat.attribution':
      return arrived(attribute(ctx, input, emit), input);
    case 'chat.messageDeleted':
      return arrived(emitNext(ctx, emit, 'MessageDeleted', input.at, { messageId: input.messageId, deletedAt: input.at }), input);
    case 'chat.account':
      return arrived(emitNext(ctx, emit, 'AccountStatusChanged', input.at, { event: input.event, state: input.state }), input);
    case 'chat.presence': {
      const newer = ctx.presenceAt === null || input.at >= ctx.presenceAt;
      return arrived(newer ? { ...ctx, presence: input.presence, presenceAt: input.at } : ctx, input);
    }
    case 'chat.tick': {
      // A tick promises that nothing older than its clock less the lateness is still coming,
      // but only for chats that received nothing for as long: a backfill streaming a chat's
      // history (record times far behind the clock) is not cut up between its pages.
      if (ctx.lastArrivalAt !== null && input.at <= ctx.lastArrivalAt + ctx.lateMs) return ctx;
      return advance(ctx, input.at - ctx.lateMs, emit);
    }
    case 'chat.close':
      return arrived(forceClose(ctx, input, emit), input);
    case 'chat.skipped':
      return arrived({ ...ctx, skippedCount: ctx.skippedCount + 1 }, input);
  }
}
