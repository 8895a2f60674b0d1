// The folds' idempotence: a redelivered event changes nothing, and an event appended twice to
// session-events (a processor re-running its input after a crash) counts once in the totals
// that add up many chats.
import { describe, expect, it } from 'vitest';
import { initialChatState, step } from '../../machines/step.js';
import type { ChatInput } from '../../machines/chat-input.js';
import type { SessionEvent } from '../../machines/session-events.js';
import { foldAccountStats, type AccountStatsDoc } from '../../src/projector/models/account-stats/projection.js';
import { foldChat, type ChatDoc } from '../../src/projector/models/chats/projection.js';
import type { Positioned } from '../../src/projector/models/projection.js';

const T0 = Date.parse('2026-06-10T10:00:00Z');

function eventsOf(inputs: ChatInput[], chatId: string): { event: SessionEvent; inboundOffset: number }[] {
  let state = initialChatState({ accountId: 'acct_a', chatId, idleMs: 1_800_000, lateMs: 300_000 });
  const out: { event: SessionEvent; inboundOffset: number }[] = [];
  inputs.forEach((input, i) => {
    const r = step(state, input);
    state = r.state;
    for (const e of r.events) out.push({ event: { ...e, source: { partition: 0, offset: i * 2 + (chatId === '2' ? 1 : 0) } }, inboundOffset: i });
  });
  return out;
}

const fan = (n: number, at: number): ChatInput => ({ type: 'chat.message', dedupeKey: `k${n}`, at: T0 + at * 1000, messageId: `m${n}`, sender: 'fan', text: 'hi', priceCents: 0, chatterId: null });
const pay = (n: number, at: number): ChatInput => ({ type: 'chat.payment', dedupeKey: `p${n}`, at: T0 + at * 1000, paymentId: `t${n}`, kind: 'tip', grossCents: 700, netCents: 560 });

describe('folds', () => {
  const chat1 = eventsOf([fan(1, 0), pay(2, 10), fan(3, 20)], '1');
  const chat2 = eventsOf([fan(4, 5), pay(5, 15)], '2');
  const interleaved = [...chat1, ...chat2].sort((a, b) => (a.event.source?.offset ?? 0) - (b.event.source?.offset ?? 0));

  const positioned = (list: typeof interleaved): Positioned[] => list.map((x, i) => ({ event: x.event, partition: 0, offset: i }));
  const totals = (list: Positioned[]): AccountStatsDoc | undefined => list.reduce<AccountStatsDoc | undefined>((doc, p) => foldAccountStats(doc, p) ?? doc, undefined);

  it('per-account totals count an event appended twice once', () => {
    const clean = totals(positioned(interleaved));
    expect(clean).toMatchObject({ chats: 2, sessionsOpened: 2, messages: 3, revenueCents: 1400, paymentCount: 2 });
    // The processor re-ran the last three inputs after a crash: their events are in the log twice.
    const replayedTail = interleaved.slice(-4);
    const withDuplicates = positioned([...interleaved, ...replayedTail]);
    const counted = totals(withDuplicates);
    expect({ ...counted, appliedIds: [] }).toEqual({ ...clean, appliedIds: [] });
    // And a projector redelivery of the same positions changes nothing either.
    expect(withDuplicates.every((p) => foldAccountStats(counted, p) === undefined)).toBe(true);
  });

  it('a chat document applies each event once, by chat sequence', () => {
    const once = chat1.reduce<ChatDoc | undefined>((doc, x) => foldChat(doc, x.event) ?? doc, undefined);
    const twice = [...chat1, ...chat1].reduce<ChatDoc | undefined>((doc, x) => foldChat(doc, x.event) ?? doc, undefined);
    expect(twice).toEqual(once);
    expect(once).toMatchObject({ messageCount: 2, paidCents: 700, lifetimeSpendCents: 700, sessionCount: 1 });
  });
});
