// The sender and converter models (machines/credit-models.ts) through the chart: who each credits,
// why, and that a record arriving after the payment it comes before moves the credit.
import { describe, expect, it } from 'vitest';
import type { ChatInput, ChatMessageInput } from '../../machines/chat-input.js';
import type { ModelCredits } from '../../machines/credit-ledger.js';
import type { SessionEvent } from '../../machines/session-events.js';
import { initialChatState, step } from '../../machines/step.js';

const T0 = Date.parse('2026-06-10T18:00:00Z');
const MIN = 60_000;
const HOUR = 60 * MIN;

let n = 0;
const fan = (at: number): ChatMessageInput => ({ type: 'chat.message', dedupeKey: `f${++n}`, messageId: `f${n}`, sender: 'fan', at: T0 + at, text: 'hi', priceCents: 0, chatterId: null });
const reply = (id: string, at: number, chatterId: string | null, priceCents = 0): ChatMessageInput => ({
  type: 'chat.message', dedupeKey: id, messageId: id, sender: 'human', at: T0 + at, text: 'hey', priceCents, chatterId, ...(priceCents > 0 ? { isFree: false } : {}),
});
const mass = (id: string, at: number, priceCents: number): ChatMessageInput => ({
  type: 'chat.message', dedupeKey: id, messageId: id, sender: 'automated', at: T0 + at, text: 'mass', priceCents, chatterId: null, isFree: false, queueId: 'q1',
});
const pay = (id: string, at: number, kind: 'tip' | 'ppv' = 'tip'): ChatInput => ({ type: 'chat.payment', dedupeKey: id, paymentId: id, kind, grossCents: 1_500, netCents: 1_200, at: T0 + at });
const unlock = (ref: string, at: number, messageId: string, amountCents = 1_500): ChatInput => ({
  type: 'chat.signal', dedupeKey: ref, signal: 'ppv-unlocked', refId: ref, amountCents, at: T0 + at, ppv: { messageId },
});
const tick = (at: number): ChatInput => ({ type: 'chat.tick', dedupeKey: `tick:${at}`, at: T0 + at });

function run(inputs: readonly ChatInput[], lookbackMs?: number): SessionEvent[] {
  let state = initialChatState({ accountId: 'a', chatId: 'c', idleMs: 30 * MIN, lateMs: 5 * MIN, unansweredMs: 24 * HOUR, ...(lookbackMs !== undefined ? { lookbackMs } : {}) });
  const events: SessionEvent[] = [];
  for (const input of inputs) {
    const r = step(state, input);
    state = r.state;
    events.push(...r.events);
  }
  return events;
}

/** The payment's credits as its last PaymentAttributed left them; null: never attributed. */
function creditsOf(events: readonly SessionEvent[], paymentId: string): ModelCredits | null {
  const last = events.filter((e) => e.type === 'PaymentAttributed' && e.data.paymentId === paymentId).at(-1);
  return last?.type === 'PaymentAttributed' ? { sender: last.data.sender, converter: last.data.converter } : null;
}

describe('the converter model', () => {
  it('credits the last human message before the payment across sessions, where the session model credits nobody', () => {
    // Ann answers, the session closes idle, and the fan tips two hours later with no session open.
    const events = run([fan(0), reply('r1', MIN, 'ann'), tick(HOUR), pay('t1', 2 * HOUR)]);
    const recorded = events.find((e) => e.type === 'PaymentRecorded');
    expect(recorded?.type === 'PaymentRecorded' && recorded.data).toMatchObject({ sessionId: null, chatterId: null });
    expect(creditsOf(events, 't1')).toEqual({
      converter: { chatterId: 'ann', messageId: 'r1', rule: 'last-message' },
      sender: { chatterId: 'ann', messageId: 'r1', rule: 'last-message' },
    });
  });

  it('looks back no further than its lookback', () => {
    expect(creditsOf(run([fan(0), reply('r1', MIN, 'ann'), tick(HOUR), pay('t1', 25 * HOUR)]), 't1')?.converter).toEqual({ chatterId: null, messageId: null, rule: 'none' });
    expect(creditsOf(run([fan(0), reply('r1', MIN, 'ann'), tick(HOUR), pay('t1', 3 * HOUR)], 2 * HOUR), 't1')?.converter.rule).toBe('none');
  });

  it('moves to a reply that arrives after the payment it comes before, and ignores a mass send', () => {
    const events = run([fan(0), reply('r1', MIN, 'ann'), mass('m1', 3 * MIN, 900), pay('t1', 5 * MIN), reply('r2', 4 * MIN, 'bob')]);
    const attributed = events.filter((e) => e.type === 'PaymentAttributed');
    expect(attributed.map((e) => e.type === 'PaymentAttributed' && e.data.converter.chatterId)).toEqual(['ann', 'bob']);
  });

  it('credits nobody for a late payment under any model', () => {
    const events = run([fan(0), reply('r1', MIN, 'ann'), tick(3 * HOUR), pay('t1', 2 * MIN)]);
    expect(events.find((e) => e.type === 'PaymentRecorded')).toMatchObject({ data: { late: true, chatterId: null } });
    expect(creditsOf(events, 't1')).toBeNull();
  });
});

