// The one order records are placed in when their times tie, so any arrival order gives the
// same sequence of placements.
import type { ChatMessageInput, TimedRecord } from './chat-input.js';
import type { Reply } from './chat-context.js';

export const isFan = (r: TimedRecord): r is ChatMessageInput => r.type === 'chat.message' && r.sender === 'fan';

/** At one instant a fan's message comes first, then replies, payments, signals; then ids. */
function rank(r: TimedRecord): number {
  if (r.type === 'chat.message') return r.sender === 'fan' ? 0 : 1;
  return r.type === 'chat.payment' ? 2 : 3;
}

function idOf(r: TimedRecord): string {
  return r.type === 'chat.message' ? r.messageId : r.type === 'chat.payment' ? r.paymentId : `${r.refId}|${r.dedupeKey}`;
}

export function compareRecords(a: TimedRecord, b: TimedRecord): number {
  return a.at - b.at || rank(a) - rank(b) || (idOf(a) < idOf(b) ? -1 : idOf(a) > idOf(b) ? 1 : 0);
}

export const replyOrder = (a: Reply, b: Reply): number => a.at - b.at || (a.messageId < b.messageId ? -1 : a.messageId > b.messageId ? 1 : 0);

export function insertSorted<T>(list: readonly T[], item: T, cmp: (a: T, b: T) => number): T[] {
  const out = [...list];
  let i = out.length;
  while (i > 0 && cmp(out[i - 1] as T, item) > 0) i--;
  out.splice(i, 0, item);
  return out;
}
