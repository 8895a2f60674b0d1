// The report windows (issue 14) as plain functions over the reference model's reading of the
// facts: which sessions, messages and payments fall in [from, to), and the figures the report
// routes give for them. Written from the contract in the README, not from the rollups that
// serve it: nothing here knows about buckets, levels or time zones other than through
// `Intl`, and it imports nothing from src/ or machines/. It scans every fact for every window,
// which is slow and obviously right.
import { dedupe, reference, type Fact, type RefSession, type Sender } from './reference-model.js';

/** Epoch milliseconds; null: open on that side. `from` inclusive, `to` exclusive. */
export interface Window {
  readonly from: number | null;
  readonly to: number | null;
}

export function inWindow(w: Window, at: number): boolean {
  return (w.from === null || at >= w.from) && (w.to === null || at < w.to);
}

export interface ReportMessage { readonly account: string; readonly chatKey: string; readonly at: number; readonly sender: Sender }
export interface ReportPayment { readonly account: string; readonly chatKey: string; readonly id: string; readonly at: number; readonly cents: number; readonly chatterId: string | null }

/** What every report is computed from: each session, message and payment once, with its time. */
export interface ReportData {
  readonly sessions: readonly RefSession[];
  readonly messages: readonly ReportMessage[];
  readonly payments: readonly ReportPayment[];
  /** Per chat, when its first session opened (null: the chat never had one). */
  readonly chats: readonly { readonly account: string; readonly chatKey: string; readonly firstSessionAt: number | null }[];
}

/**
 * The reference model's sessions (closed idle by `closedBy`, as a clock tick at that time less
 * the lateness closes them), and the deduplicated messages and payments with their times.
 * Message and payment ids must be unique per account (the reference model deduplicates by chat and id).
 */
export function reportData(facts: readonly Fact[], idleMs: number, closedBy = Number.NEGATIVE_INFINITY): ReportData {
  const ref = reference(facts, idleMs, closedBy);
  const unique = dedupe(facts);
  const messages: ReportMessage[] = [];
  const payments: ReportPayment[] = [];
  for (const f of unique) {
    const chatKey = `${f.account}:${f.chat}`;
    if (f.kind === 'message') messages.push({ account: f.account, chatKey, at: f.at, sender: f.sender });
    if (f.kind === 'payment') {
      const credited = ref.payments.get(`${f.account}:${f.id}`);
      if (!credited) throw new Error(`reference model lost payment ${f.account}:${f.id}`);
      payments.push({ account: f.account, chatKey, id: f.id, at: f.at, cents: f.cents, chatterId: credited.chatterId });
    }
  }
  const sessions = [...ref.sessions.values()];
  const chats = [...ref.chats.values()].map((c) => {
    const opened = sessions.filter((s) => s.chatKey === c.chatKey).map((s) => s.openedAt);
    return { account: c.account, chatKey: c.chatKey, firstSessionAt: opened.length === 0 ? null : Math.min(...opened) };
  });
  return { sessions, messages, payments, chats };
}

// ---------------------------------------------------------------------------------------------
// SLA

export interface SlaFigures {
  sessions: number;
  responded: number;
  withinThreshold: number;
  breaches: number;
  missed: number;
  pending: number;
  withinThresholdPct: number | null;
  medianFirstResponseSec: number | null;
  p90FirstResponseSec: number | null;
}

export const SLA_FIELDS = ['sessions', 'responded', 'withinThreshold', 'breaches', 'missed', 'pending', 'withinThresholdPct', 'medianFirstResponseSec', 'p90FirstResponseSec'] as const;

export type Outcome = 'within' | 'breach' | 'pending';

/** A session's SLA outcome at `now`: the fan waited until the reply, the close, or now. */
export function outcome(s: RefSession, thresholdSec: number, now: number): Outcome {
  if (s.firstResponseSec !== null) return s.firstResponseSec <= thresholdSec ? 'within' : 'breach';
  // Closed without a reply: none can come in time any more.
  if (s.status === 'closed') return 'breach';
  // Waits count in whole seconds, to the nearest (as first response times are recorded).
  return Math.round((now - s.openedAt) / 1000) > thresholdSec ? 'breach' : 'pending';
}

/** The value at rank ceil(p/100 · n) of the sorted values (rank at least 1). */
export function nearestRank(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil((p * sorted.length) / 100));
  return sorted[rank - 1] as number;
}

/** 100 · part / whole to one decimal, halves up, in integers (no float rounding on the way). */
export function pct1(part: number, whole: number): number | null {
  if (whole === 0) return null;
  return Math.floor((2000 * part + whole) / (2 * whole)) / 10;
}

