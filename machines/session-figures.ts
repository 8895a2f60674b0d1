// The open session's figures: what recording a message, crediting a payment or naming a
// reply's chatter does to them. Each figure is derived from the kept record times (refigure),
// never from the order records arrived in.
import type { ChatAttributionInput, ChatMessageInput, ChatPaymentInput, ChatSignalInput } from './chat-input.js';
import { addWait, emitNext, emitSeq, keepWaits, type ChatContext, type Credit, type Emit, type OpenSession, type Reply } from './chat-context.js';
import { insertSorted, replyOrder } from './record-order.js';
import { sendFacts } from './session-events.js';

export function noteSpend(ctx: ChatContext, r: { at: number; fanSpendCents?: number }): ChatContext {
  const cents = r.fanSpendCents;
  if (cents === undefined) return ctx;
  const newer = ctx.fanSpendAt === null || r.at > ctx.fanSpendAt || (r.at === ctx.fanSpendAt && cents > (ctx.fanSpendCents ?? -1));
  return newer ? { ...ctx, fanSpendCents: cents, fanSpendAt: r.at } : ctx;
}

/** A fan message after the latest human reply: the fan waits for an answer. */
export const fanWaiting = (s: OpenSession | null): boolean => s !== null && s.unanswered.length > 0;

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
      awaiting: fanWaiting(s),
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
  const credits: Credit[] = [];
  for (const p of s.credits) {
    const chatterId = creditAt(s.replies, p.at)?.chatterId ?? null;
    credits.push(chatterId === p.chatterId ? p : { ...p, chatterId });
  }
  let c: ChatContext = { ...ctx, session: { ...s, credits } };
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

/** Records a message in the open session (`moved`: it was recorded outside any session before).
 *  It is on every fan message's and reply's path, so it builds the session, its summary (with
 *  what refigure() derives) and the context once each. */
export function recordMessage(ctx: ChatContext, m: ChatMessageInput, emit: Emit, moved = false): ChatContext {
  const s0 = ctx.session as OpenSession;
  const sum = s0.summary;
  const isFanMsg = m.sender === 'fan';
  const isHuman = m.sender === 'human';
  const lastReply = s0.replies[s0.replies.length - 1];
  let waits: Pick<OpenSession, 'unanswered' | 'unansweredEnds'> = s0;
  let replies = s0.replies;
  let first = s0.first;
  if (isFanMsg && (!lastReply || m.at > lastReply.at)) waits = addWait(ctx, waits, m.at, m.waitEndsAt);
  if (isHuman) {
    const reply: Reply = { at: m.at, messageId: m.messageId, chatterId: m.chatterId };
    replies = insertSorted(replies, reply, replyOrder);
    const latest = replies[replies.length - 1] as Reply;
    first = !first || replyOrder(reply, first) < 0 ? reply : first;
    if (waits.unanswered.length > 0) waits = keepWaits(waits, (t) => t > latest.at);
  }
  const unanswered = waits.unanswered;
  const spent = noteSpend(ctx, m);
  const firstFan = isFanMsg ? Math.min(sum.firstFanMessageAt ?? m.at, m.at) : sum.firstFanMessageAt;
  const last = replies[replies.length - 1] ?? null;
  const summary: OpenSession['summary'] = {
    ...sum,
    openedAt: Math.min(sum.openedAt, m.at),
    lastMessageAt: Math.max(sum.lastMessageAt, m.at),
    lastActivityAt: Math.max(sum.lastActivityAt, m.at),
    messageCount: sum.messageCount + 1,
    fanMessageCount: sum.fanMessageCount + (isFanMsg ? 1 : 0),
    replyCount: sum.replyCount + (isHuman ? 1 : 0),
    firstFanMessageAt: firstFan,
    // As refigure() derives them.
    awaiting: unanswered.length > 0,
    waitingSince: unanswered[0] ?? null,
    firstResponseAt: first?.at ?? null,
    firstResponseSec: first && firstFan !== null ? Math.round((first.at - firstFan) / 1000) : null,
    firstResponderId: first?.chatterId ?? null,
    lastHumanChatterId: last?.chatterId ?? null,
    fanSpendCents: spent.fanSpendCents,
  };
  const { unansweredEnds: _before, ...kept } = s0;
  const session: OpenSession = { ...kept, summary, unanswered, ...(waits.unansweredEnds !== undefined ? { unansweredEnds: waits.unansweredEnds } : {}), first, replies };
  if (isHuman) {
    const c = recredit({ ...spent, session }, emit);
    const after = (c.session as OpenSession).summary;
    if (moved) return emitNext(c, emit, 'MessageMoved', m.at, { messageId: m.messageId, sessionId: after.sessionId, session: after });
    return emitNext(c, emit, 'MessageRecorded', m.at, {
      messageId: m.messageId, sessionId: after.sessionId, sender: m.sender, chatterId: m.chatterId, text: m.text,
      priceCents: m.priceCents, sentAt: m.at, session: after, fanSpendCents: c.fanSpendCents, ...sendFacts(m),
    });
  }
  // No payment to re-credit: the event is emitted and the context built once, with its sequence.
  const seq = moved
    ? emitSeq(spent, emit, 'MessageMoved', m.at, { messageId: m.messageId, sessionId: summary.sessionId, session: summary })
    : emitSeq(spent, emit, 'MessageRecorded', m.at, {
      messageId: m.messageId, sessionId: summary.sessionId, sender: m.sender, chatterId: m.chatterId, text: m.text,
      priceCents: m.priceCents, sentAt: m.at, session: summary, fanSpendCents: spent.fanSpendCents, ...sendFacts(m),
    });
  return { ...spent, session, seq };
}

