// What the processor stores per chat: the machine's state and the `inbound` position it has
// reached. Its own module so the pure round (./round.ts) and the processor share it without
// importing each other.
import type { StateValue } from 'xstate';
import type { Doc } from '../adapters/store/store.js';
import { sessionMachine } from '../../machines/session-machine.js';
import type { ChatState } from '../../machines/step.js';
import { StoredFormatError } from '../support/stored-format.js';

export const CHAT_STATE_COLLECTION = 'chat_state';

export interface ChatStateDoc extends Doc {
  readonly state: ChatState;
  readonly partition: number;
  /** Offset of the last `inbound` record folded into `state`. */
  readonly offset: number;
  /** Clock time after which a tick settles something in this chat; null when nothing waits. Ticks look for these. */
  readonly deadline: number | null;
}

/**
 * The version check every stored chat state passes before the round steps it: a state is read
 * only in the format this version writes, never upgraded. What it looks for are the marks of
 * the development builds before 0.1.0, oldest first: no `lateMs` (before event time and the
 * chat ledger), no `unansweredMs` (before the unanswered limit), a state value the session
 * chart does not have (`inSession`, before the chart). Throws StoredFormatError, which fails
 * the round: nothing of it is written, and it comes again.
 */
export function checkStoredFormat(doc: ChatStateDoc): void {
  const found = formatProblem(doc.state);
  if (found === null) return;
  throw new StoredFormatError(`chat state ${JSON.stringify(doc._id.slice(0, 200))} (inbound partition ${doc.partition}, offset ${doc.offset}) was written by a build of convops `
    + `before 0.1.0: ${found.what}. This version does not read chat states written before ${found.before} and does not upgrade them. Nothing was stepped or written; `
    + `the round is retried and partition ${doc.partition} waits until this is dealt with. Derive the state again from inbound (docs/operations.md, "Stored formats"): `
    + 'a new TOPIC_PREFIX with INBOUND_TOPIC set to this deployment\'s inbound topic; or, if none of it is needed, an empty DATA_DIR or a new TOPIC_PREFIX.');
}

function formatProblem(state: ChatState): { what: string; before: string } | null {
  const ctx = (state as { context?: unknown }).context as { lateMs?: unknown; unansweredMs?: unknown } | undefined;
  if (typeof ctx?.lateMs !== 'number') return { what: 'its context has no lateMs', before: 'event time and the chat ledger' };
  if (typeof ctx.unansweredMs !== 'number') return { what: 'its context has no unansweredMs', before: 'the unanswered limit' };
  if (!isChartValue(state.value)) return { what: `its state value is ${JSON.stringify(state.value)?.slice(0, 100)}, which the session chart does not have`, before: 'the session chart' };
  return null;
}

type StateNodes = typeof sessionMachine.root.states;

/** Whether `value` names a state the chart rests in (a leaf, as a stored state holds it). */
function isChartValue(value: StateValue | undefined, nodes: StateNodes = sessionMachine.root.states): boolean {
  if (typeof value === 'string') return Object.hasOwn(nodes, value) && Object.keys(nodes[value]?.states ?? {}).length === 0;
  if (value === null || typeof value !== 'object') return false;
  const entries = Object.entries(value);
  if (entries.length !== 1) return false;
  const [name, inner] = entries[0] as [string, StateValue | undefined];
  const node = Object.hasOwn(nodes, name) ? nodes[name] : undefined;
  return node !== undefined && isChartValue(inner, node.states);
}
