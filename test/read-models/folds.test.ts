// The folds' idempotence: a redelivered event changes nothing, and an event appended twice to
// session-events (a processor re-running its input after a crash), or re-emitted under another
// identity, counts once in the totals that add up many chats.
import { describe, expect, it } from 'vitest';
import { initialChatState, step } from '../../machines/step.js';
import type { ChatInput } from '../../machines/chat-input.js';
import type { SessionEvent } from '../../machines/session-events.js';
import type { Doc } from '../../src/adapters/store/store.js';
import type { AccountStatsDoc } from '../../src/read-models/account-stats/projection.js';
import { foldChat, type ChatDoc } from '../../src/read-models/chats/projection.js';
import { PROJECTIONS } from '../../src/read-models/index.js';
import { foldPayment, type PaymentDoc } from '../../src/read-models/payments/projection.js';
import type { ReadModel } from '../../src/read-models/names.js';
import type { Positioned } from '../../src/read-models/projection.js';
import { foldEvent, targetsOf } from '../../src/projector/runner.js';

const T0 = Date.parse('2026-06-10T10:00:00Z');

function eventsOf(inputs: ChatInput[], chatId: string): { event: SessionEvent; inboundOffset: number }[] {
  let state = initialChatState({ accountId: 'acct_a', chatId, idleMs: 1_800_000, lateMs: 300_000, unansweredMs: 86_400_000 });
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
  /** Every read model folded in memory, as the runner folds them; the account's one row. */
  const fold = (list: Positioned[], docs = new Map<string, Doc>()): Map<string, Doc> => {
    for (const p of list) {
      const { nexts } = foldEvent(targetsOf(PROJECTIONS, p), (model: ReadModel, id: string) => docs.get(`${model}/${id}`), p);
      for (const [t, next] of nexts) docs.set(`${t.projection.name}/${t.id}`, next);
    }
    return docs;
  };
  const row = (docs: Map<string, Doc>): AccountStatsDoc | undefined => [...docs].find(([k]) => k.startsWith('account_stats/'))?.[1] as AccountStatsDoc | undefined;
  const totals = (list: Positioned[]): AccountStatsDoc | undefined => row(fold(list));

  it('per-account totals count an event appended twice once', () => {
    const clean = totals(positioned(interleaved));
    expect(clean).toMatchObject({ chats: 2, sessionsOpened: 2, messages: 3, revenueCents: 1400, paymentCount: 2 });
    // The processor re-ran the last three inputs after a crash: their events are in the log twice.
    const replayedTail = interleaved.slice(-4);
    const withDuplicates = positioned([...interleaved, ...replayedTail]);
    const docs = fold(withDuplicates);
    expect(row(docs)).toEqual(clean);
    // And a projector redelivery of the same positions changes nothing either.
    expect(row(fold(withDuplicates, docs))).toEqual(clean);
  });

  it('a close re-emitted under another identity leaves every total unchanged', () => {
    // The session closes (a forced close), then a round stepped from a stale state emits its
    // close again with the next sequence and another id, as a fenced round once did.
    const closing = eventsOf([fan(1, 0), pay(2, 10), { type: 'chat.close', dedupeKey: 'c1', sessionId: null, requestedBy: 'admin', at: T0 + 60_000 }], '1');
    const close = closing.find((x) => x.event.type === 'SessionClosed');
    expect(close).toBeDefined();
    if (!close) return;
    const maxSeq = Math.max(...closing.map((x) => x.event.seq));
    const phantom = { event: { ...close.event, id: `${close.event.chatKey}:${maxSeq + 1}`, seq: maxSeq + 1, source: { partition: 0, offset: 99 } }, inboundOffset: 99 };
    const clean = totals(positioned(closing));
    expect(clean).toMatchObject({ sessionsOpened: 1, sessionsClosed: 1, messages: 1, paymentCount: 1, revenueCents: 700 });
    expect(totals(positioned([...closing, phantom]))).toEqual(clean);
  });

  it('a chat document applies each event once, by chat sequence', () => {
    const once = chat1.reduce<ChatDoc | undefined>((doc, x) => foldChat(doc, x.event) ?? doc, undefined);
    const twice = [...chat1, ...chat1].reduce<ChatDoc | undefined>((doc, x) => foldChat(doc, x.event) ?? doc, undefined);
    expect(twice).toEqual(once);
    expect(once).toMatchObject({ messageCount: 2, paidCents: 700, lifetimeSpendCents: 700, sessionCount: 1 });
  });

  it('a payment keeps the credit its PaymentCredited gave it when its PaymentRecorded is redelivered', () => {
    const reply: ChatInput = { type: 'chat.message', dedupeKey: 'k2', at: T0 + 30_000, messageId: 'm2', sender: 'human', text: 'hey', priceCents: 0, chatterId: null };
    const cases = {
      // The reply was recorded without a chatter; the connector names her after the payment.
      'its reply\'s chatter named later': eventsOf([fan(1, 0), reply, pay(3, 60), { type: 'chat.attribution', dedupeKey: 'c2', at: T0 + 30_000, messageId: 'm2', chatterId: 'ann' }], '1'),
      // The payment came before the fan message that opens its session.
      'its session opened by a message that came after it': eventsOf([pay(3, 60), fan(1, 0)], '1'),
    };
    for (const [name, events] of Object.entries(cases)) {
      const recorded = events.find((x) => x.event.type === 'PaymentRecorded')?.event;
      const credited = events.find((x) => x.event.type === 'PaymentCredited')?.event;
      if (recorded?.type !== 'PaymentRecorded' || credited?.type !== 'PaymentCredited') throw new Error(`${name}: the machine emitted no payment and credit`);
      expect(credited.seq, name).toBeGreaterThan(recorded.seq);
      const first = foldPayment(undefined, recorded);
      const afterCredit = foldPayment(first, credited);
      expect(afterCredit, name).toMatchObject({ sessionId: credited.data.sessionId, chatterId: credited.data.chatterId, lastSeq: credited.seq });
      // The credit moved something: the check below would pass vacuously otherwise.
      expect([first?.sessionId, first?.chatterId], name).not.toEqual([afterCredit?.sessionId, afterCredit?.chatterId]);
      // The same PaymentRecorded again (same seq): the credit stays (undefined: nothing to write, as the runner reads it).
      expect(foldPayment(afterCredit, recorded) ?? afterCredit, name).toEqual<PaymentDoc | undefined>(afterCredit);
    }
  });
});
