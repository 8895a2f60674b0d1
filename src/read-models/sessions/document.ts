// The sessions read model's document: its own module so that what folds it (projection.ts) and
// what holds it closed at its deadline (lapse.ts) can both name it without importing each other.
import type { Doc } from '../../adapters/store/store.js';
import type { SessionSummary } from '../../../machines/session-events.js';

export interface SessionDoc extends Doc, SessionSummary {
  readonly accountId: string;
  readonly chatId: string;
  readonly chatKey: string;
  /** The fan's lifetime spend as the platform last reported it (null: never reported). */
  readonly fanSpendCents: number | null;
  /** Sort key of the priority inbox while awaiting (see priority.ts); null otherwise. */
  readonly priorityAt: number | null;
  /** See SessionSummary.closesAt; null also for a session folded from events older than it. */
  readonly closesAt: number | null;
  /** See SessionSummary.closesAs; null also for a session folded from events older than it. */
  readonly closesAs: 'idle' | 'unanswered' | null;
  readonly lastSeq: number;
  /** See SessionSummary; null also for a session folded from events older than them. */
  readonly firstResponseBusinessSec: number | null;
  readonly waitBusinessSec: number | null;
  /**
   * Closed at its deadline, as readers show it, before the processor's close came: by the
   * chat's SessionLapsed, or by the embedded projector's sweep (lapse.ts). Absent on every
   * document any other event wrote.
   */
  readonly swept?: true;
}
