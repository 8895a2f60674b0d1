// What one read-model document adds to the report buckets. A bucket holds the sum of these over
// the documents as they stand now, so when an event changes a document the projector adds the
// new document's contributions and takes away the old one's: redelivered events change no
// document, so they change no bucket, and replay rebuilds the same sums.
//
// Which time places a document in a window:
//   - a session's first-response outcome: its first fan message (the SLA clock starts there);
//   - a session's count (opened, closed of those opened, new chat): when it opened;
//   - a message: when it was sent; a payment (revenue, and its chatter's credit): when it was paid;
//   - a PPV or queued send: when it was sent; its unlock (and the PPV's price as revenue of the
//     send): when it was unlocked. Direct sends (a human's, not from a queue) count per chatter
//     under `conv`; queued and automated ones per campaign under `camp`, out of the chatters'.
//   - the facts the shift figures are worked out from (work-digest.ts), in day documents of their
//     own: a session's at its first fan message, a payment's when paid, a clock interval's at its clock-in.
// Open sessions not answered yet add nothing to time buckets' figures: their outcome depends on the
// clock, so reports read them live (they are few: sessions close after the idle timeout, or
// with the fan waiting, at the unanswered limit).
import { isFirstSessionId } from '../../../machines/session-events.js';
import { unansweredSec } from '../../domain/sla.js';
import { qaFlags, type QaRule } from '../../domain/qa-rules.js';
import type { MessageDoc } from '../messages/projection.js';
import { CREDIT_MODELS, creditedChatter, type CreditModel, type PaymentDoc } from '../payments/projection.js';
import type { PpvDoc, PpvSend } from '../ppvs/projection.js';
import type { SessionDoc } from '../sessions/projection.js';
import { campaignKey, chatterKey, countKey, fanKey, secKey } from './keys.js';
import { intervalWork, paymentWork, sessionWork } from './work-contributions.js';
import type { Increment } from './increment.js';
import type { ClockIntervalDoc } from '../clock-intervals/projection.js';

export type { Increment } from './increment.js';

export type BucketedModel = 'sessions' | 'messages' | 'payments' | 'ppvs' | 'clock_intervals';

/**
 * Which rules built a read-model version's buckets. A change to what a document contributes
 * bumps it, so buckets built by the old rules are built again from the documents (netting a
 * changed document against contributions it never made would leave counts no document holds).
 * 2: an unanswered session's wait rounds to the nearest second, as the SLA counts it (was: up).
 * 3: a session closed unanswered counts as `missed` too.
 * 4: direct messages per chatter, PPV sends and unlocks, campaigns (`conv`, `camp`, `ppvUn*`).
 * 5: the quality rules that fire on a chatter's direct replies (`conv.*.qa*`).
 * 6: revenue credited under the sender and converter models (`chatters.*.sender*`, `chatters.*.converter*`),
 *    and replies with an account's banned phrases (`conv.*.qaBannedPhrase`).
 * 7: the fans each chatter's and each account's direct messages went to (`conv.*.fans.*`, `directFans.*`), for fans chatted.
 * 8: those fan sets in documents of their own beside each time bucket (keys.ts Family), not in it;
 *    and each account's figures of all time in one bucket (level `all`).
 * 9: each session's, payment's and clock interval's facts for the shift figures, per account and day (work-digest.ts).
 * 10: a session's answered kept apart from its first-response seconds (`ws.*.a`), which can be 0 or below.
 * 11: the first responses and waits in open hours, as corrections of the wall-clock histograms (`bfrt`, `bwait`, `chatters.*.bfrt`).
 */
export const CONTRIBUTIONS_FORMAT = 11;

