// Drives the session machine one input at a time from a plain, storable state.
import { createActor, initialTransition, type ActorScope, type ExecutableActionObject } from 'xstate';
import type { ChatInput } from './chat-input.js';
import type { SessionEvent } from './session-events.js';
import { sessionMachine, type ChatContext, type ChatMachineInput } from './session-machine.js';
import { initialContext } from './chat-timeline.js';

/** What is persisted per chat: the state value and context, nothing else. */
export interface ChatState {
  readonly value: string;
  readonly context: ChatContext;
}

export function initialChatState(input: ChatMachineInput): ChatState {
  if (INITIAL_VALUE !== null) return { value: INITIAL_VALUE, context: initialContext(input) };
  const [snapshot] = initialTransition(sessionMachine, input);
  return { value: snapshot.value as string, context: snapshot.context };
}

// XState's initial transition costs about 80 µs, paid for every new chat (most webhooks, at
// first). The machine's first state takes its context from the input alone and runs nothing
// on entry, so the state is always that value with initialContext(input): checked here once,
// on a sample input, and left to XState should the machine ever do more on start.
const INITIAL_VALUE: string | null = (() => {
  const sample: ChatMachineInput = { accountId: 'a', chatId: 'c', idleMs: 2, lateMs: 1 };
  const [snapshot] = initialTransition(sessionMachine, sample);
  const same = typeof snapshot.value === 'string' && JSON.stringify(snapshot.context) === JSON.stringify(initialContext(sample));
  return same ? (snapshot.value as string) : null;
})();

// XState's transition() builds a throwaway actor for every call, and that actor eagerly makes
// an initial snapshot, which fails without our required input and allocates an error each
// time: that was most of a step's cost. This is the same inert scope transition() builds
// (xstate 5.33, createInertActorScope), made once: the machine spawns no children, schedules
// nothing and runs no side effects, so the scope keeps no state between steps. Actions are
// collected per step, as transition() collects them.
let collected: ExecutableActionObject[] = [];
const self = createActor(sessionMachine, { input: { accountId: '_', chatId: '_', idleMs: 1, lateMs: 0 } });
const scope = {
  self,
  defer: () => undefined,
  id: '',
  logger: () => undefined,
  sessionId: '',
  stopChild: () => undefined,
  system: self.system,
  emit: () => undefined,
  actionExecutor: (action: ExecutableActionObject) => { collected.push(action); },
} as unknown as ActorScope<ReturnType<typeof sessionMachine.resolveState>, ChatInput>;

export function step(state: ChatState, input: ChatInput): { state: ChatState; events: SessionEvent[] } {
  const snapshot = sessionMachine.resolveState({ value: state.value, context: state.context });
  const actions: ExecutableActionObject[] = [];
  collected = actions;
  const next = sessionMachine.transition(snapshot, input, scope as never);
  const events: SessionEvent[] = [];
  // XState's action typing does not list emit actions, though the executor receives them.
  for (const a of actions as readonly { type: string; params?: unknown }[]) {
    if (a.type === 'xstate.emit') events.push((a.params as { event: SessionEvent }).event);
  }
  return { state: { value: next.value as string, context: next.context }, events };
}
