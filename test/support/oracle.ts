// An independent reading of the demo fixtures: a plain function from the signed records to
// the numbers the API reports, sharing no code with the pipeline. If the pipeline and this
// disagree, one of them misreads the data.
import type { DemoRecord } from '../../src/demo/demo-records.js';

// Platform bodies are read loosely here on purpose: the oracle must not borrow the normaliser.
type Obj = Record<string, any>;

interface OSession {
  account: string;
  open: boolean;
  closedAt: number | null;
  lastActivity: number;
  firstFan: number | null;
  frtSec: number | null;
  responder: string | null;
  lastHuman: string | null;
  waitingSince: number | null;
}

export interface OracleFigures {
  sessions: number;
  within: number;
  breaches: number;
  pct: number | null;
  median: number | null;
  p90: number | null;
}

export interface Oracle {
  sessionCount: number;
  openSessions: number;
  awaiting: number;
  sla: OracleFigures;
  slaByAccount: Record<string, OracleFigures>;
  /** Named chatters only: "nobody" is not an id (slaUnattributed has it). */
  slaByChatter: Record<string, OracleFigures>;
  /** The sessions first answered without a named chatter; null when none was. */
  slaUnattributed: OracleFigures | null;
  revenueByChatter: Record<string, number>;
  /** Every payment's amount, credited to a chatter or not. */
  revenueCents: number;
  sessionsByChatter: Record<string, number>;
  lifetimeSpend: Record<string, number | null>;
}

const IDLE_MS = 1800 * 1000;
// The defaults: a fan unanswered for a day closes the session; records may arrive two minutes late.
const UNANSWERED_MS = 86_400_000;
const LATE_MS = 120_000;

function when(p: Obj): number {
  if (typeof p.createdAt === 'string') return Date.parse(p.createdAt);
  return Date.parse(`${String(p.created_at).replace(' ', 'T')}Z`);
}

function rank(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length))) - 1] ?? null;
}

function figures(list: OSession[], threshold: number, now: number): OracleFigures {
  const withFan = list.filter((s) => s.firstFan !== null);
  let within = 0;
  let breaches = 0;
  for (const s of withFan) {
    // Waits count in whole seconds, to the nearest, as first responses do.
    if (s.frtSec !== null) {
      if (s.frtSec <= threshold) within++;
      else breaches++;
    } else if (Math.round(((s.open ? now : s.closedAt ?? now) - (s.firstFan ?? now)) / 1000) > threshold) {
      breaches++;
    }
  }
  const frts = withFan.map((s) => s.frtSec).filter((x): x is number => x !== null).sort((a, b) => a - b);
  return {
    sessions: withFan.length, within, breaches,
    pct: within + breaches === 0 ? null : Math.round((within / (within + breaches)) * 1000) / 10,
    median: rank(frts, 50), p90: rank(frts, 90),
  };
}

/**
 * `settledAt`: when the records were seeded as complete history (seed-demo): a session whose
 * end (the idle gap after its last activity; while its fan waits, a day after the wait began)
 * lies before that, less the lateness, is closed there. `shiftMs` moves every record's time
 * (seed-demo's recent timeline).
 */
