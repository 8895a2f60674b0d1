// What several read models' folds read off a session event the same way.
import type { SessionEvent } from '../../machines/session-events.js';

/** Account-wide events (deletions, account status) use this chat id; it is not a fan's chat. */
export const ACCOUNT_CHAT = '_account';

export function isLate(e: SessionEvent): boolean {
  return (e.type === 'MessageRecorded' || e.type === 'PaymentRecorded' || e.type === 'FanSignalRecorded') && e.data.late === true;
}

export function reportedSpend(e: SessionEvent): number | null | undefined {
  return e.type === 'MessageRecorded' || e.type === 'PaymentRecorded' || e.type === 'FanSignalRecorded' ? e.data.fanSpendCents : undefined;
}
