// The attribution models that look past the session (issue 50): `converter`, the last human
// message to the fan before the payment, across sessions, within a lookback; and `sender`, the
// chatter who sent the PPV a payment bought (for other earnings, the converter's credit). The
// session model stays in session-figures.ts. A payment's model credits are a function of the
// set of records the chat holds, not of their order: a send or unlock that arrives after a
// payment it comes before re-credits it (PaymentAttributed again), as replies do in a session.
//
// The platform never says which PPV a transaction paid for. The unlock notification does name
// the message (its chat link), and it and the transaction are two reports of one purchase:
// a PPV payment is matched to the unlock nearest to it in time, within UNLOCK_MATCH_MS.
import type { ChatAttributionInput, ChatMessageInput, ChatPaymentInput, ChatSignalInput } from './chat-input.js';
import type { CreditLedger, LedgerPayment, LedgerSend, ModelCredit, ModelCredits } from './credit-ledger.js';
import { emitNext, type ChatContext, type Emit } from './chat-context.js';

/** The converter's lookback when none is configured (ATTRIBUTION_LOOKBACK_SEC): a day. */
export const DEFAULT_LOOKBACK_MS = 86_400_000;
/** How far apart a PPV payment and the unlock naming its message may be (notifications are stamped to the minute). */
export const UNLOCK_MATCH_MS = 600_000;
/** How long a PPV send stays nameable by an unlock: PPVs sell days after they are sent. */
export const PPV_KEEP_MS = 30 * 86_400_000;
/** The PPV sends a chat keeps at most (the latest), so a flood cannot grow its state. */
export const PPV_KEEP_MAX = 50;

const EMPTY: CreditLedger = { sends: [], unlocks: [], payments: [] };
const NONE: ModelCredit = { chatterId: null, messageId: null, rule: 'none' };

const bySendOrder = (a: LedgerSend, b: LedgerSend): number => a.at - b.at || (a.messageId < b.messageId ? -1 : a.messageId > b.messageId ? 1 : 0);

/** The converter: the last direct send at or before `at`, within the lookback. */
function converterAt(sends: readonly LedgerSend[], at: number, lookbackMs: number): ModelCredit {
  for (let i = sends.length - 1; i >= 0; i--) {
    const s = sends[i] as LedgerSend;
    if (s.at > at || !s.direct) continue;
    if (at - s.at > lookbackMs) break;
    return { chatterId: s.chatterId, messageId: s.messageId, rule: 'last-message' };
  }
  return NONE;
}

/**
 * The unlock that reports the same purchase: of those within the match distance, the ones that
 * showed the payment's amount if any did (two PPVs bought minutes apart differ by price more
 * often than by minute), then the nearest in time, then the earliest, then by message id.
 */
function unlockFor(l: CreditLedger, at: number, grossCents: number): string | null {
  const near = l.unlocks.filter((u) => Math.abs(u.at - at) <= UNLOCK_MATCH_MS);
  const priced = near.filter((u) => u.amountCents === grossCents);
  let best: { d: number; at: number; messageId: string } | null = null;
  for (const u of priced.length > 0 ? priced : near) {
    const d = Math.abs(u.at - at);
    if (best === null || d < best.d || (d === best.d && (u.at < best.at || (u.at === best.at && u.messageId < best.messageId)))) best = { d, at: u.at, messageId: u.messageId };
  }
  return best?.messageId ?? null;
}

export function creditsOf(l: CreditLedger, p: Pick<LedgerPayment, 'at' | 'kind' | 'grossCents'>, lookbackMs: number): ModelCredits {
  const converter = converterAt(l.sends, p.at, lookbackMs);
  if (p.kind !== 'ppv') return { sender: converter, converter };
  const bought = unlockFor(l, p.at, p.grossCents);
  const send = bought === null ? undefined : l.sends.find((s) => s.messageId === bought);
  if (!send) return { sender: converter, converter };
  const sender: ModelCredit = send.direct ? { chatterId: send.chatterId, messageId: send.messageId, rule: 'ppv-sender' } : { chatterId: null, messageId: send.messageId, rule: 'campaign' };
  return { sender, converter };
}

const sameCredit = (a: ModelCredit, b: ModelCredit): boolean => a.chatterId === b.chatterId && a.messageId === b.messageId && a.rule === b.rule;
const sameCredits = (a: ModelCredits | null, b: ModelCredits): boolean => a !== null && sameCredit(a.sender, b.sender) && sameCredit(a.converter, b.converter);

/**
 * Keeps what a record not yet late can still change, and what those credits rest on: payments
 * within the match distance of the watermark (an unlock still to come may match them), the
 * unlocks they or a payment still to come may match, direct sends a payment from there may
 * reach back to (and the latest before them), and the latest PPV sends.
 */