/** Credits a payment to the open session and to the chatter of its last human reply at or before it. */
export function creditPayment(ctx: ChatContext, p: ChatPaymentInput, emit: Emit, moved = false): ChatContext {
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
    sessionId: after.sessionId, chatterId, session: after, fanSpendCents: c.fanSpendCents,
  });
}

export function recordSignal(ctx: ChatContext, sig: ChatSignalInput, sessionId: string | null, emit: Emit, late = false): ChatContext {
  const c = noteSpend(ctx, sig);
  return emitNext(c, emit, 'FanSignalRecorded', sig.at, {
    signal: sig.signal, refId: sig.refId, amountCents: sig.amountCents, sessionId, fanSpendCents: c.fanSpendCents, ...(late ? { late } : {}),
    ...(sig.ppv !== undefined ? { ppv: sig.ppv } : {}),
  });
}

/**
 * A later copy of a message added what its first copy lacked. A named chatter: the first
 * responder, last chatter and credits after the reply follow. Send facts only (no chatter):
 * nothing in the session changes, the event carries them to the message.
 */
export function attributeReply(ctx: ChatContext, a: ChatAttributionInput, emit: Emit): ChatContext {
  const facts = a.priceCents !== undefined ? { priceCents: a.priceCents, ...sendFacts(a) } : {};
  const chatterId = a.chatterId;
  if (chatterId === null) return emitNext(ctx, emit, 'MessageAttributed', a.at, { messageId: a.messageId, chatterId, sessionId: null, session: null, ...facts });
  // Outside any session for now: if a session takes it in, it comes with its chatter.
  const named = (r: ChatContext['loose'][number]) => (r.type === 'chat.message' && r.messageId === a.messageId ? { ...r, chatterId } : r);
  let c: ChatContext = ctx.loose.some((r) => r.type === 'chat.message' && r.messageId === a.messageId) ? { ...ctx, loose: ctx.loose.map(named) } : ctx;
  const s = c.session;
  const name = (r: Reply): Reply => (r.messageId === a.messageId ? { ...r, chatterId } : r);
  const inSession = s !== null && (s.replies.some((r) => r.messageId === a.messageId) || s.first?.messageId === a.messageId);
  if (s && inSession) {
    c = withSession(c, { ...s, replies: s.replies.map(name), first: s.first && name(s.first) });
    c = recredit(c, emit);
  }
  const after = inSession ? (c.session as OpenSession).summary : null;
  return emitNext(c, emit, 'MessageAttributed', a.at, { messageId: a.messageId, chatterId, sessionId: after?.sessionId ?? null, session: after, ...facts });
}
