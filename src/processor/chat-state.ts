// What the processor stores per chat: the machine's state and the `inbound` position it has
// reached. Its own module so the pure round (./round.ts) and the processor share it without
// importing each other.
import type { Doc } from '../adapters/store/store.js';
import type { ChatState } from '../../machines/step.js';

export const CHAT_STATE_COLLECTION = 'chat_state';

export interface ChatStateDoc extends Doc {
  readonly state: ChatState;
  readonly partition: number;
  /** Offset of the last `inbound` record folded into `state`. */
  readonly offset: number;
  /** Clock time after which a tick settles something in this chat; null when nothing waits. Ticks look for these. */
  readonly deadline: number | null;
}
