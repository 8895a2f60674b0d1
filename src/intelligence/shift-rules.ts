// The shift rules (issue 51), pure like the session rules: fans waiting on an account with nobody
// clocked in on it (`coverage.gap`), and a planned shift whose chatter has not clocked in
// (`shift.no-show`). Evaluated live over what is open now (intelligence.ts shiftFindings), so an
// alert holds while its condition does and resolves when it clears.
import { duration } from '../domain/wording.js';
import type { Finding } from '../pipeline/alert-doc.js';

export const SHIFT_RULES = [
  { id: 'coverage.gap', version: 1, live: true, description: 'Fans are waiting on an account that works in shifts, and nobody has been clocked in on it for COVERAGE_GAP_SEC or longer while they wait.' },
  { id: 'shift.no-show', version: 1, live: true, description: 'A planned shift started SHIFT_NO_SHOW_GRACE_SEC ago or more and its chatter has not clocked in on its account.' },
] as const;

export interface CoverageFacts {
  readonly accountId: string;
  /** Sessions waiting for a reply now, and since when the longest has waited. */
  readonly waiting: number;
  readonly oldestWaitingSince: number;
  /** Chatters clocked in on the account now. */
  readonly onNow: number;
  /** When the last chatter on the account stopped being on; null: nobody ever was. */
  readonly lastOnAt: number | null;
}

export function evaluateCoverage(c: CoverageFacts, now: number, gapSec: number): Finding[] {
  if (c.waiting === 0 || c.onNow > 0) return [];
  // Uncovered since whichever came later: the fan's wait, or the last chatter leaving.
  const since = Math.max(c.oldestWaitingSince, c.lastOnAt ?? Number.NEGATIVE_INFINITY);
  const gap = Math.floor((now - since) / 1000);
  if (gap < gapSec) return [];
  return [{
    // One alert per stretch without anybody on: the stretch began when the last chatter left.
    alertId: `coverage.gap:${c.accountId}:${c.lastOnAt ?? 'never'}`, ruleId: 'coverage.gap', ruleVersion: 1,
    severity: 'warning', sessionId: null, accountId: c.accountId, chatId: null, chatterId: null,
    reason: `${c.waiting} ${c.waiting === 1 ? 'fan is' : 'fans are'} waiting on ${c.accountId} and nobody has been clocked in on it for ${duration(gap)}.`,
    labels: ['coverage-gap', 'awaiting-reply'],
    recommendation: 'Clock a chatter in on this account, or move one over from a quieter account.',
  }];
}

export interface NoShowFacts {
  readonly shiftId: string;
  readonly chatterId: string;
  readonly accountId: string;
  readonly start: number;
  readonly end: number;
  /** Clocked in on the account at any moment of the shift so far. */
  readonly clockedIn: boolean;
}

export function evaluateNoShow(f: NoShowFacts, now: number, graceSec: number): Finding[] {
  if (f.clockedIn || now < f.start + graceSec * 1000 || now >= f.end) return [];
  return [{
    alertId: `shift.no-show:${f.shiftId}`, ruleId: 'shift.no-show', ruleVersion: 1,
    severity: 'warning', sessionId: null, accountId: f.accountId, chatId: null, chatterId: f.chatterId,
    reason: `${f.chatterId} has not clocked in on ${f.accountId} for the shift that started ${duration(Math.floor((now - f.start) / 1000))} ago.`,
    labels: ['no-show'],
    recommendation: 'Call the chatter, or clock someone else in to cover the account.',
  }];
}
