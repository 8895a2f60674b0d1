// step() drives the session machine through a hand-built copy of an XState internal (the inert
// actor scope) for speed. Nothing in XState's typings holds that copy to what XState itself
// does, so this pins it: every fixture sequence and a few hundred generated input sequences go
// through both step() and XState's public transition(), and the next state and the emitted
// events must be identical at every step. An XState upgrade or a machine change that makes the
// copy diverge (an action the scope drops, a snapshot field it loses) fails here first.
// Written against the public API only (initialChatState, step, sessionMachine), so it keeps
// holding while the machine's internals change.
// A failure prints fast-check's seed and path: rerun with PROPERTY_SEED / PROPERTY_PATH.
import fc from 'fast-check';
import { initialTransition, transition } from 'xstate';
import { describe, expect, it } from 'vitest';
import type { ChatInput, FanSignalKind, MessageSender, PaymentKind } from '../../machines/chat-input.js';
import { MemoryLedger } from '../../machines/ledger.js';
import { SESSION_EVENT_TYPES, type SessionEvent } from '../../machines/session-events.js';
import { sessionMachine, type ChatMachineInput } from '../../machines/session-machine.js';
import { initialChatState, step, type ChatState } from '../../machines/step.js';
import { fixtureFiles, fixtureInput, loadSequence } from '../support/fixture-sequences.js';

type Snapshot = ReturnType<typeof sessionMachine.resolveState>;

const ACCOUNT = 'acct_eq';
const CHAT = '42';

/** The events an XState action list emits, in order: what step() must report as well. */
function emitted(actions: readonly { type: string; params?: unknown }[]): SessionEvent[] {
  return actions.filter((a) => a.type === 'xstate.emit').map((a) => (a.params as { event: SessionEvent }).event);
}

type Outcome<T> = { ok: true; value: T } | { ok: false; error: string };

function attempt<T>(f: () => T): Outcome<T> {
  try {
    return { ok: true, value: f() };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) };
  }
}

/**
 * Runs the inputs through step() (from its storable state) and through transition() (from the
 * live snapshot XState hands back), comparing after every input. Throws on the first difference.
 */
function runBoth(machineInput: ChatMachineInput, inputs: readonly ChatInput[], seen = new Set<string>()): { steps: number; events: number } {
  let mine: ChatState = initialChatState(machineInput);
  const [first, firstActions] = initialTransition(sessionMachine, machineInput);
  let theirs: Snapshot = first;
  expect(emitted(firstActions)).toEqual([]);
  expect(mine).toStrictEqual({ value: theirs.value, context: theirs.context });
  let events = 0;
  inputs.forEach((input, i) => {
    const where = `input #${i} ${JSON.stringify(input)}`;
    const a = attempt(() => step(mine, input));
    const b = attempt(() => transition(sessionMachine, theirs, input));
    // Either both refuse the input the same way, or neither does.
    if (!a.ok || !b.ok) {
      expect({ step: a.ok ? 'returned' : a.error, where }).toEqual({ step: b.ok ? 'returned' : b.error, where });
      return;
    }
    const [next, actions] = b.value;
    // XState reports an action that threw as an errored snapshot, not an exception; step()'s
    // plain state cannot carry that, so the reference must never get there.
    expect({ status: next.status, where }).toEqual({ status: 'active', where });
    expect({ state: a.value.state, where }).toStrictEqual({ state: { value: next.value, context: next.context }, where });
    expect({ events: a.value.events, where }).toStrictEqual({ events: emitted(actions), where });
    events += a.value.events.length;
    for (const e of a.value.events) seen.add(e.type);
    mine = a.value.state;
    theirs = next;
  });
  return { steps: inputs.length, events };
}

// ---- fixtures (loaded as test/machines/sequences.test.ts loads them) --------------------

// ---- generated inputs -------------------------------------------------------------------

const T0 = Date.parse('2026-03-01T09:00:00Z');
// Small pools, so ids, keys and chatters collide: redeliveries, copies and deletions hit real targets.
const messageIds = fc.constantFrom('m1', 'm2', 'm3', 'm4', 'm5', 'm6', '18446744073709551615');
const paymentIds = fc.constantFrom('p1', 'p2', 'p3');
const chatters = fc.option(fc.constantFrom('ch_ana', 'ch_bo', 'ch_cy'), { nil: null });
const spend = fc.option(fc.integer({ min: 0, max: 500_000 }), { nil: undefined });
const texts = fc.constantFrom('', 'hi', 'are you there?', 'I want a refund', 'unsubscribe, this is boring', '<p>ppv</p>');