export function slaFigures(sessions: readonly RefSession[], thresholdSec: number, now: number): SlaFigures {
  // Every session opens on a fan message, so every one counts.
  const outcomes = sessions.map((s) => outcome(s, thresholdSec, now));
  const within = outcomes.filter((o) => o === 'within').length;
  const breaches = outcomes.filter((o) => o === 'breach').length;
  const frts = sessions.flatMap((s) => (s.firstResponseSec === null ? [] : [s.firstResponseSec])).sort((a, b) => a - b);
  return {
    sessions: sessions.length,
    responded: frts.length,
    withinThreshold: within,
    breaches,
    // Closed at the unanswered limit with no human reply at all: breaches, and counted on their
    // own. (One answered once and then left waiting also closes as unanswered; its SLA outcome
    // is its first response's.)
    missed: sessions.filter((s) => s.status === 'closed' && s.closeReason === 'unanswered' && s.firstResponseSec === null).length,
    pending: outcomes.filter((o) => o === 'pending').length,
    withinThresholdPct: pct1(within, within + breaches),
    medianFirstResponseSec: nearestRank(frts, 50),
    p90FirstResponseSec: nearestRank(frts, 90),
  };
}

const byKey = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function groupBy<T>(items: readonly T[], key: (t: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const i of items) out.set(key(i), [...(out.get(key(i)) ?? []), i]);
  return out;
}

export interface SlaAnswer extends SlaFigures {
  byAccount: (SlaFigures & { accountId: string })[];
  /** Named chatters by id, then (null) the sessions first answered by nobody named. */
  byChatter: (SlaFigures & { chatterId: string | null })[];
}

/** Sessions whose first fan message (the session's opening) lies in the window, of one account or all. */
export function sessionsIn(d: ReportData, w: Window, accountId?: string): RefSession[] {
  return d.sessions.filter((s) => inWindow(w, s.openedAt) && (accountId === undefined || s.account === accountId));
}

export function slaAnswer(d: ReportData, w: Window, thresholdSec: number, now: number, accountId?: string): SlaAnswer {
  const counted = sessionsIn(d, w, accountId);
  const byAccount = [...groupBy(counted, (s) => s.account)].sort(([a], [b]) => byKey(a, b))
    .map(([id, list]) => ({ accountId: id, ...slaFigures(list, thresholdSec, now) }));
  const answered = counted.filter((s) => s.firstResponseSec !== null);
  const named = answered.filter((s) => s.firstResponderId !== null);
  const nobody = answered.filter((s) => s.firstResponderId === null);
  const byChatter: SlaAnswer['byChatter'] = [...groupBy(named, (s) => s.firstResponderId ?? '')].sort(([a], [b]) => byKey(a, b))
    .map(([id, list]) => ({ chatterId: id, ...slaFigures(list, thresholdSec, now) }));
  if (nobody.length > 0) byChatter.push({ chatterId: null, ...slaFigures(nobody, thresholdSec, now) });
  return { ...slaFigures(counted, thresholdSec, now), byAccount, byChatter };
}

// ---------------------------------------------------------------------------------------------
// Scorecard

export interface ScorecardFigures {
  sessions: number;
  revenueCents: number;
  paymentCount: number;
  sla: SlaFigures;
}

