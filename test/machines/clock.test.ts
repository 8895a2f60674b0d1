// A chatter's clock chat: clock-ins and -outs become intervals, each ClockedOut naming the
// ClockedIn it ends; a second clock-in or a clock-out while out changes nothing; a command that
// says the open interval ended by idling closes it there first.
import { describe, expect, it } from 'vitest';
import type { ChatClockInput } from '../../machines/chat-input.js';
import type { SessionEvent } from '../../machines/session-events.js';
import { initialChatState, step } from '../../machines/step.js';

const T0 = Date.parse('2026-06-10T18:00:00Z');
const MIN = 60_000;
let n = 0;
const clock = (action: 'in' | 'out', at: number, idleSince?: number): ChatClockInput => ({
  type: 'chat.clock', dedupeKey: `k${++n}`, action, chatterId: 'ann', requestedBy: 'ADMIN_TOKEN', at: T0 + at, ...(idleSince !== undefined ? { idleSince: T0 + idleSince } : {}),
});

function run(inputs: readonly ChatClockInput[]): SessionEvent[] {
  let state = initialChatState({ accountId: 'a', chatId: '_clock.ann', idleMs: 30 * MIN, lateMs: 5 * MIN, unansweredMs: 86_400_000 });
  const events: SessionEvent[] = [];
  for (const input of inputs) {
    const r = step(state, input);
    state = r.state;
    events.push(...r.events);
  }
  return events;
}

const shape = (e: SessionEvent) => ({ id: e.id, type: e.type, at: e.at - T0, ...(e.type === 'ChatterClockedOut' ? { intervalId: e.data.intervalId, automatic: e.data.automatic } : {}) });

describe('the clock chat', () => {
  it('opens an interval on clock-in and closes it on clock-out; repeats change nothing', () => {
    const events = run([clock('out', 0), clock('in', MIN), clock('in', 2 * MIN), clock('out', 60 * MIN), clock('out', 61 * MIN)]);
    expect(events.map(shape)).toEqual([
      { id: 'a:_clock.ann:1', type: 'ChatterClockedIn', at: MIN },
      { id: 'a:_clock.ann:2', type: 'ChatterClockedOut', at: 60 * MIN, intervalId: 'a:_clock.ann:1', automatic: false },
    ]);
    expect(events.every((e) => e.chatId === '_clock.ann' && e.accountId === 'a')).toBe(true);
  });

  it('closes an interval that ended by idling where it ended, then opens the next', () => {
    const events = run([clock('in', 0), clock('in', 90 * MIN, 30 * MIN), clock('out', 200 * MIN, 120 * MIN)]);
    expect(events.map(shape)).toEqual([
      { id: 'a:_clock.ann:1', type: 'ChatterClockedIn', at: 0 },
      { id: 'a:_clock.ann:2', type: 'ChatterClockedOut', at: 30 * MIN, intervalId: 'a:_clock.ann:1', automatic: true },
      { id: 'a:_clock.ann:3', type: 'ChatterClockedIn', at: 90 * MIN },
      { id: 'a:_clock.ann:4', type: 'ChatterClockedOut', at: 120 * MIN, intervalId: 'a:_clock.ann:3', automatic: true },
    ]);
  });
});
