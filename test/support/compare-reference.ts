// Compares stored read models with the reference model, figure by figure: counts and sums
// (messages, sessions, revenue, lifetime spend), session timings, who is credited. Returns
// readable differences (empty when they agree), so a failure says which chat went wrong.
import type { Reference } from './reference-model.js';

type Row = Record<string, unknown> & { _id: string };

export interface StoredModels {
  readonly sessions: readonly Row[];
  readonly chats: readonly Row[];
  readonly messages: readonly Row[];
  readonly payments: readonly Row[];
  readonly account_stats: readonly Row[];
}

const SESSION_FIELDS = [
  'status', 'openedAt', 'closedAt', 'closeReason', 'lastActivityAt', 'messageCount', 'fanMessageCount', 'replyCount', 'awaiting',
  'waitingSince', 'firstResponseSec', 'firstResponderId', 'lastHumanChatterId', 'revenueCents', 'paymentCount', 'closesAt', 'closesAs',
] as const;
const CHAT_FIELDS = ['messageCount', 'fanMessageCount', 'sessionCount', 'paidCents', 'paymentCount', 'lifetimeSpendCents', 'awaiting', 'openSessionId'] as const;
const ACCOUNT_FIELDS = ['messages', 'fanMessages', 'revenueCents', 'paymentCount', 'sessionsOpened', 'sessionsClosed'] as const;

function diff(out: string[], what: string, expected: Record<string, unknown>, actual: Row | undefined, fields: readonly string[]): void {
  if (!actual) {
    out.push(`${what}: missing`);
    return;
  }
  const wrong = fields.filter((f) => (expected[f] ?? null) !== (actual[f] ?? null));
  if (wrong.length > 0) out.push(`${what}: ${wrong.map((f) => `${f} expected ${JSON.stringify(expected[f])} got ${JSON.stringify(actual[f])}`).join(', ')}`);
}

/**
 * A session the reference leaves open whose deadline the last tick's clock (`clock`) passed: the
 * lateness keeps it open in the log, but the tick said it lapsed (SessionLapsed), so it is stored
 * as a reader shows it, closed at its deadline for the reason it would close with.
 */
function asStored(s: Record<string, unknown>, clock: number | undefined): Record<string, unknown> {
  if (clock === undefined || s.status !== 'open' || typeof s.closesAt !== 'number' || !(s.closesAt < clock)) return s;
  return { ...s, status: 'closed', closedAt: s.closesAt, closeReason: s.closesAs, swept: true };
}

/** `clock`: the last tick's time, when one came after the records (see asStored). */
export function compareWithReference(ref: Reference, stored: StoredModels, limit = 12, clock?: number): string[] {
  const out: string[] = [];
  const byId = (rows: readonly Row[]) => new Map(rows.map((r) => [r._id, r]));
  const sessions = byId(stored.sessions);
  for (const [id, s] of ref.sessions) diff(out, `session ${id}`, asStored(s as unknown as Record<string, unknown>, clock), sessions.get(id), [...SESSION_FIELDS, 'swept']);
  for (const id of sessions.keys()) if (!ref.sessions.has(id)) out.push(`session ${id}: not expected`);
  const chats = byId(stored.chats);
  for (const [id, c] of ref.chats) diff(out, `chat ${id}`, c as unknown as Record<string, unknown>, chats.get(id), CHAT_FIELDS);
  const messages = byId(stored.messages.filter((m) => m.tombstone !== true));
  for (const [id, m] of ref.messages) diff(out, `message ${id}`, m, messages.get(id), ['sessionId', 'chatterId', 'sender']);
  if (messages.size !== ref.messages.size) out.push(`messages: expected ${ref.messages.size} documents, got ${messages.size}`);
  const payments = byId(stored.payments);
  for (const [id, p] of ref.payments) diff(out, `payment ${id}`, { ...p, grossCents: p.cents }, payments.get(id), ['sessionId', 'chatterId', 'grossCents']);
  // Account totals are kept as one row per partition: add them up, as readers do.
  const totals = new Map<string, Record<string, number>>();
  for (const r of stored.account_stats) {
    const t = totals.get(String(r.accountId)) ?? {};
    for (const f of ACCOUNT_FIELDS) t[f] = (t[f] ?? 0) + Number(r[f] ?? 0);
    totals.set(String(r.accountId), t);
  }
  for (const [id, a] of ref.accounts) diff(out, `account ${id}`, a as unknown as Record<string, unknown>, totals.has(id) ? { _id: id, ...totals.get(id) } : undefined, ACCOUNT_FIELDS);
  return out.slice(0, limit);
}
