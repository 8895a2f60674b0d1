import { describe, expect, it } from 'vitest';
import type { ChatInput, ChatMessageInput } from '../../machines/chat-input.js';
import { initialChatState, step, type ChatState } from '../../machines/step.js';
import { MemoryLedger } from '../support/memory-ledger.js';
import { SESSION_EVENT_TYPES, type SessionEvent } from '../../machines/session-events.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const T0 = Date.parse('2026-06-10T18:00:00Z');
const idleMs = 30 * 60_000;

function msg(n: number, sender: ChatMessageInput['sender'], atSec: number, extra: Partial<ChatMessageInput> = {}): ChatMessageInput {
  return { type: 'chat.message', dedupeKey: `evt_${n}`, messageId: `m${n}`, sender, at: T0 + atSec * 1000, text: `t${n}`, priceCents: 0, chatterId: sender === 'human' ? 'alice' : null, ...extra };
}

function run(inputs: ChatInput[], from?: ChatState, ledger = new MemoryLedger()): { state: ChatState; events: SessionEvent[] } {
  let state = from ?? initialChatState({ accountId: 'acct_1', chatId: '42', idleMs, lateMs: 300_000, unansweredMs: 86_400_000 });
  const events: SessionEvent[] = [];
  for (const input of inputs) {
    const i = ledger.dedupe(input);
    if (!i) continue;
    const r = step(state, i);
    state = r.state;
    events.push(...r.events);
  }
  return { state, events };
}