export function sessionIncrements(s: SessionDoc): Increment[] {
  const a = s.accountId;
  const out: Increment[] = [
    { accountId: a, at: s.openedAt, field: 'opened', amount: 1 },
  ];
  if (s.status === 'closed') out.push({ accountId: a, at: s.openedAt, field: 'openedClosed', amount: 1 });
  // A chat's first session is the first sign of that chat (as the account totals count it).
  if (isFirstSessionId(s._id)) out.push({ accountId: a, at: s.openedAt, field: 'chats', amount: 1 });
  if (s.firstFanMessageAt !== null) {
    const at = s.firstFanMessageAt;
    if (s.firstResponseSec !== null) {
      const k = secKey(s.firstResponseSec);
      const chatter = `chatters.${chatterKey(s.firstResponderId)}`;
      out.push({ accountId: a, at, field: `frt.${k}`, amount: 1 });
      out.push({ accountId: a, at, field: `${chatter}.frt.${k}`, amount: 1 });
      const b = s.firstResponseBusinessSec;
      if (b !== null && b !== undefined && b !== s.firstResponseSec) {
        // The business clock's histogram is the wall one corrected (document.ts `bfrt`): only the
        // sessions whose seconds differ write anything more.
        const bk = secKey(b);
        out.push({ accountId: a, at, field: `bfrt.${k}`, amount: -1 }, { accountId: a, at, field: `bfrt.${bk}`, amount: 1 });
        out.push({ accountId: a, at, field: `${chatter}.bfrt.${k}`, amount: -1 }, { accountId: a, at, field: `${chatter}.bfrt.${bk}`, amount: 1 });
      }
    } else if (s.status === 'closed') {
      // How long its fan waited, in whole seconds as the SLA counts them (until it closed).
      const wall = unansweredSec(s, s.lastActivityAt);
      out.push({ accountId: a, at, field: `wait.${secKey(wall)}`, amount: 1 });
      const b = s.waitBusinessSec;
      if (b !== null && b !== undefined && b !== wall) out.push({ accountId: a, at, field: `bwait.${secKey(wall)}`, amount: -1 }, { accountId: a, at, field: `bwait.${secKey(b)}`, amount: 1 });
      if (s.closeReason === 'unanswered') out.push({ accountId: a, at, field: 'missed', amount: 1 });
    }
  }
  if (s.status === 'open') {
    out.push({ accountId: a, at: null, field: 'open', amount: 1 });
    if (s.awaiting) out.push({ accountId: a, at: null, field: 'awaiting', amount: 1 });
    if (s.lastHumanChatterId !== null) {
      const c = `chatters.${chatterKey(s.lastHumanChatterId)}`;
      out.push({ accountId: a, at: null, field: `${c}.open`, amount: 1 });
      if (s.awaiting) out.push({ accountId: a, at: null, field: `${c}.awaiting`, amount: 1 });
    }
  }
  return out.concat(sessionWork(s));
}

export function messageIncrements(m: MessageDoc): Increment[] {
  if (m.tombstone || m.sentAt === undefined) return [];
  const out: Increment[] = [{ accountId: m.accountId, at: m.sentAt, field: 'messages', amount: 1 }];
  if (m.sender === 'fan') out.push({ accountId: m.accountId, at: m.sentAt, field: 'fanMessages', amount: 1 });
  if (m.sender === 'human' && m.queueId === undefined) {
    const c = `conv.${chatterKey(m.chatterId ?? null)}`;
    out.push({ accountId: m.accountId, at: m.sentAt, field: `${c}.direct`, amount: 1 });
    // Which fan it went to, counted like a histogram: a window's fans chatted are the keys its
    // buckets hold above zero, so a message moved to another chatter moves its fan too.
    // The account's too, by fan: its fans chatted is one set, not the union of its chatters'.
    if (m.chatId !== undefined) {
      out.push({ accountId: m.accountId, at: m.sentAt, field: `${c}.fans.${fanKey(m.chatId)}`, amount: 1 });
      out.push({ accountId: m.accountId, at: m.sentAt, field: `directFans.${fanKey(m.chatId)}`, amount: 1 });
    }
    // The quality rules that fire on the reply, counted per chatter (a document without its text, as a partial read, has none).
    for (const f of typeof m.text === 'string' ? qaFlags(m.text) : []) out.push({ accountId: m.accountId, at: m.sentAt, field: `${c}.${QA_FIELD[f.rule]}`, amount: 1 });
    if (m.bannedPhrases !== undefined && m.bannedPhrases.length > 0) out.push({ accountId: m.accountId, at: m.sentAt, field: `${c}.${QA_FIELD['banned-phrase']}`, amount: 1 });
  }
  return out;
}

/** Where each quality rule is counted under a chatter's `conv`. */
export const QA_FIELD: Readonly<Record<QaRule, string>> = { 'off-platform-contact': 'qaOffPlatformContact', 'off-platform-payment': 'qaOffPlatformPayment', 'banned-phrase': 'qaBannedPhrase' };

/** A human's send not from a queue: the chatter's own work, what the conversion ratios are of. */
export const isDirect = (s: PpvSend): boolean => s.sender === 'human' && s.queueId === undefined;

const MINUTE = 60_000;