export function oracle(records: readonly DemoRecord[], thresholdSec: number, now: number, settledAt?: number, shiftMs = 0): Oracle {
  const sessions: OSession[] = [];
  const current = new Map<string, OSession>();
  const waiting = new Map<string, boolean>();
  const reported = new Map<string, number>();
  const paid = new Map<string, number>();
  const revenueByChatter: Record<string, number> = {};
  const seenMessages = new Set<string>();
  const seenPayments = new Set<string>();

  for (const r of records) {
    const b = JSON.parse(r.body) as Obj;
    const p = b.payload as Obj;
    const account = String(b.account_id);
    const kind = String(b.event);
    const fanObj = kind === 'messages.received' ? p.fromUser : kind === 'messages.sent' ? p.toUser : kind === 'transactions.new' ? p.fan : p.user;
    if (!fanObj) continue;
    const chat = `${account}:${String(fanObj.id)}`;
    const t = when(p) + shiftMs;
    const spend = p.fanData?.spending?.total ?? p.fan?.spending?.total;
    if (typeof spend === 'number') reported.set(chat, Math.round(spend * 100));

    let s = current.get(chat);
    const relevant = kind === 'messages.received' || kind === 'messages.sent' || kind === 'transactions.new' || kind.startsWith('tips.') || kind.startsWith('messages.ppv') || kind.startsWith('subscriptions.');
    if (s && relevant && t > s.lastActivity + IDLE_MS) {
      s.open = false;
      s.closedAt = s.lastActivity + IDLE_MS;
      current.delete(chat);
      waiting.set(chat, false);
      s = undefined;
    }
    if (kind === 'messages.received' || kind === 'messages.sent') {
      const id = `${account}:${String(p.id)}`;
      if (seenMessages.has(id)) continue;
      seenMessages.add(id);
      const fan = kind === 'messages.received';
      const human = !fan && p.isFromQueue !== true;
      if (fan && !s) {
        s = { account, open: true, closedAt: null, lastActivity: t, firstFan: null, frtSec: null, responder: null, lastHuman: null, waitingSince: null };
        sessions.push(s);
        current.set(chat, s);
      }
      if (!s) continue;
      s.lastActivity = Math.max(s.lastActivity, t);
      if (fan) {
        s.firstFan ??= t;
        if (!waiting.get(chat)) s.waitingSince = t;
        waiting.set(chat, true);
      }
      if (human) {
        waiting.set(chat, false);
        s.waitingSince = null;
        if (s.frtSec === null && s.firstFan !== null && t >= s.firstFan) {
          s.frtSec = Math.round((t - s.firstFan) / 1000);
          s.responder = r.chatterId ?? null;
        }
        s.lastHuman = r.chatterId ?? null;
      }
    } else if (kind === 'transactions.new') {
      const id = `${account}:${String(p.id)}`;
      if (seenPayments.has(id)) continue;
      seenPayments.add(id);
      const cents = Math.round(Number(p.amount) * 100);
      paid.set(chat, (paid.get(chat) ?? 0) + cents);
      if (s) {
        s.lastActivity = Math.max(s.lastActivity, t);
        if (s.lastHuman) revenueByChatter[s.lastHuman] = (revenueByChatter[s.lastHuman] ?? 0) + cents;
      }
    }
  }

  if (settledAt !== undefined) {
    for (const [chat, s] of current) {
      const idle = s.lastActivity + IDLE_MS;
      const end = waiting.get(chat) && s.waitingSince !== null ? Math.max(idle, s.waitingSince + UNANSWERED_MS) : idle;
      if (end >= settledAt - LATE_MS) continue;
      s.open = false;
      s.closedAt = end;
      current.delete(chat);
      waiting.set(chat, false);
    }
  }

  const group = (key: (s: OSession) => string | null) => {
    const out: Record<string, OSession[]> = {};
    for (const s of sessions) {
      const k = key(s);
      if (k !== null) (out[k] ??= []).push(s);
    }
    return out;
  };
  const mapValues = <T, U>(o: Record<string, T>, f: (t: T) => U) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, f(v)]));
  const byChatter = group((s) => (s.frtSec === null ? null : s.responder ?? null));
  const nobody = sessions.filter((s) => s.frtSec !== null && (s.responder ?? null) === null);
  const chats = new Set([...reported.keys(), ...paid.keys()]);
  return {
    sessionCount: sessions.length,
    openSessions: sessions.filter((s) => s.open).length,
    awaiting: [...current.keys()].filter((c) => waiting.get(c)).length,
    sla: figures(sessions, thresholdSec, now),
    slaByAccount: mapValues(group((s) => s.account), (l) => figures(l, thresholdSec, now)),
    slaByChatter: mapValues(byChatter, (l) => figures(l, thresholdSec, now)),
    slaUnattributed: nobody.length === 0 ? null : figures(nobody, thresholdSec, now),
    revenueByChatter,
    revenueCents: [...paid.values()].reduce((n, c) => n + c, 0),
    sessionsByChatter: mapValues(group((s) => s.responder), (l) => l.length),
    lifetimeSpend: Object.fromEntries([...chats].map((c) => [c, Math.max(reported.get(c) ?? 0, paid.get(c) ?? 0)])),
  };
}