/** Where an input sits in time: its offset from the previous input, possibly backwards (late), possibly none. */
const offsetSec = (idleSec: number, lateSec: number) => fc.oneof(
  { weight: 5, arbitrary: fc.integer({ min: 0, max: 120 }) },
  { weight: 2, arbitrary: fc.integer({ min: idleSec - 60, max: idleSec * 2 }) },
  // Slightly late (a reply overtaken by the payment after it) and later than the lateness allows.
  { weight: 2, arbitrary: fc.integer({ min: -60, max: -1 }) },
  { weight: 1, arbitrary: fc.integer({ min: -2 * lateSec - 120, max: -61 }) },
  { weight: 1, arbitrary: fc.constant(0) },
);

/** Arrival: usually just after the record's time, sometimes long after (backfill, a late redelivery), sometimes absent. */
const arrivalDelaySec = fc.option(fc.oneof(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 3600, max: 86_400 * 3 })), { nil: undefined });

// Every kind of ChatInput. `at`, `dedupeKey` and `receivedAt` are filled in by `sequence`.
type Body = { [K in ChatInput['type']]: Omit<Extract<ChatInput, { type: K }>, 'at' | 'dedupeKey' | 'receivedAt'> }[ChatInput['type']];

const withSpend = <T extends object>(o: T, s: number | undefined): T => (s === undefined ? o : { ...o, fanSpendCents: s });

const bodyArb: fc.Arbitrary<Body> = fc.oneof(
  { weight: 8, arbitrary: fc.record({
    messageId: messageIds, sender: fc.constantFrom<MessageSender>('fan', 'human', 'automated'), text: texts,
    priceCents: fc.oneof(fc.constant(0), fc.integer({ min: 100, max: 5000 })), chatterId: chatters, spend,
  }).map(({ spend: s, ...m }) => withSpend({ type: 'chat.message' as const, ...m }, s)) },
  { weight: 1, arbitrary: fc.record({ messageId: messageIds, chatterId: fc.constantFrom('ch_ana', 'ch_bo') })
    .map((m) => ({ type: 'chat.attribution' as const, ...m })) },
  { weight: 1, arbitrary: messageIds.map((messageId) => ({ type: 'chat.messageDeleted' as const, messageId })) },
  { weight: 2, arbitrary: fc.record({
    paymentId: paymentIds, kind: fc.constantFrom<PaymentKind>('tip', 'ppv', 'subscription', 'post', 'stream', 'other'),
    grossCents: fc.integer({ min: 0, max: 20_000 }), netCents: fc.integer({ min: 0, max: 16_000 }), spend,
  }).map(({ spend: s, ...p }) => withSpend({ type: 'chat.payment' as const, ...p }, s)) },
  { weight: 1, arbitrary: fc.record({
    signal: fc.constantFrom<FanSignalKind>('tip', 'ppv-unlocked', 'subscribed', 'resubscribed', 'subscription-expired'),
    refId: fc.constantFrom('r1', 'r2'), amountCents: fc.option(fc.integer({ min: 0, max: 10_000 }), { nil: null }), spend,
  }).map(({ spend: s, ...g }) => withSpend({ type: 'chat.signal' as const, ...g }, s)) },
  { weight: 1, arbitrary: fc.constantFrom('typing', 'online', 'offline').map((presence) => ({ type: 'chat.presence' as const, presence })) },
  { weight: 1, arbitrary: fc.record({
    event: fc.constantFrom('accounts.session_expired', 'accounts.connected', 'accounts.authentication_failed'),
    state: fc.option(fc.constantFrom('expired', 'connected'), { nil: null }),
  }).map((a) => ({ type: 'chat.account' as const, ...a })) },
  { weight: 2, arbitrary: fc.constant({ type: 'chat.tick' as const }) },
  { weight: 1, arbitrary: fc.record({
    sessionId: fc.option(fc.constantFrom(`${ACCOUNT}:${CHAT}:1`, `${ACCOUNT}:${CHAT}:2`, `${ACCOUNT}:${CHAT}:3`, 'other:1:1'), { nil: null }),
    requestedBy: fc.constantFrom('admin', 'ops'),
  }).map((c) => ({ type: 'chat.close' as const, ...c })) },
  { weight: 1, arbitrary: fc.record({ event: fc.constantFrom('chats.unknown', 'messages.weird'), reason: fc.constantFrom('unknown kind', 'malformed') })
    .map((s) => ({ type: 'chat.skipped' as const, ...s })) },
);

interface Step {
  readonly body: Body;
  readonly offset: number;
  readonly delay: number | undefined;
  /** Reuse the idempotency key of an earlier input (a redelivery, or a connector copy under the webhook's key). */
  readonly reuseKey: number | null;
  /** Send an earlier input again, unchanged, after this one. */
  readonly repeat: number | null;
}