/** One row per chatter who first answered a session in the window or is credited with a payment paid in it. */
export function scorecardAnswer(d: ReportData, w: Window, thresholdSec: number, now: number, accountId?: string): Map<string, ScorecardFigures> {
  const answered = sessionsIn(d, w, accountId).filter((s) => s.firstResponderId !== null);
  const sessionsBy = groupBy(answered, (s) => s.firstResponderId as string);
  const paid = d.payments.filter((p) => p.chatterId !== null && inWindow(w, p.at) && (accountId === undefined || p.account === accountId));
  const paymentsBy = groupBy(paid, (p) => p.chatterId as string);
  const out = new Map<string, ScorecardFigures>();
  for (const id of [...new Set([...sessionsBy.keys(), ...paymentsBy.keys()])].sort(byKey)) {
    const mine = sessionsBy.get(id) ?? [];
    const pays = paymentsBy.get(id) ?? [];
    out.set(id, { sessions: mine.length, revenueCents: pays.reduce((n, p) => n + p.cents, 0), paymentCount: pays.length, sla: slaFigures(mine, thresholdSec, now) });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Overview and accounts

export interface AccountFigures {
  chats: number;
  sessions: number;
  openSessions: number;
  awaiting: number;
  messages: number;
  fanMessages: number;
  revenueCents: number;
  paymentCount: number;
}

export const ACCOUNT_FIELDS = ['chats', 'sessions', 'openSessions', 'awaiting', 'messages', 'fanMessages', 'revenueCents', 'paymentCount'] as const;

const awaitingNow = (s: RefSession): boolean => s.status === 'open' && s.awaiting;

/**
 * Per account with any session opened, message sent or payment paid in the window: what it
 * did in the window. Sessions count by when they opened; open and awaiting are their state now.
 */
export function accountsAnswer(d: ReportData, w: Window, accountId?: string): Map<string, AccountFigures> {
  const mine = <T extends { account: string }>(list: readonly T[]): T[] => list.filter((x) => accountId === undefined || x.account === accountId);
  const sessions = mine(d.sessions).filter((s) => inWindow(w, s.openedAt));
  const messages = mine(d.messages).filter((m) => inWindow(w, m.at));
  const payments = mine(d.payments).filter((p) => inWindow(w, p.at));
  const chats = mine(d.chats).filter((c) => c.firstSessionAt !== null && inWindow(w, c.firstSessionAt));
  const ids = [...new Set([...sessions, ...messages, ...payments].map((x) => x.account))].sort(byKey);
  const out = new Map<string, AccountFigures>();
  for (const id of ids) {
    const s = sessions.filter((x) => x.account === id);
    const m = messages.filter((x) => x.account === id);
    const p = payments.filter((x) => x.account === id);
    out.set(id, {
      chats: chats.filter((x) => x.account === id).length,
      sessions: s.length,
      openSessions: s.filter((x) => x.status === 'open').length,
      awaiting: s.filter(awaitingNow).length,
      messages: m.length,
      fanMessages: m.filter((x) => x.sender === 'fan').length,
      revenueCents: p.reduce((n, x) => n + x.cents, 0),
      paymentCount: p.length,
    });
  }
  return out;
}

export interface OverviewAnswer {
  accounts: number;
  chats: number;
  sessions: { total: number; open: number; closed: number; awaiting: number };
  messages: { total: number; fromFans: number; outbound: number };
  revenue: { cents: number; payments: number };
}

export function overviewAnswer(d: ReportData, w: Window, accountId?: string): OverviewAnswer {
  const perAccount = [...accountsAnswer(d, w, accountId).values()];
  const sum = (f: (a: AccountFigures) => number): number => perAccount.reduce((n, a) => n + f(a), 0);
  return {
    accounts: perAccount.length,
    chats: sum((a) => a.chats),
    sessions: { total: sum((a) => a.sessions), open: sum((a) => a.openSessions), closed: sum((a) => a.sessions - a.openSessions), awaiting: sum((a) => a.awaiting) },
    messages: { total: sum((a) => a.messages), fromFans: sum((a) => a.fanMessages), outbound: sum((a) => a.messages - a.fanMessages) },
    revenue: { cents: sum((a) => a.revenueCents), payments: sum((a) => a.paymentCount) },
  };
}

// ---------------------------------------------------------------------------------------------
// Window bounds as text

/** The UTC offset of `timeZone` at `at`, in milliseconds (local = UTC + offset), read off Intl. */
export function zoneOffsetMs(timeZone: string, at: number): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
  }).formatToParts(new Date(at));
  const n = (type: string): number => Number(parts.find((p) => p.type === type)?.value);
  const local = Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute'), n('second'));
  return local - (at - (((at % 1000) + 1000) % 1000));
}

/** The instant a calendar day (YYYY-MM-DD) starts in `timeZone`; zones whose midnight can fall in a DST gap are not supported. */
export function midnightIn(timeZone: string, date: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!m) throw new Error(`not a date: ${date}`);
  const wall = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  let at = wall - zoneOffsetMs(timeZone, wall);
  at = wall - zoneOffsetMs(timeZone, at);
  if (wall !== at + zoneOffsetMs(timeZone, at)) throw new Error(`${date} has no midnight in ${timeZone}`);
  return at;
}

/** The calendar date (YYYY-MM-DD) of `at` in `timeZone`. */
export function dateIn(timeZone: string, at: number): string {
  return new Date(at + zoneOffsetMs(timeZone, at)).toISOString().slice(0, 10);
}

/** The start of the day around `at` in `timeZone`, or `days` days later or earlier. */
export function dayStartIn(timeZone: string, at: number, days = 0): number {
  const d = new Date(Date.parse(`${dateIn(timeZone, at)}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
  return midnightIn(timeZone, d);
}

/** `at` written with a fixed UTC offset in minutes (e.g. 2026-06-10T11:30:00.250+02:00); whole seconds without a fraction when `short`. */
export function withOffset(at: number, offsetMin: number, short = false): string {
  const local = new Date(at + offsetMin * 60_000).toISOString().slice(0, -1);
  const text = short && at % 1000 === 0 ? local.slice(0, -4) : local;
  if (offsetMin === 0 && short) return `${text}Z`;
  const sign = offsetMin < 0 ? '-' : '+';
  const abs = Math.abs(offsetMin);
  return `${text}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}
