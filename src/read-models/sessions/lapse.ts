// A session past its deadline is closed as readers show it (domain/session-deadline.ts) well
// before the processor's tick closes it in the log: the tick waits for the chat's arrivals to go
// idle, so a backlog redelivered at once can leave tens of thousands of sessions open in the
// store for minutes. Readers that subtracted each of them on every request paid for the whole
// backlog (issue 53). The projector instead writes such a session as the close readers show
// (`swept`), with its report-bucket contributions moved in the same store write, so aggregates
// read counters again. The flag is bookkeeping: the session's events never said it, so a fold
// starts from the session as they left it (`unswept`), and the real close, or the fan's next
// message, replaces the swept document as it would have replaced the open one.
import { shownClose } from '../../domain/session-deadline.js';
import { priorityAt } from './priority.js';
import type { SessionDoc } from './document.js';

/** The session as readers show it from `closesAt` on: closed at its deadline, for the reason the chart gave. */
export function sweptSession(s: SessionDoc): SessionDoc {
  if (s.status !== 'open' || s.closesAt === null) return s;
  return { ...s, ...shownClose(s, s.closesAt), priorityAt: null, swept: true };
}

/** The session as its events left it: open, awaiting its deadline (a swept document undone; any other as it is). */
export function unswept(s: SessionDoc): SessionDoc {
  if (s.swept !== true) return s;
  const { swept: _, ...rest } = s;
  const open = { ...rest, status: 'open' as const, closedAt: null, closeReason: null };
  return { ...open, priorityAt: priorityAt(open, open.fanSpendCents) };
}
