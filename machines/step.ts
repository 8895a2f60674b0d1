// Drives the session chart one input at a time from a plain, storable state, with XState's
// public initialTransition() and transition().
import { initialTransition, transition, type StateValue } from 'xstate';
import type { ChatInput } from './chat-input.js';
import type { SessionEvent } from './session-events.js';
import { sessionMachine, type ChartContext, type ChartEvent, type ChatContext, type ChatMachineInput, type SessionMachine } from './session-machine.js';
import { initialContext, type ChatState } from './chat-context.js';

export type { ChatState } from './chat-context.js';

/** The stored context: a forced close and the step's events live only within a step, so a stored state never carries events. */
function stored(context: ChartContext): ChatContext {
  if (!('closing' in context) && !('outbox' in context) && !('published' in context)) return context;
  const { closing: _closing, outbox: _outbox, published: _published, ...rest } = context;
  return rest;
}

export function initialChatState(input: ChatMachineInput): ChatState {
  if (INITIAL_VALUE !== null) return { value: INITIAL_VALUE, context: initialContext(input) };
  const [snapshot] = initialTransition(sessionMachine, input);
  return { value: snapshot.value, context: stored(snapshot.context) };
}

// XState's initial transition costs tens of microseconds, paid for every new chat (most
// webhooks, at first). The chart's first state takes its context from the input alone and
// does nothing on entry, so a new chat's state is that value with initialContext(input):
// checked here once with initialTransition() on a sample, and left to XState should the
// chart ever do more on start.
const INITIAL_VALUE: StateValue | null = (() => {
  const sample: ChatMachineInput = { accountId: 'a', chatId: 'c', idleMs: 2, lateMs: 1, unansweredMs: 3 };
  const [snapshot, actions] = initialTransition(sessionMachine, sample);
  const same = actions.length === 0 && typeof snapshot.value === 'string' && JSON.stringify(stored(snapshot.context)) === JSON.stringify(initialContext(sample));
  return same ? snapshot.value : null;
})();

/** Names the input as the chart's event. */
export function chartEvent(input: ChatInput): ChartEvent {
  switch (input.type) {
    case 'chat.message':
      return { type: input.sender === 'fan' ? 'fan.message' : input.sender === 'human' ? 'human.reply' : 'automated.send', input };
    case 'chat.payment': return { type: 'payment', input };
    case 'chat.signal': return { type: 'fan.signal', input };
    case 'chat.attribution': return { type: 'reply.attributed', input };
    case 'chat.messageDeleted': return { type: 'message.deleted', input };
    case 'chat.account': return { type: 'account.changed', input };
    case 'chat.reassign': return { type: 'payment.reassigned', input };
    case 'chat.clock': return { type: 'shift.clock', input };
    case 'chat.presence': return { type: 'presence', input };
    case 'chat.tick': return { type: 'clock.tick', input };
    case 'chat.settle': return { type: 'history.complete', input };
    case 'chat.close': return { type: 'close.forced', input };
    case 'chat.skipped': return { type: 'record.skipped', input };
  }
}

/**
 * The session events of the step that led to this snapshot, in order, as the chart published
 * them where it came to rest (session-machine.ts, rest()), for a step that began at a stored
 * state (as step() does; a snapshot transition() returned still holds its step's events).
 * They travel in the context rather than among transition()'s actions, which keeps
 * transition() from returning any action for an ordinary input: any returned action doubled
 * a step's cost.
 */
export function eventsOf(snapshot: { readonly context: ChartContext }): SessionEvent[] {
  // The array is the step's own, made within it (change() and comeToRest() copy the outbox
  // before adding to it), and nothing keeps it once the step returns: the caller may have it.
  return (snapshot.context.published as SessionEvent[] | undefined) ?? [];
}

/**
 * One input, already admitted by the dedupe ledger (see ledger.ts): the next state, and the
 * events it emits. `machine` is the session chart; a test may pass one with other guards.
 */
export function step(state: ChatState, input: ChatInput, machine: SessionMachine = sessionMachine): { state: ChatState; events: SessionEvent[] } {
  // The stored context is the chart's context as it is: XState copies it before any change.
  const snapshot = machine.resolveState({ value: state.value, context: state.context });
  const [next] = transition(machine, snapshot, chartEvent(input));
  // XState keeps an action's error in the snapshot; the caller sets such a record aside.
  if (next.status === 'error') throw next.error;
  return { state: { value: next.value, context: stored(next.context) }, events: eventsOf(next) };
}
