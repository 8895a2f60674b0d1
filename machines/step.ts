// Drives the session machine one input at a time from a plain, storable state.
import { initialTransition, transition } from 'xstate';
import type { ChatInput } from './chat-input.js';
import type { SessionEvent } from './session-events.js';
import { sessionMachine, type ChatContext, type ChatMachineInput } from './session-machine.js';

/** What is persisted per chat: the state value and context, nothing else. */
export interface ChatState {
  readonly value: string;
  readonly context: ChatContext;
}

export function initialChatState(input: ChatMachineInput): ChatState {
  const [snapshot] = initialTransition(sessionMachine, input);
  return { value: snapshot.value as string, context: snapshot.context };
}

export function step(state: ChatState, input: ChatInput): { state: ChatState; events: SessionEvent[] } {
  const snapshot = sessionMachine.resolveState({ value: state.value, context: state.context });
  const [next, actions] = transition(sessionMachine, snapshot, input);
  const events: SessionEvent[] = [];
  // XState's action typing does not list emit actions, though transition() returns them.
  for (const a of actions as readonly { type: string; params?: unknown }[]) {
    if (a.type === 'xstate.emit') events.push((a.params as { event: SessionEvent }).event);
  }
  return { state: { value: next.value as string, context: next.context }, events };
}