function prune(l: CreditLedger, watermark: number | null, lookbackMs: number): CreditLedger {
  if (watermark === null) return l;
  const reach = watermark - UNLOCK_MATCH_MS;
  const payments = l.payments.some((p) => p.at < reach) ? l.payments.filter((p) => p.at >= reach) : l.payments;
  // A kept payment is credited again whenever the ledger changes: what it matched must stay.
  const unlockReach = reach - UNLOCK_MATCH_MS;
  const unlocks = l.unlocks.some((u) => u.at < unlockReach) ? l.unlocks.filter((u) => u.at >= unlockReach) : l.unlocks;
  const from = reach - lookbackMs;
  // The latest direct send before `reach` still credits a payment after it.
  let lastBefore = -1;
  for (let i = 0; i < l.sends.length && (l.sends[i] as LedgerSend).at < reach; i++) if ((l.sends[i] as LedgerSend).direct) lastBefore = i;
  let ppvs = 0;
  const kept: LedgerSend[] = [];
  for (let i = l.sends.length - 1; i >= 0; i--) {
    const s = l.sends[i] as LedgerSend;
    const forConverter = s.direct && (s.at >= reach || (i === lastBefore && s.at >= from));
    const forSender = s.ppv && ppvs < PPV_KEEP_MAX && s.at >= watermark - PPV_KEEP_MS;
    if (s.ppv) ppvs++;
    if (forConverter || forSender) kept.push(s);
  }
  const sends = kept.length === l.sends.length ? l.sends : kept.reverse();
  return payments === l.payments && unlocks === l.unlocks && sends === l.sends ? l : { sends, unlocks, payments };
}

export type CreditedRecord = ChatMessageInput | ChatAttributionInput | ChatSignalInput | ChatPaymentInput;

/** What the record adds to the ledger; null: nothing the models read. */
function noted(l: CreditLedger, r: CreditedRecord): CreditLedger | null {
  switch (r.type) {
    case 'chat.message': {
      if (r.sender === 'fan') return null;
      const direct = r.sender === 'human' && r.queueId === undefined;
      const ppv = r.priceCents > 0 && r.isFree !== true;
      if (!direct && !ppv) return null;
      const s: LedgerSend = { at: r.at, messageId: r.messageId, chatterId: r.chatterId, direct, ppv };
      return { ...l, sends: insertSorted(l.sends, s) };
    }
    case 'chat.attribution': {
      const i = l.sends.findIndex((s) => s.messageId === r.messageId);
      if (i < 0) return null;
      const s = l.sends[i] as LedgerSend;
      const next: LedgerSend = {
        ...s,
        chatterId: r.chatterId ?? s.chatterId,
        ...(r.priceCents !== undefined ? { ppv: r.priceCents > 0 && r.isFree !== true, direct: s.direct && r.queueId === undefined } : {}),
      };
      return { ...l, sends: l.sends.map((x, j) => (j === i ? next : x)) };
    }
    case 'chat.signal': {
      if (r.signal !== 'ppv-unlocked' || r.ppv === undefined || !('messageId' in r.ppv)) return null;
      return { ...l, unlocks: [...l.unlocks, { at: r.at, messageId: r.ppv.messageId, amountCents: r.amountCents }] };
    }
    case 'chat.payment':
      return { ...l, payments: [...l.payments, { at: r.at, paymentId: r.paymentId, kind: r.kind, grossCents: r.grossCents, credits: null }] };
  }
}

function insertSorted(sends: readonly LedgerSend[], s: LedgerSend): LedgerSend[] {
  let i = sends.length;
  while (i > 0 && bySendOrder(sends[i - 1] as LedgerSend, s) > 0) i--;
  return [...sends.slice(0, i), s, ...sends.slice(i)];
}

/**
 * A record placed (not late): the ledger takes what the models read of it, and every payment
 * whose credits that moves (a new payment always) is credited again with PaymentAttributed.
 */
export function noteCredits(ctx: ChatContext, r: CreditedRecord, emit: Emit): ChatContext {
  const l0 = ctx.ledger ?? EMPTY;
  const added = noted(l0, r);
  if (added === null) return ctx;
  const lookbackMs = ctx.lookbackMs ?? DEFAULT_LOOKBACK_MS;
  const l = prune(added, ctx.watermark, lookbackMs);
  let c: ChatContext = ctx;
  const payments = l.payments.map((p) => {
    const credits = creditsOf(l, p, lookbackMs);
    if (sameCredits(p.credits, credits)) return p;
    c = emitNext(c, emit, 'PaymentAttributed', p.at, { paymentId: p.paymentId, sender: credits.sender, converter: credits.converter });
    return { ...p, credits };
  });
  return { ...c, ledger: { ...l, payments } };
}
