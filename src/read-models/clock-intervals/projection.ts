// Clock intervals: one document per time a chatter clocked in on an account, closed by their
// clock-out. Folded from the chatter's clock chat (`_clock.<chatterId>`), whose machine orders a
// chatter's clock commands, so an interval is the ClockedIn event's and its ClockedOut names it.
// When the chatter stopped working without clocking out (the automatic clock-out after
// CLOCK_IDLE_SEC without a reply) is not stored here: it follows from their replies, which
// other chats hold, and is worked out where intervals are read (domain/clocked-time.ts).
import type { Doc } from '../../adapters/store/store.js';
import type { SessionEvent } from '../../../machines/session-events.js';
import { CLOCK_INTERVALS } from '../names.js';
import type { DocumentProjection } from '../projection.js';

export interface ClockIntervalDoc extends Doc {
  readonly accountId: string;
  readonly chatterId: string;
  readonly inAt: number;
  /** When they clocked out; null: not yet (they may have been clocked out for idling since). */
  readonly outAt: number | null;
  readonly inBy: string;
  readonly outBy: string | null;
  /** The clock-out recorded the end of idling (the chatter had stopped replying), not a clock-out of their own. */
  readonly outAutomatic: boolean;
  /** The last clock-chat event folded in: a redelivered event changes nothing. */
  readonly lastSeq: number;
}

export function foldClockInterval(doc: ClockIntervalDoc | undefined, e: SessionEvent): ClockIntervalDoc | undefined {
  if (doc && doc.lastSeq >= e.seq) return undefined;
  if (e.type === 'ChatterClockedIn') {
    if (doc) return undefined;
    return { _id: e.id, accountId: e.accountId, chatterId: e.data.chatterId, inAt: e.at, outAt: null, inBy: e.data.requestedBy, outBy: null, outAutomatic: false, lastSeq: e.seq };
  }
  if (e.type === 'ChatterClockedOut') {
    if (!doc) return undefined;
    return { ...doc, outAt: e.at, outBy: e.data.requestedBy, outAutomatic: e.data.automatic, lastSeq: e.seq };
  }
  return undefined;
}

export const clockIntervals: DocumentProjection<ClockIntervalDoc> = {
  name: CLOCK_INTERVALS,
  canHandle: (e) => e.type === 'ChatterClockedIn' || e.type === 'ChatterClockedOut',
  documentIds: (p) => [p.event.type === 'ChatterClockedOut' ? p.event.data.intervalId : p.event.id],
  evolve: (doc, p) => foldClockInterval(doc, p.event),
  indexes: [
    // Who is on now: the intervals not clocked out.
    { keys: { outAt: 1, inAt: 1 } },
    // A window's intervals: those clocked in before its end, by chatter.
    { keys: { inAt: 1 } },
    { keys: { chatterId: 1, inAt: 1 } },
  ],
};