describe('session machine', () => {
  it('opens a session on a fan message and records it as awaiting', () => {
    const { state, events } = run([msg(1, 'fan', 0)]);
    expect(events.map((e) => e.type)).toEqual(['SessionOpened', 'MessageRecorded']);
    expect(events.map((e) => e.id)).toEqual(['acct_1:42:1', 'acct_1:42:2']);
    const rec = events[1];
    expect(rec?.type === 'MessageRecorded' && rec.data.session).toMatchObject({ sessionId: 'acct_1:42:1', awaiting: true, waitingSince: T0, messageCount: 1 });
    expect(state.value).toEqual({ session: 'awaiting' });
  });

  it('measures first response to the first human reply; automated sends neither respond nor clear awaiting', () => {
    const { events } = run([msg(1, 'fan', 0), msg(2, 'fan', 30), msg(3, 'automated', 60), msg(4, 'human', 95), msg(5, 'human', 200)]);
    const sessions = events.flatMap((e) => (e.type === 'MessageRecorded' && e.data.session ? [e.data.session] : []));
    expect(sessions[1]).toMatchObject({ awaiting: true, waitingSince: T0 });
    expect(sessions[2]).toMatchObject({ awaiting: true, firstResponseSec: null });
    expect(sessions[3]).toMatchObject({ awaiting: false, waitingSince: null, firstResponseSec: 95, replyCount: 1 });
    expect(sessions[4]).toMatchObject({ firstResponseSec: 95, replyCount: 2, messageCount: 5 });
  });

  it('drops redeliveries, and copies under another key, by message id', () => {
    const { events } = run([msg(1, 'fan', 0), msg(1, 'fan', 0), msg(9, 'fan', 5, { messageId: 'm1' })]);
    expect(events.filter((e) => e.type === 'MessageRecorded')).toHaveLength(1);
  });

  it('closes an idle session when a later record passes the deadline, then opens a new one', () => {
    const { events, state } = run([msg(1, 'fan', 0), msg(2, 'human', 60), msg(3, 'fan', 60 + 1800 + 301)]);
    expect(events.map((e) => e.type)).toEqual(['SessionOpened', 'MessageRecorded', 'MessageRecorded', 'SessionClosed', 'SessionOpened', 'MessageRecorded']);
    const closed = events[3];
    expect(closed?.type === 'SessionClosed' && closed.data.session).toMatchObject({ sessionId: 'acct_1:42:1', closeReason: 'idle', closedAt: T0 + 60_000 + idleMs });
    expect(state.context.session?.summary.sessionId).toBe('acct_1:42:2');
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('records an outbound message outside any session without opening one', () => {
    const { events, state } = run([msg(1, 'automated', 0)]);
    expect(events.map((e) => e.type)).toEqual(['MessageRecorded']);
    expect(events[0]?.type === 'MessageRecorded' && events[0].data.sessionId).toBeNull();
    expect(state.value).toBe('noSession');
  });

  it('moves a reply recorded outside any session into the session a fan message stamped before it opens', () => {
    const { events } = run([msg(2, 'human', 60), msg(1, 'fan', 0)]);
    expect(events.map((e) => e.type)).toEqual(['MessageRecorded', 'SessionOpened', 'MessageRecorded', 'MessageMoved']);
    const moved = events[3];
    expect(moved?.type === 'MessageMoved' && moved.data).toMatchObject({ messageId: 'm2', sessionId: 'acct_1:42:1' });
    expect(moved?.type === 'MessageMoved' && moved.data.session).toMatchObject({ awaiting: false, firstResponseSec: 60, messageCount: 2, replyCount: 1 });
  });

  it('holds a fan who returns after the idle gap until the lateness has passed, then closes the first session and opens the next', () => {
    const held = run([msg(1, 'fan', 0), msg(3, 'human', 30), msg(2, 'fan', 30 + 1800 + 60)]);
    expect(held.events.map((e) => e.type)).toEqual(['SessionOpened', 'MessageRecorded', 'MessageRecorded']);
    const { events } = run([msg(1, 'fan', 0), msg(3, 'human', 30), msg(2, 'fan', 30 + 1800 + 60), { type: 'chat.tick', dedupeKey: 'tick', at: T0 + (30 + 1800 + 60 + 301) * 1000 }]);
    expect(events.map((e) => e.type)).toEqual(['SessionOpened', 'MessageRecorded', 'MessageRecorded', 'SessionClosed', 'SessionOpened', 'MessageRecorded']);
  });

  it('keeps an unanswered fan who writes again after the idle gap in the same session, still awaiting from the first message', () => {
    const { events, state } = run([msg(1, 'fan', 0), msg(2, 'fan', 1800 + 60), { type: 'chat.tick', dedupeKey: 'tick', at: T0 + (1800 + 60 + 301) * 1000 }]);
    expect(events.map((e) => e.type)).toEqual(['SessionOpened', 'MessageRecorded', 'MessageRecorded']);
    expect(state.context.session?.summary).toMatchObject({ sessionId: 'acct_1:42:1', awaiting: true, waitingSince: T0, fanMessageCount: 2 });
  });

  it('a record stamped an hour ahead of its arrival moves the watermark only by the lateness: the conversation goes on', () => {
    const arrive = (sec: number) => ({ receivedAt: T0 + sec * 1000 });
    const { events, state } = run([
      msg(1, 'fan', 0, arrive(0)),
      msg(2, 'human', 3600, arrive(60)),
      msg(3, 'fan', 120, arrive(120)),
    ]);
    expect(state.context.lateCount).toBe(0);
    const last = events[events.length - 1];
    // The fan was waiting, so the session is open to the unanswered limit: the skewed reply is
    // inside it, and answers the message stamped before it.
    expect(last?.type === 'MessageRecorded' && last.data.session).toMatchObject({ sessionId: 'acct_1:42:1', messageCount: 3, awaiting: false });
  });

  it('presence pings do not keep a tick from closing an idle session', () => {
    const pings = Array.from({ length: 40 }, (_, i): ChatInput => ({ type: 'chat.presence', dedupeKey: `p${i}`, presence: 'online', at: T0 + (60 + i * 60) * 1000, receivedAt: T0 + (60 + i * 60) * 1000 }));
    const { events } = run([msg(1, 'fan', 0, { receivedAt: T0 }), msg(2, 'human', 30, { receivedAt: T0 + 30_000 }), ...pings, { type: 'chat.tick', dedupeKey: 'tick', at: T0 + (30 + 1800 + 301) * 1000 }]);
    expect(events.map((e) => e.type)).toEqual(['SessionOpened', 'MessageRecorded', 'MessageRecorded', 'SessionClosed']);
  });

  it('a close that finds nothing to close leaves the watermark alone', () => {
    const { state } = run([msg(1, 'automated', 0), { type: 'chat.close', dedupeKey: 'c', at: T0 + 7200_000, sessionId: null, requestedBy: 'admin' }, msg(2, 'fan', 60)]);
    expect(state.context.lateCount).toBe(0);
    expect(state.context.ignoredCloseCount).toBe(1);
    expect(state.context.session?.summary.openedAt).toBe(T0 + 60_000);
  });

  it('counts skipped inputs without emitting', () => {
    const { events, state } = run([{ type: 'chat.skipped', dedupeKey: 'x', event: 'posts.liked', reason: 'n/a', at: T0 }]);
    expect(events).toEqual([]);
    expect(state.context.skippedCount).toBe(1);
  });

  it('is deterministic and resumes identically from a stored state', () => {
    const inputs = [msg(1, 'fan', 0), msg(2, 'human', 10), msg(3, 'fan', 4000), msg(4, 'human', 4100)];
    const whole = run(inputs);
    const first = run(inputs.slice(0, 2));
    const stored = JSON.parse(JSON.stringify(first.state)) as ChatState;
    const ledger = new MemoryLedger();
    for (const i of inputs.slice(0, 2)) ledger.dedupe(i);
    const rest = run(inputs.slice(2), stored, ledger);
    expect([...first.events, ...rest.events]).toEqual(whole.events);
    expect(rest.state).toEqual(whole.state);
  });
});

describe('the event catalogue', () => {
  it('documents every event type the machine can emit', () => {
    const doc = readFileSync(join(import.meta.dirname, '../../docs/events.md'), 'utf8');
    for (const type of SESSION_EVENT_TYPES) expect(doc).toContain(`### \`${type}\``);
  });
});
