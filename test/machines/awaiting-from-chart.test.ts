// Whether the fan awaits a reply is the chart's to say: the session events (and so the
// sessions and chats read models and the priority inbox) carry what the stored state value
// says, not a figure worked out beside it. The figures and the chart's guards agree on every
// real input, so agreement alone cannot tell where `awaiting` comes from; these specs drive
// charts whose guards disagree with the figures, and the events must follow the chart.
import { describe, expect, it } from 'vitest';
import { initialTransition, transition } from 'xstate';
import type { ChatInput, ChatMessageInput } from '../../machines/chat-input.js';
import { sessionAfter, type SessionEvent } from '../../machines/session-events.js';
import { sessionMachine, type SessionMachine } from '../../machines/session-machine.js';
import { chartEvent, eventsOf, initialChatState, step, type ChatState } from '../../machines/step.js';
import { foldChat, type ChatDoc } from '../../src/read-models/chats/projection.js';

const T0 = Date.parse('2026-06-10T18:00:00Z');
let n = 0;

function msg(sender: ChatMessageInput['sender'], atSec: number): ChatMessageInput {
  n++;
  return { type: 'chat.message', dedupeKey: `k${n}`, messageId: `m${n}`, sender, at: T0 + atSec * 1000, text: '', priceCents: 0, chatterId: sender === 'human' ? 'ann' : null };
}
const pay = (atSec: number): ChatInput => ({ type: 'chat.payment', dedupeKey: `p${++n}`, paymentId: `p${n}`, kind: 'tip', grossCents: 500, netCents: 400, at: T0 + atSec * 1000 });

function run(machine: SessionMachine, inputs: readonly ChatInput[]): { state: ChatState; events: SessionEvent[] } {
  let state = initialChatState({ accountId: 'acct_1', chatId: '42', idleMs: 1_800_000, lateMs: 300_000, unansweredMs: 86_400_000 });
  const events: SessionEvent[] = [];
  for (const i of inputs) {
    const r = step(state, i, machine);
    state = r.state;
    events.push(...r.events);
  }
  return { state, events };
}

const lastSummary = (events: readonly SessionEvent[]) => events.map(sessionAfter).filter((s) => s !== null).at(-1);
const chatDoc = (events: readonly SessionEvent[]): ChatDoc | undefined => events.reduce<ChatDoc | undefined>((d, e) => foldChat(d, e) ?? d, undefined);

describe('awaiting comes from the chart', () => {
  it('the real chart: a fan message leaves the chat awaiting, a reply answers it', () => {
    const waiting = run(sessionMachine, [msg('fan', 0)]);
    expect(waiting.state.value).toEqual({ session: 'awaiting' });
    expect(lastSummary(waiting.events)?.awaiting).toBe(true);
    const answered = run(sessionMachine, [msg('fan', 0), msg('human', 60)]);
    expect(answered.state.value).toEqual({ session: 'answered' });
    expect(lastSummary(answered.events)?.awaiting).toBe(false);
  });

  it('a chart in which no reply answers the fan: the events say the fan still waits, though the figures count the reply', () => {
    const deaf = sessionMachine.provide({ guards: { answersTheFan: () => false, answered: () => false } });
    const { state, events } = run(deaf, [msg('fan', 0), msg('human', 60), pay(90)]);
    expect(state.value).toEqual({ session: 'awaiting' });
    // The figures saw the reply (no unanswered fan message, a first response)…
    expect(state.context.session?.unanswered).toEqual([]);
    expect(state.context.session?.summary.firstResponseSec).toBe(60);
    // …but the session after each step, as the events carry it, is the chart's.
    const reply = events.find((e) => e.type === 'MessageRecorded' && e.data.sender === 'human');
    expect(reply && sessionAfter(reply)?.awaiting).toBe(true);
    expect(lastSummary(events)?.awaiting).toBe(true);
    expect(state.context.session?.summary.awaiting).toBe(true);
    expect(chatDoc(events)?.awaiting).toBe(true);
  });

  it('a chart in which the fan is answered at once: the events say nobody waits, though the figures hold the fan message', () => {
    const eager = sessionMachine.provide({ guards: { answered: () => true, fanWaiting: () => false } });
    const { state, events } = run(eager, [msg('fan', 0)]);
    expect(state.value).toEqual({ session: 'answered' });
    expect(state.context.session?.unanswered).toEqual([T0]);
    expect(events.map((e) => e.type)).toEqual(['SessionOpened', 'MessageRecorded']);
    expect(lastSummary(events)?.awaiting).toBe(false);
    expect(state.context.session?.summary.awaiting).toBe(false);
    expect(chatDoc(events)?.awaiting).toBe(false);
  });
});

describe('the chart publishes through its context', () => {
  it('driven with transition() itself, the events come back in the context, the last summary as the chart rests, and no actions', () => {
    const [start] = initialTransition(sessionMachine, { accountId: 'acct_1', chatId: '42', idleMs: 1_800_000, lateMs: 300_000, unansweredMs: 86_400_000 });
    const first = msg('fan', 0);
    const [next, actions] = transition(sessionMachine, start, chartEvent(first));
    // An action returned for every input doubled a step's cost (bench/machines.ts): there are none.
    expect(actions).toHaveLength(0);
    const published = eventsOf(next);
    expect(next.value).toEqual({ session: 'awaiting' });
    expect(published.map((e) => e.type)).toEqual(['SessionOpened', 'MessageRecorded']);
    expect(lastSummary(published)).toMatchObject({ awaiting: true, closesAt: T0 + 86_400_000, closesAs: 'unanswered' });
    // What step() returns is what the chart published, the resting summary is the stored one,
    // and the stored context carries no events.
    const stepped = step(initialChatState({ accountId: 'acct_1', chatId: '42', idleMs: 1_800_000, lateMs: 300_000, unansweredMs: 86_400_000 }), first);
    expect(stepped.events).toEqual(published);
    expect(lastSummary(stepped.events)).toEqual(stepped.state.context.session?.summary);
    expect(Object.keys(stepped.state.context)).not.toContain('published');
    expect(Object.keys(stepped.state.context)).not.toContain('outbox');
    // From a stored state, a reply that answers the fan: again events in the context, no actions.
    const [answered, replyActions] = transition(sessionMachine, sessionMachine.resolveState(stepped.state), chartEvent(msg('human', 60)));
    expect(replyActions).toHaveLength(0);
    expect(answered.value).toEqual({ session: 'answered' });
    expect(lastSummary(eventsOf(answered))).toMatchObject({ awaiting: false, closesAs: 'idle' });
  });
});