describe('the sender model', () => {
  it('credits the chatter who sent the PPV the unlock names, whoever chatted last', () => {
    const events = run([fan(0), reply('ppv1', MIN, 'bob', 1_500), reply('r2', 10 * MIN, 'ann'), unlock('u1', 20 * MIN, 'ppv1'), pay('p1', 20 * MIN + 30_000, 'ppv')]);
    expect(creditsOf(events, 'p1')).toEqual({
      sender: { chatterId: 'bob', messageId: 'ppv1', rule: 'ppv-sender' },
      converter: { chatterId: 'ann', messageId: 'r2', rule: 'last-message' },
    });
  });

  it('takes the unlock whichever arrives first, and names a mass PPV as the campaign\'s', () => {
    const events = run([fan(0), reply('ppv1', MIN, 'bob', 1_500), mass('m1', 2 * MIN, 1_500), reply('r2', 3 * MIN, 'ann'), pay('p1', 20 * MIN, 'ppv'), unlock('u1', 19 * MIN, 'm1')]);
    const senders = events.filter((e) => e.type === 'PaymentAttributed').map((e) => e.type === 'PaymentAttributed' && e.data.sender);
    expect(senders).toEqual([{ chatterId: 'ann', messageId: 'r2', rule: 'last-message' }, { chatterId: null, messageId: 'm1', rule: 'campaign' }]);
  });

  it('matches the unlock nearest the payment, and none further than ten minutes away', () => {
    // The fan keeps writing, so the session stays open over every record, whatever their order.
    const sent = [fan(0), reply('ppv1', MIN, 'bob', 1_500), reply('ppv2', 2 * MIN, 'cat', 1_500), fan(25 * MIN)];
    const unlocks = [unlock('u1', 30 * MIN, 'ppv1'), unlock('u2', 40 * MIN, 'ppv2')];
    const sender = (at: number, payFirst: boolean) => creditsOf(run(payFirst ? [...sent, pay('p1', at, 'ppv'), ...unlocks] : [...sent, ...unlocks, pay('p1', at, 'ppv')]), 'p1')?.sender;
    for (const payFirst of [false, true]) {
      expect(sender(38 * MIN, payFirst)?.chatterId).toBe('cat');
      expect(sender(33 * MIN, payFirst)?.chatterId).toBe('bob');
      expect(sender(35 * MIN, payFirst)?.chatterId).toBe('bob'); // equally near: the earlier unlock
      expect(sender(51 * MIN, payFirst)).toMatchObject({ chatterId: 'cat', messageId: 'ppv2', rule: 'last-message' });
    }
  });

  it('keeps the unlock a payment matched while the payment may still be credited again', () => {
    // The unlock is stamped before the payment; a record 15 minutes on moves the watermark past
    // the unlock but not past the payment: the payment's credit must not fall back.
    const events = run([fan(0), mass('m1', MIN, 1_500), reply('r1', 2 * MIN, 'ann'), unlock('u1', MIN, 'm1'), pay('p1', 2 * MIN + 30_000, 'ppv'), pay('t1', 17 * MIN + 30_000)]);
    expect(events.filter((e) => e.type === 'PaymentAttributed' && e.data.paymentId === 'p1')).toHaveLength(1);
    expect(creditsOf(events, 'p1')?.sender).toEqual({ chatterId: null, messageId: 'm1', rule: 'campaign' });
  });

  it('prefers the unlock that showed the payment\'s amount over a nearer one', () => {
    // Two PPVs bought minutes apart: bob's at $15, cat's at $9; the $15 payment lies nearer cat's unlock.
    const events = run([fan(0), reply('ppv1', MIN, 'bob', 1_500), reply('ppv2', 2 * MIN, 'cat', 900), fan(3 * MIN), unlock('u1', 10 * MIN, 'ppv1', 1_500), unlock('u2', 12 * MIN, 'ppv2', 900), pay('p1', 12 * MIN, 'ppv')]);
    expect(creditsOf(events, 'p1')?.sender).toEqual({ chatterId: 'bob', messageId: 'ppv1', rule: 'ppv-sender' });
  });

  it('credits a tip as the converter does', () => {
    const events = run([fan(0), reply('ppv1', MIN, 'bob', 1_500), unlock('u1', 5 * MIN, 'ppv1'), pay('t1', 5 * MIN)]);
    expect(creditsOf(events, 't1')?.sender).toEqual({ chatterId: 'bob', messageId: 'ppv1', rule: 'last-message' });
  });
});
