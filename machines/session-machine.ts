// The per-chat session machine: a pure XState v5 machine, driven by its pure `transition` (see step.ts).
// No timers and no clock: an idle session closes when the chat's watermark (its latest record
// time, or a tick's clock, less the allowed lateness) passes its deadline, so live processing
// and replay take the same steps. The placing of records by their own time is in
// chat-timeline.ts; the machine's states say whether a session is open.
import { enqueueActions, setup } from 'xstate';
import type { ChatInput } from './chat-input.js';
import type { SessionEvent } from './session-events.js';
import { applyInput, initialContext, type ChatContext, type ChatMachineInput } from './chat-timeline.js';

export type { ChatContext, ChatMachineInput } from './chat-timeline.js';
export { tickDue } from './chat-timeline.js';

export const sessionMachine = setup({
  types: {
    context: {} as ChatContext,
    events: {} as ChatInput,
    input: {} as ChatMachineInput,
    emitted: {} as SessionEvent,
  },
  guards: {
    hasSession: ({ context }) => context.session !== null,
    noSession: ({ context }) => context.session === null,
  },
  actions: {
    apply: enqueueActions(({ context, event, enqueue }) => {
      const emitted: SessionEvent[] = [];
      enqueue.assign(applyInput(context, event, (e) => emitted.push(e)));
      for (const e of emitted) enqueue.emit(e);
    }),
  },
}).createMachine({
  id: 'chat',
  context: ({ input }) => initialContext(input),
  initial: 'noSession',
  on: {
    '*': { actions: 'apply' },
  },
  states: {
    noSession: {
      always: { guard: 'hasSession', target: 'inSession' },
    },
    inSession: {
      always: { guard: 'noSession', target: 'noSession' },
    },
  },
});

export type SessionMachine = typeof sessionMachine;
