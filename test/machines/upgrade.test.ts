// States stored before the chart (value `noSession` or `inSession`) and before event time load
// into today's chart: the value is derived from the context, and the chat goes on.
import { describe, expect, it } from 'vitest';
import type { ChatMessageInput } from '../../machines/chat-input.js';
import { initialChatState, step, type ChatState } from '../../machines/step.js';
import { chartValueOf, lacksUnansweredLimit, upgradeChatState, withUnansweredLimit } from '../../machines/upgrade.js';

const T0 = Date.parse('2026-06-10T18:00:00Z');
const fan = (n: number, atSec: number): ChatMessageInput => ({ type: 'chat.message', dedupeKey: `k${n}`, messageId: `m${n}`, sender: 'fan', at: T0 + atSec * 1000, text: '', priceCents: 0, chatterId: null });
const reply = (n: number, atSec: number): ChatMessageInput => ({ ...fan(n, atSec), sender: 'human', chatterId: 'ann' });

function run(inputs: ChatMessageInput[]): ChatState {
  let s = initialChatState({ accountId: 'a', chatId: 'c', idleMs: 1_800_000, lateMs: 300_000, unansweredMs: 86_400_000 });
  for (const i of inputs) s = step(s, i).state;
  return s;
}

/** The same state as the two-state machine stored it. */
const asStoredBefore = (s: ChatState): ChatState => JSON.parse(JSON.stringify({ ...s, value: s.context.session ? 'inSession' : 'noSession' })) as ChatState;

describe('states stored before the session chart', () => {
  it('take their value from the context: awaiting, answered, or no session', () => {
    expect(chartValueOf(asStoredBefore(run([fan(1, 0)])))).toEqual({ session: 'awaiting' });
    expect(chartValueOf(asStoredBefore(run([fan(1, 0), reply(2, 60)])))).toEqual({ session: 'answered' });
    expect(chartValueOf(asStoredBefore(run([])))).toBe('noSession');
    // A closed session left no trace of why it closed: such a chat waits in noSession for its next one.
    const closed = step(run([fan(1, 0), reply(2, 60)]), { type: 'chat.tick', dedupeKey: 't', at: T0 + 2_200_000 }).state;
    expect(closed.value).toEqual({ closed: 'idle' });
    expect(chartValueOf(asStoredBefore(closed))).toBe('noSession');
  });

  it('stored before the unanswered limit, take the configured one and keep a waiting fan open past the idle gap', () => {
    const { unansweredMs: _u, ...context } = run([fan(1, 0)]).context;
    const stored = { value: { session: 'awaiting' }, context } as unknown as ChatState;
    expect(lacksUnansweredLimit(stored)).toBe(true);
    const upgraded = withUnansweredLimit(stored, 86_400_000);
    expect(lacksUnansweredLimit(upgraded)).toBe(false);
    const later = step(upgraded, { type: 'chat.tick', dedupeKey: 't', at: T0 + 2_200_000 });
    expect(later.events).toEqual([]);
    expect(later.state.value).toEqual({ session: 'awaiting' });
  });

  it('leave values stored by the chart as they are', () => {
    const s = run([fan(1, 0), reply(2, 60)]);
    expect(chartValueOf(s)).toBe(s.value);
  });

  it('step on as if they had been stored by the chart', () => {
    const inputs = [fan(1, 0), reply(2, 60), fan(3, 120)];
    const now = run(inputs.slice(0, 2));
    const next = reply(4, 180);
    const fromOld = step(asStoredBefore(run(inputs)), next);
    const fromNew = step(run(inputs), next);
    expect(fromOld).toEqual(fromNew);
    expect(fromOld.state.value).toEqual({ session: 'answered' });
    const closed = step(asStoredBefore(now), { type: 'chat.close', dedupeKey: 'c', at: T0 + 100_000, sessionId: null, requestedBy: 'admin' });
    expect(closed.events.map((e) => e.type)).toEqual(['SessionClosed']);
    expect(closed.state.value).toEqual({ closed: 'forced' });
  });

  it('an open session stored before event time comes back in the state its fan is in', () => {
    const legacy = {
      value: 'inSession',
      context: {
        accountId: 'a', chatId: 'c', idleMs: 1_800_000, chatKey: 'a:c', seq: 2, sessionCount: 1, fanSpendCents: null, presence: null, presenceAt: null,
        lastArrivalAt: null, skippedCount: 0, ignoredCloseCount: 0,
        session: {
          sessionId: 'a:c:1', status: 'open', openedAt: T0, closedAt: null, closeReason: null, lastMessageAt: T0, lastActivityAt: T0, messageCount: 1,
          fanMessageCount: 1, replyCount: 0, awaiting: true, waitingSince: T0, firstFanMessageAt: T0, firstResponseAt: null, firstResponseSec: null,
          firstResponderId: null, lastHumanChatterId: null, revenueCents: 0, paymentCount: 0,
        },
      },
    } as unknown as ChatState;
    const { state } = upgradeChatState(legacy, 300_000, 86_400_000);
    expect(state.value).toEqual({ session: 'awaiting' });
    const answered = step(state, reply(9, 30));
    expect(answered.state.value).toEqual({ session: 'answered' });
    expect(answered.events[0]?.type === 'MessageRecorded' && answered.events[0].data.session).toMatchObject({ sessionId: 'a:c:1', awaiting: false, firstResponseSec: 30 });
  });
});
