// Drives the session chart one input at a time from a plain, storable state, with XState's
// public initialTransition() and transition().
import { initialTransition, transition, type StateValue } from 'xstate';
import type { ChatInput } from './chat-input.js';
import type { SessionEvent } from './session-events.js';
import { sessionMachine, type ChartContext, type ChartEvent, type ChatContext, type ChatMachineInput } from './session-machine.js';
import { chartValueOf } from './upgrade.js';

/** What is persisted per chat: the chart's state value and context, nothing else. */
export interface ChatState {
  readonly value: StateValue;
  readonly context: ChatContext;
}

function stored(context: ChartContext): ChatContext {
  const { outbox: _outbox, closing: _closing, ...rest } = context;
  return rest;
}

export function initialChatState(input: ChatMachineInput): ChatState {
  const [snapshot] = initialTransition(sessionMachine, input);
  return { value: snapshot.value, context: stored(snapshot.context) };
}

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
    case 'chat.presence': return { type: 'presence', input };
    case 'chat.tick': return { type: 'clock.tick', input };
    case 'chat.close': return { type: 'close.forced', input };
    case 'chat.skipped': return { type: 'record.skipped', input };
  }
}

/** One input, already admitted by the dedupe ledger (see ledger.ts): the next state, and the events it emits. */
export function step(state: ChatState, input: ChatInput): { state: ChatState; events: SessionEvent[] } {
  const context: ChartContext = { ...state.context, outbox: [], closing: null };
  const snapshot = sessionMachine.resolveState({ value: chartValueOf(state), context });
  const [next] = transition(sessionMachine, snapshot, chartEvent(input));
  // XState keeps an action's error in the snapshot; the caller sets such a record aside.
  if (next.status === 'error') throw next.error;
  return { state: { value: next.value, context: stored(next.context) }, events: next.context.outbox as SessionEvent[] };
}
