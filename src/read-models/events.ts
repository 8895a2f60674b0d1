// What several read models' folds read off a session event the same way.
import type { SessionEvent } from '../../machines/session-events.js';

/** convops' own chats (the account's `_account` for deletions and account status, a chatter's
 *  `_clock.<id>`): ids a fan's chat cannot have (they start with a letter or digit). */
export const isOwnChat = (chatId: string): boolean => chatId.startsWith('_');

export function isLate(e: SessionEvent): boolean {
  return (e.type === 'MessageRecorded' || e.type === 'PaymentRecorded' || e.type === 'FanSignalRecorded') && e.data.late === true;
}

export function reportedSpend(e: SessionEvent): number | null | undefined {
  return e.type === 'MessageRecorded' || e.type === 'PaymentRecorded' || e.type === 'FanSignalRecorded' ? e.data.fanSpendCents : undefined;
}
