// Generated conversations for property tests: facts in time order, then an arrival order the
// platform could produce (late within the allowed lateness, redelivered anywhere, connector
// copies naming a reply's chatter, forced closes, clock ticks). fast-check shrinks a failure
// to a small case and prints its seed.
import fc from 'fast-check';
import type { Fact } from './reference-model.js';

export const T0 = Date.parse('2026-06-10T09:00:00Z');

/** One delivery, in arrival order. */
export type Arrival =
  | { readonly kind: 'fact'; readonly fact: Fact; readonly key: string }
  | { readonly kind: 'tick'; readonly at: number };

export interface Conversation {
  /** The facts as they happened (each once, plus the connector's copies), what the reference model reads. */
  readonly facts: Fact[];
  readonly arrivals: Arrival[];
  readonly maxAt: number;
}

interface Step {
  readonly gapMs: number;
  readonly what: number;
  readonly chatter: number;
  readonly cents: number;
  readonly spend: number | null;
  readonly chat: number;
}

const stepArb = (idleMs: number) => fc.record({
  // Mostly a conversation's pace, sometimes the same millisecond, sometimes past the idle gap.
  gapMs: fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: 0, max: 180 }).map((s) => s * 1000) },
    { weight: 1, arbitrary: fc.constant(0) },
    { weight: 1, arbitrary: fc.integer({ min: idleMs / 1000 - 60, max: idleMs / 1000 + 900 }).map((s) => s * 1000) },
  ),
  what: fc.integer({ min: 0, max: 99 }),
  chatter: fc.integer({ min: 0, max: 3 }),
  cents: fc.integer({ min: 100, max: 9_999 }),
  spend: fc.option(fc.integer({ min: 0, max: 50_000 }), { nil: null }),
  chat: fc.integer({ min: 0, max: 2 }),
});

const CHATTERS = ['ann', 'bo', 'cy', null] as const;

function factsOf(steps: readonly Step[], account: string, withCloses: boolean): { facts: Fact[]; copies: Fact[] } {
  const facts: Fact[] = [];
  const copies: Fact[] = [];
  const clocks = [T0, T0, T0];
  steps.forEach((s, i) => {
    const chat = String(700_000 + s.chat);
    const at = (clocks[s.chat] as number) + s.gapMs;
    clocks[s.chat] = at;
    const id = String(1_000_000 + i);
    if (s.what < 40) {
      facts.push({ kind: 'message', account, chat, id, at, sender: 'fan', chatter: null, ...(s.spend !== null ? { spend: s.spend } : {}) });
    } else if (s.what < 72) {
      const chatter = CHATTERS[s.chatter] ?? null;
      // The webhook's copy of a reply names nobody; the connector's copy, arriving apart, does.
      if (chatter !== null && s.what < 52) {
        facts.push({ kind: 'message', account, chat, id, at, sender: 'human', chatter: null });
        copies.push({ kind: 'message', account, chat, id, at, sender: 'human', chatter });
      } else {
        facts.push({ kind: 'message', account, chat, id, at, sender: 'human', chatter });
      }
    } else if (s.what < 80) {
      facts.push({ kind: 'message', account, chat, id, at, sender: 'automated', chatter: null });
    } else if (s.what < 97 || !withCloses) {
      facts.push({ kind: 'payment', account, chat, id: `tx${i}`, at, cents: s.cents });
    } else {
      // Half a second past a record: a close never ties with one.
      facts.push({ kind: 'close', account, chat, at: at + 500 });
      clocks[s.chat] = at + 1000;
    }
  });
  return { facts, copies };
}

export interface ConversationOptions {
  readonly idleMs: number;
  readonly lateMs: number;
  readonly minSteps?: number;
  readonly maxSteps?: number;
  readonly withCloses?: boolean;
  readonly account?: string;
}

/** Conversations with their arrival orders. */
export function conversationArb(o: ConversationOptions): fc.Arbitrary<Conversation> {
  const account = o.account ?? 'acct_00000000000000000000000000000p01';
  return fc.array(stepArb(o.idleMs), { minLength: o.minSteps ?? 1, maxLength: o.maxSteps ?? 60 })
    .chain((steps) => {
      const { facts, copies } = factsOf(steps, account, o.withCloses ?? true);
      const n = facts.length + copies.length;
      return fc.record({
        facts: fc.constant(facts),
        copies: fc.constant(copies),
        delays: fc.array(fc.integer({ min: 0, max: o.lateMs }), { minLength: n, maxLength: n }),
        duplicates: fc.array(fc.record({ of: fc.nat(), at: fc.nat() }), { maxLength: Math.ceil(n / 4) }),
        ticks: fc.array(fc.nat(), { maxLength: 4 }),
      });
    })
    .map(({ facts, copies, delays, duplicates, ticks }) => arrange(facts, copies, delays, duplicates, ticks, o.lateMs));
}

function keyOf(f: Fact, i: number): string {
  return `evt_${f.kind}_${f.chat}_${f.kind === 'close' ? f.at : f.id}_${i}`;
}

/**
 * An arrival order: each fact comes up to `lateMs` after its time (so none is later than the
 * lateness behind the latest before it); a forced close is a barrier (the admin closed "now":
 * what happened before it arrived before it); duplicates land anywhere after their original.
 */
function arrange(facts: Fact[], copies: Fact[], delays: number[], duplicates: { of: number; at: number }[], ticks: number[], lateMs: number): Conversation {
  const all = [...facts, ...copies];
  const keyed = all.map((f, i) => ({ f, key: keyOf(f, i), arriveAt: f.kind === 'close' ? f.at : f.at + (delays[i] ?? 0) }));
  const closes = keyed.filter((k) => k.f.kind === 'close').sort((a, b) => a.f.at - b.f.at);
  const segmentOf = (at: number): number => closes.filter((c) => c.f.at < at).length;
  const ordered = keyed
    .map((k) => ({ ...k, segment: k.f.kind === 'close' ? closes.indexOf(k) + 0.5 : segmentOf(k.f.at) }))
    .sort((a, b) => a.segment - b.segment || a.arriveAt - b.arriveAt);
  let arrivals: Arrival[] = ordered.map((k) => ({ kind: 'fact', fact: k.f, key: k.key }));
  for (const d of duplicates) {
    if (arrivals.length === 0) break;
    const from = d.of % arrivals.length;
    const original = arrivals[from];
    if (original?.kind !== 'fact' || original.fact.kind === 'close') continue;
    const to = from + 1 + (d.at % (arrivals.length - from));
    arrivals = [...arrivals.slice(0, to), original, ...arrivals.slice(to)];
  }
  // A tick at time T promises nothing older than T less the lateness is still to come.
  for (const t of ticks) {
    const pos = t % (arrivals.length + 1);
    const later = arrivals.slice(pos).flatMap((a) => (a.kind === 'fact' ? [a.fact.at] : []));
    if (later.length === 0) continue;
    arrivals = [...arrivals.slice(0, pos), { kind: 'tick', at: Math.min(...later) + lateMs }, ...arrivals.slice(pos)];
  }
  const maxAt = Math.max(T0, ...all.map((f) => f.at));
  return { facts: all, arrivals, maxAt };
}