interface Generated {
  readonly machine: ChatMachineInput;
  readonly inputs: ChatInput[];
}

/** One plain step: nothing changed but the body. */
const plain = (body: Body, offset: number): Step => ({ body, offset, delay: 1, reuseKey: null, repeat: null });

/**
 * A payment between two replies by different chatters, the earlier reply arriving last: the
 * payment's credit moves (PaymentCredited). Random steps reach this too rarely to rely on.
 */
const overtakenReply: fc.Arbitrary<Step[]> = fc.record({ first: messageIds, late: messageIds, paymentId: paymentIds }).map(({ first, late, paymentId }) => [
  plain({ type: 'chat.message', messageId: first, sender: 'human', text: 'hey', priceCents: 0, chatterId: 'ch_ana' }, 0),
  plain({ type: 'chat.payment', paymentId, kind: 'tip', grossCents: 500, netCents: 400 }, 4),
  plain({ type: 'chat.message', messageId: late, sender: 'human', text: 'thanks', priceCents: 0, chatterId: 'ch_bo' }, -2),
]);

const generated: fc.Arbitrary<Generated> = fc.record({
  idleSec: fc.constantFrom(60, 600, 1800),
  lateFraction: fc.constantFrom(0, 0.1, 0.45),
}).chain(({ idleSec, lateFraction }) => {
  const lateSec = Math.floor(idleSec * lateFraction);
  const stepArb: fc.Arbitrary<Step> = fc.record({
    body: bodyArb,
    offset: offsetSec(idleSec, lateSec),
    delay: arrivalDelaySec,
    reuseKey: fc.option(fc.nat(), { nil: null, freq: 8 }),
    repeat: fc.option(fc.nat(), { nil: null, freq: 8 }),
  });
  const stepsArb = fc.oneof({ weight: 20, arbitrary: stepArb.map((st) => [st]) }, { weight: 1, arbitrary: overtakenReply });
  return fc.array(stepsArb, { minLength: 1, maxLength: 50 }).map((groups): Generated => {
    const inputs: ChatInput[] = [];
    let clock = T0;
    for (const s of groups.flat()) {
      const at = clock + s.offset * 1000;
      clock = Math.max(clock, at);
      const n = inputs.length;
      const dedupeKey = s.reuseKey !== null && n > 0 ? (inputs[s.reuseKey % n] as ChatInput).dedupeKey : `evt_${n}`;
      const input = (s.body.type === 'chat.tick'
        // A tick carries the clock of the process that appended it: now, not a record's time.
        ? { type: 'chat.tick', dedupeKey: `tick_${n}`, at: clock + (s.delay ?? 0) * 1000 }
        : { ...s.body, dedupeKey, at, ...(s.delay === undefined ? {} : { receivedAt: at + s.delay * 1000 }) }) as ChatInput;
      inputs.push(input);
      if (s.repeat !== null) inputs.push(inputs[s.repeat % inputs.length] as ChatInput);
    }
    return { machine: { accountId: ACCOUNT, chatId: CHAT, idleMs: idleSec * 1000, lateMs: lateSec * 1000 }, inputs };
  });
});

const params = (numRuns: number): fc.Parameters<[Generated]> => ({
  numRuns: Number(process.env.PROPERTY_RUNS ?? numRuns),
  ...(process.env.PROPERTY_SEED ? { seed: Number(process.env.PROPERTY_SEED), path: process.env.PROPERTY_PATH } : {}),
});

describe('step() takes the same steps as XState transition()', () => {
  it('has fixtures to run', () => {
    expect(fixtureFiles.length).toBeGreaterThan(0);
  });

  it.each(fixtureFiles)('fixture %s', (file) => {
    const seq = loadSequence(file);
    const t0 = Date.parse(seq.start);
    // Through the dedupe ledger, as the processor feeds the machine.
    const ledger = new MemoryLedger();
    const inputs = seq.inputs.flatMap((f, i) => ledger.admit(fixtureInput(i, f, t0)) ?? []);
    const machine = { accountId: 'acct_f', chatId: '1', idleMs: seq.idleSec * 1000, lateMs: (seq.lateSec ?? 300) * 1000 };
    expect(runBoth(machine, inputs).events).toBeGreaterThan(0);
  });

  it('on generated input sequences of every input kind, with duplicates and out-of-order times', () => {
    const seen = new Set<string>();
    fc.assert(fc.property(generated, (g) => {
      // Raw, not through the ledger: the machine must take redeliveries the same way on both paths too.
      runBoth(g.machine, g.inputs, seen);
    }), params(300));
    // The generator must reach every kind of event the machine emits, or the comparison proves little.
    expect([...seen].sort()).toEqual([...SESSION_EVENT_TYPES].sort());
  });
});