export function ppvIncrements(p: PpvDoc): Increment[] {
  const a = p.accountId;
  const out: Increment[] = [];
  const s = p.send;
  const direct = s !== undefined && isDirect(s);
  const where = s === undefined ? '' : direct ? `conv.${chatterKey(s.chatterId)}` : `camp.${campaignKey(s.queueId ?? null)}`;
  if (s) {
    if (direct) {
      out.push({ accountId: a, at: s.sentAt, field: `${where}.ppvSent`, amount: 1 });
      out.push({ accountId: a, at: s.sentAt, field: `${where}.price.${countKey(s.priceCents)}`, amount: 1 });
    } else {
      out.push({ accountId: a, at: s.sentAt, field: `${where}.sent`, amount: 1 });
      if (!s.free) out.push({ accountId: a, at: s.sentAt, field: `${where}.ppvSent`, amount: 1 });
    }
  }
  const u = p.unlock;
  if (u) {
    const at = u.unlockedAt;
    if (p.unlinked !== undefined || s === undefined) {
      // Counted once, on the account: a PPV convops cannot name (no link) or never saw sent.
      const kind = p.unlinked !== undefined ? 'ppvUnlinked' : 'ppvUnseen';
      out.push({ accountId: a, at, field: `${kind}Unlocks`, amount: 1 });
      if (u.amountCents !== null) out.push({ accountId: a, at, field: `${kind}Cents`, amount: u.amountCents });
    } else {
      out.push({ accountId: a, at, field: `${where}.unlocked`, amount: 1 });
      out.push({ accountId: a, at, field: `${where}.ppvRevenueCents`, amount: s.priceCents });
      if (direct) out.push({ accountId: a, at, field: `${where}.unlockMin.${countKey(Math.floor(Math.max(0, at - s.sentAt) / MINUTE))}`, amount: 1 });
    }
  }
  return out;
}

/** A chatter's credited revenue and payments per model, as bucket fields (the session model's are the original two). */
export const MODEL_FIELDS: Readonly<Record<CreditModel, readonly [string, string]>> = {
  session: ['revenueCents', 'payments'],
  sender: ['senderCents', 'senderPayments'],
  converter: ['converterCents', 'converterPayments'],
};

export function paymentIncrements(p: PaymentDoc): Increment[] {
  const out: Increment[] = [
    { accountId: p.accountId, at: p.paidAt, field: 'revenueCents', amount: p.grossCents },
    { accountId: p.accountId, at: p.paidAt, field: 'payments', amount: 1 },
  ];
  for (const model of CREDIT_MODELS) {
    const credited = creditedChatter(p, model);
    if (credited === null) continue;
    const c = `chatters.${chatterKey(credited)}`;
    const [cents, count] = MODEL_FIELDS[model];
    out.push({ accountId: p.accountId, at: p.paidAt, field: `${c}.${cents}`, amount: p.grossCents });
    out.push({ accountId: p.accountId, at: p.paidAt, field: `${c}.${count}`, amount: 1 });
  }
  return out.concat(paymentWork(p));
}

export function incrementsOf(model: BucketedModel, doc: unknown): Increment[] {
  if (doc === undefined) return [];
  if (model === 'sessions') return sessionIncrements(doc as SessionDoc);
  if (model === 'messages') return messageIncrements(doc as MessageDoc);
  if (model === 'ppvs') return ppvIncrements(doc as PpvDoc);
  if (model === 'clock_intervals') return intervalWork(doc as ClockIntervalDoc);
  return paymentIncrements(doc as PaymentDoc);
}

/** What replacing `before` by `after` changes: the new contributions minus the old, netted. */
export function transitionIncrements(model: BucketedModel, before: unknown, after: unknown): Increment[] {
  // A new document (most of a replay's messages and payments) has nothing to net against.
  if (before === undefined) return incrementsOf(model, after).filter((i) => i.amount !== 0);
  const net = new Map<string, Increment>();
  const add = (i: Increment, sign: number) => {
    const key = `${i.accountId}\u0000${i.at ?? 'live'}\u0000${i.field}`;
    const prev = net.get(key);
    net.set(key, { accountId: i.accountId, at: i.at, field: i.field, amount: (prev?.amount ?? 0) + sign * i.amount });
  };
  for (const i of incrementsOf(model, before)) add(i, -1);
  for (const i of incrementsOf(model, after)) add(i, 1);
  return [...net.values()].filter((i) => i.amount !== 0);
}
