// The reference model: the domain rules as plain functions over a chat's facts sorted by time
// and deduplicated, written apart from the machine, the ledger and the folds (it imports
// nothing from machines/ or src/). Tests compare what the system stored with what this says.
// If the two disagree, one of them misreads the rules; the rules are the README's.

export type Sender = 'fan' | 'human' | 'automated';

export type Fact =
  | { readonly kind: 'message'; readonly account: string; readonly chat: string; readonly id: string; readonly at: number; readonly sender: Sender; readonly chatter: string | null; readonly spend?: number }
  | { readonly kind: 'payment'; readonly account: string; readonly chat: string; readonly id: string; readonly at: number; readonly cents: number; readonly spend?: number; /** A PPV purchase (a `message` transaction); else a tip. */ readonly ppv?: boolean }
  | { readonly kind: 'close'; readonly account: string; readonly chat: string; readonly at: number };

export interface RefSession {
  sessionId: string;
  account: string;
  chatKey: string;
  status: 'open' | 'closed';
  openedAt: number;
  closedAt: number | null;
  closeReason: 'idle' | 'unanswered' | 'forced' | null;
  lastActivityAt: number;
  messageCount: number;
  fanMessageCount: number;
  replyCount: number;
  awaiting: boolean;
  waitingSince: number | null;
  firstResponseSec: number | null;
  firstResponderId: string | null;
  lastHumanChatterId: string | null;
  revenueCents: number;
  paymentCount: number;
  /** While open: when it ends unless something moves it (endOf); null once closed or never. */
  closesAt: number | null;
  /** How it ends at closesAt: unanswered while the fan waits, idle once answered; null with closesAt. */
  closesAs: 'idle' | 'unanswered' | null;
}

export interface RefChat {
  chatKey: string;
  account: string;
  messageCount: number;
  fanMessageCount: number;
  sessionCount: number;
  paidCents: number;
  paymentCount: number;
  lifetimeSpendCents: number | null;
  awaiting: boolean;
  openSessionId: string | null;
}

export interface RefAccount {
  messages: number;
  fanMessages: number;
  revenueCents: number;
  paymentCount: number;
  sessionsOpened: number;
  sessionsClosed: number;
}

export interface Reference {
  sessions: Map<string, RefSession>;
  chats: Map<string, RefChat>;
  /** `${account}:${messageId}` → where the message landed and who sent it. */
  messages: Map<string, { sessionId: string | null; chatterId: string | null; sender: Sender }>;
  /** `${account}:${paymentId}` → the session and chatter credited. */
  payments: Map<string, { sessionId: string | null; chatterId: string | null; cents: number }>;
  accounts: Map<string, RefAccount>;
}

const rankOf = (f: Fact): number => (f.kind === 'message' ? (f.sender === 'fan' ? 0 : 1) : f.kind === 'payment' ? 2 : 3);
const idOf = (f: Fact): string => (f.kind === 'close' ? '' : f.id);

/** Time order; at one instant a fan's message, then replies, then payments, then a close; then by id. */
function byTime(a: Fact, b: Fact): number {
  return a.at - b.at || rankOf(a) - rankOf(b) || (idOf(a) < idOf(b) ? -1 : idOf(a) > idOf(b) ? 1 : 0);
}

/** One fact per message and payment id; a copy that names the chatter names it for all copies. */
export function dedupe(facts: readonly Fact[]): Fact[] {
  const seen = new Map<string, Fact>();
  const out: Fact[] = [];
  for (const f of facts) {
    if (f.kind === 'close') {
      out.push(f);
      continue;
    }
    const key = `${f.kind}:${f.chat}:${f.id}`;
    const prev = seen.get(key);
    if (!prev) {
      seen.set(key, f);
      out.push(f);
    } else if (f.kind === 'message' && prev.kind === 'message' && prev.chatter === null && f.chatter !== null && prev.sender === 'human') {
      const named = { ...prev, chatter: f.chatter };
      seen.set(key, named);
      out[out.indexOf(prev)] = named;
    }
  }
  return out;
}

/**
 * `closedBy`: a clock time; sessions whose deadline is before it are closed at their deadline.
 * `unansweredMs`: how long a fan's unanswered wait keeps the session open (0: for ever).
 */
export function reference(input: readonly Fact[], idleMs: number, closedBy = Number.NEGATIVE_INFINITY, unansweredMs = 86_400_000, limitEnd?: LimitEnd): Reference {
  const facts = dedupe(input).sort(byTime);
  const ref: Reference = { sessions: new Map(), chats: new Map(), messages: new Map(), payments: new Map(), accounts: new Map() };
  const byChat = new Map<string, Fact[]>();
  for (const f of facts) {
    const k = `${f.account}:${f.chat}`;
    byChat.set(k, [...(byChat.get(k) ?? []), f]);
  }
  for (const [chatKey, list] of byChat) walkChat(ref, chatKey, list, idleMs, closedBy, unansweredMs, limitEnd);
  return ref;
}

function account(ref: Reference, id: string): RefAccount {
  let a = ref.accounts.get(id);
  if (!a) {
    a = { messages: 0, fanMessages: 0, revenueCents: 0, paymentCount: 0, sessionsOpened: 0, sessionsClosed: 0 };
    ref.accounts.set(id, a);
  }
  return a;
}

/** An account on business hours: when a wait begun at `since` reaches the unanswered limit in its open hours (the test's own arithmetic). */
export type LimitEnd = (account: string, since: number) => number;

function walkChat(ref: Reference, chatKey: string, facts: readonly Fact[], idleMs: number, closedBy: number, unansweredMs: number, limitEnd?: LimitEnd): void {
  // A close command alone is no sign of a chat.
  if (facts.every((f) => f.kind === 'close')) return;
  const acct = (facts[0] as Fact).account;
  const chat: RefChat = { chatKey, account: acct, messageCount: 0, fanMessageCount: 0, sessionCount: 0, paidCents: 0, paymentCount: 0, lifetimeSpendCents: null, awaiting: false, openSessionId: null };
  ref.chats.set(chatKey, chat);
  const totals = account(ref, acct);
  let open: RefSession | null = null;
  let spend: { at: number; cents: number } | null = null;
  // An answered session ends an idle gap after its last activity. One whose fan still waits
  // ends no sooner than the unanswered limit after the wait began, and then as unanswered.
  const endOf = (s: RefSession): number => {
    const idle = s.lastActivityAt + idleMs;
    if (!s.awaiting || s.waitingSince === null) return idle;
    if (unansweredMs === 0) return Number.POSITIVE_INFINITY;
    return Math.max(idle, limitEnd ? limitEnd(s.account, s.waitingSince) : s.waitingSince + unansweredMs);
  };
  const closeOpen = (reason: 'ended' | 'forced', at: number): void => {
    if (!open) return;
    open.status = 'closed';
    open.closeReason = reason === 'forced' ? 'forced' : open.awaiting ? 'unanswered' : 'idle';
    open.closedAt = reason === 'forced' ? Math.max(at, open.lastActivityAt) : endOf(open);
    open.closesAt = null;
    open.closesAs = null;
    totals.sessionsClosed++;
    open = null;
  };
  for (const f of facts) {
    if (open && f.at > endOf(open)) closeOpen('ended', f.at);
    if (f.kind === 'close') {
      closeOpen('forced', f.at);
      continue;
    }
    // The fan's lifetime spend as last reported: the report with the latest time wins.
    if (f.spend !== undefined && (!spend || f.at > spend.at || (f.at === spend.at && f.spend > spend.cents))) spend = { at: f.at, cents: f.spend };
    if (f.kind === 'message') {
      chat.messageCount++;
      totals.messages++;
      if (f.sender === 'fan') {
        chat.fanMessageCount++;
        totals.fanMessages++;
      }
      if (f.sender === 'fan' && !open) {
        chat.sessionCount++;
        totals.sessionsOpened++;
        open = {
          sessionId: `${chatKey}:${chat.sessionCount}`, account: acct, chatKey, status: 'open', openedAt: f.at, closedAt: null, closeReason: null,
          lastActivityAt: f.at, messageCount: 0, fanMessageCount: 0, replyCount: 0, awaiting: false, waitingSince: null,
          firstResponseSec: null, firstResponderId: null, lastHumanChatterId: null, revenueCents: 0, paymentCount: 0, closesAt: null, closesAs: null,
        };
        ref.sessions.set(open.sessionId, open);
      }
      const s: RefSession | null = open;
      ref.messages.set(`${acct}:${f.id}`, { sessionId: s ? s.sessionId : null, chatterId: f.chatter, sender: f.sender });
      if (!s) continue;
      s.messageCount++;
      s.lastActivityAt = Math.max(s.lastActivityAt, f.at);
      if (f.sender === 'fan') {
        s.fanMessageCount++;
        if (!s.awaiting) {
          s.awaiting = true;
          s.waitingSince = f.at;
        }
      } else if (f.sender === 'human') {
        s.replyCount++;
        s.awaiting = false;
        s.waitingSince = null;
        if (s.firstResponseSec === null) {
          s.firstResponseSec = Math.round((f.at - s.openedAt) / 1000);
          s.firstResponderId = f.chatter;
        }
        s.lastHumanChatterId = f.chatter;
      }
      continue;
    }
    chat.paidCents += f.cents;
    chat.paymentCount++;
    totals.revenueCents += f.cents;
    totals.paymentCount++;
    const s: RefSession | null = open;
    if (s) {
      s.revenueCents += f.cents;
      s.paymentCount++;
      s.lastActivityAt = Math.max(s.lastActivityAt, f.at);
    }
    ref.payments.set(`${acct}:${f.id}`, { sessionId: s ? s.sessionId : null, chatterId: s ? s.lastHumanChatterId : null, cents: f.cents });
  }
  const stillOpen: RefSession | null = open;
  if (stillOpen && endOf(stillOpen) < closedBy) closeOpen('ended', closedBy);
  const last: RefSession | null = open;
  if (last) {
    last.closesAt = Number.isFinite(endOf(last)) ? endOf(last) : null;
    last.closesAs = last.closesAt === null ? null : last.awaiting ? 'unanswered' : 'idle';
  }
  chat.openSessionId = last ? last.sessionId : null;
  chat.awaiting = last ? last.awaiting : false;
  if (spend !== null || chat.paidCents > 0) chat.lifetimeSpendCents = Math.max(spend?.cents ?? 0, chat.paidCents);
}
