// The two copies of a send, in either order: the browser connector's names who sent it (no send
// facts), the platform webhook's has the send facts (price, isFree, queueId; no chatter). Through
// the dedupe rule and the machine, whichever comes first, the events carry all of it once, and
// the message document ends the same.
import { describe, expect, it } from 'vitest';
import type { ChatInput, ChatMessageInput } from '../../machines/chat-input.js';
import type { SessionEvent } from '../../machines/session-events.js';
import { initialChatState, step, type ChatState } from '../../machines/step.js';
import { foldMessage, type MessageDoc } from '../../src/read-models/messages/projection.js';
import { MemoryLedger } from '../support/memory-ledger.js';

const T0 = Date.parse('2026-06-10T18:00:00Z');
const at = (sec: number): number => T0 + sec * 1000;

const fan = (id: string, sec: number): ChatMessageInput => ({ type: 'chat.message', dedupeKey: `evt_${id}`, messageId: id, sender: 'fan', at: at(sec), text: 'hi', priceCents: 0, chatterId: null });
/** The connector's copy: who sent it, no send facts. */
const connectorCopy = (id: string, sec: number, chatterId = 'ann', sender: ChatMessageInput['sender'] = 'human'): ChatMessageInput => ({
  type: 'chat.message', dedupeKey: `connector:${id}`, messageId: id, sender, at: at(sec), text: 'a picture for you', priceCents: 0, chatterId: sender === 'human' ? chatterId : null,
});
/** The webhook's copy: the send facts, nobody named. */
const webhookCopy = (id: string, sec: number, sender: ChatMessageInput['sender'] = 'human'): ChatMessageInput => ({
  type: 'chat.message', dedupeKey: `evt_${id}`, messageId: id, sender, at: at(sec), text: 'a picture for you', priceCents: 1_500, chatterId: null, isFree: false, queueId: 'q7',
});
const tip = (id: string, sec: number): ChatInput => ({ type: 'chat.payment', dedupeKey: `evt_${id}`, paymentId: id, kind: 'tip', at: at(sec), grossCents: 500, netCents: 400 });

function run(inputs: readonly ChatInput[]): { state: ChatState; events: SessionEvent[] } {
  const ledger = new MemoryLedger();
  let state = initialChatState({ accountId: 'acct_1', chatId: '42', idleMs: 30 * 60_000, lateMs: 300_000, unansweredMs: 86_400_000 });
  const events: SessionEvent[] = [];
  for (const input of inputs) {
    const admitted = ledger.dedupe(input);
    if (!admitted) continue;
    const r = step(state, admitted);
    state = r.state;
    events.push(...r.events);
  }
  return { state, events };
}

const ofMessage = (events: readonly SessionEvent[], id: string) => events.filter((e) => (e.type === 'MessageRecorded' || e.type === 'MessageAttributed') && e.data.messageId === id);

/** The message documents the events leave, folded as the projector folds them. */
function messageDocs(events: readonly SessionEvent[]): Map<string, MessageDoc> {
  const docs = new Map<string, MessageDoc>();
  for (const e of events) {
    if (e.type !== 'MessageRecorded' && e.type !== 'MessageAttributed' && e.type !== 'MessageMoved' && e.type !== 'MessageDeleted') continue;
    const next = foldMessage(docs.get(e.data.messageId), e);
    if (next) docs.set(e.data.messageId, next);
  }
  return docs;
}

describe('the connector\'s and the webhook\'s copies of a reply', () => {
  const connectorFirst = run([fan('m1', 0), connectorCopy('m2', 45), webhookCopy('m2', 45), tip('t1', 100), webhookCopy('m2', 45), connectorCopy('m2', 45, 'bob')]);
  const webhookFirst = run([fan('m1', 0), webhookCopy('m2', 45), connectorCopy('m2', 45), tip('t1', 100), connectorCopy('m2', 45, 'bob'), webhookCopy('m2', 45)]);

  it('connector first: the reply is recorded with its chatter, and the webhook\'s copy brings its price, isFree and queueId', () => {
    const [recorded, attributed, ...more] = ofMessage(connectorFirst.events, 'm2');
    expect(more).toEqual([]);
    expect(recorded).toMatchObject({ type: 'MessageRecorded', data: { chatterId: 'ann', priceCents: 0 } });
    expect(recorded?.data).not.toHaveProperty('isFree');
    expect(recorded?.data).not.toHaveProperty('queueId');
    expect(attributed).toMatchObject({ type: 'MessageAttributed', at: at(45), data: { messageId: 'm2', chatterId: null, priceCents: 1_500, isFree: false, queueId: 'q7', sessionId: null, session: null } });
    // Only facts: nothing about who answered moves, so the session's credit does not either.
    expect(connectorFirst.events.map((e) => e.type)).toEqual(['SessionOpened', 'MessageRecorded', 'MessageRecorded', 'MessageAttributed', 'PaymentRecorded', 'PaymentAttributed']);
  });

  it('webhook first: the reply is recorded with its send facts, and the connector\'s copy names its chatter', () => {
    const [recorded, attributed, ...more] = ofMessage(webhookFirst.events, 'm2');
    expect(more).toEqual([]);
    expect(recorded).toMatchObject({ type: 'MessageRecorded', data: { chatterId: null, priceCents: 1_500, isFree: false, queueId: 'q7' } });
    expect(attributed).toMatchObject({ type: 'MessageAttributed', data: { messageId: 'm2', chatterId: 'ann', session: { firstResponderId: 'ann', lastHumanChatterId: 'ann' } } });
    expect(attributed?.data).not.toHaveProperty('priceCents');
    expect(webhookFirst.events.map((e) => e.type)).toEqual(['SessionOpened', 'MessageRecorded', 'MessageRecorded', 'MessageAttributed', 'PaymentRecorded', 'PaymentAttributed']);
  });

  it('either order credits the same chatter and leaves the same session', () => {
    for (const { events } of [connectorFirst, webhookFirst]) {
      expect(events.find((e) => e.type === 'PaymentRecorded')).toMatchObject({ data: { chatterId: 'ann' } });
      // A send from a queue is no human message to the fan: the converter finds none before the tip.
      expect(events.filter((e) => e.type === 'PaymentAttributed').at(-1)).toMatchObject({ data: { converter: { chatterId: null, rule: 'none' } } });
    }
    expect(connectorFirst.state.context.session?.summary).toEqual(webhookFirst.state.context.session?.summary);
    expect(connectorFirst.state.context.session?.summary).toMatchObject({ firstResponderId: 'ann', lastHumanChatterId: 'ann', revenueCents: 500, replyCount: 1 });
  });

  it('either order ends with the same message document: sender\'s chatter, price, isFree and queueId', () => {
    const a = messageDocs(connectorFirst.events).get('m2');
    const b = messageDocs(webhookFirst.events).get('m2');
    expect(a).toMatchObject({ sender: 'human', chatterId: 'ann', priceCents: 1_500, isFree: false, queueId: 'q7', sessionId: 'acct_1:42:1', deleted: false });
    expect(a).toEqual(b);
  });

  it('send facts that come after a payment move no credit, and a reply outside any session takes them too', () => {
    // The webhook's copy comes after the payment the reply is credited with: the credit stays with her.
    const late = run([fan('m1', 0), connectorCopy('m2', 45), tip('t1', 100), webhookCopy('m2', 45)]);
    // The converter credited her reply, until its facts said it came from a queue.
    expect(late.events.map((e) => e.type)).toEqual(['SessionOpened', 'MessageRecorded', 'MessageRecorded', 'PaymentRecorded', 'PaymentAttributed', 'MessageAttributed', 'PaymentAttributed']);
    expect(late.events[4]).toMatchObject({ data: { converter: { chatterId: 'ann', messageId: 'm2', rule: 'last-message' } } });
    expect(late.events.at(-2)).toMatchObject({ data: { chatterId: null, priceCents: 1_500 } });
    expect(late.events.at(-1)).toMatchObject({ data: { converter: { chatterId: null, rule: 'none' } } });
    expect(late.state.context.session?.summary).toEqual(connectorFirst.state.context.session?.summary);
    // A mass send with no session open: recorded outside any, then its facts arrive.
    const outside = run([connectorCopy('m9', 0, 'ann', 'automated'), webhookCopy('m9', 0, 'automated')]);
    expect(outside.events.map((e) => e.type)).toEqual(['MessageRecorded', 'MessageAttributed']);
    expect(messageDocs(outside.events).get('m9')).toMatchObject({ sender: 'automated', chatterId: null, sessionId: null, priceCents: 1_500, isFree: false, queueId: 'q7' });
  });

  it('a copy that names the chatter and brings the facts is one event carrying both', () => {
    // A first copy that has neither (a webhook body without the send fields, say).
    const bare: ChatMessageInput = { type: 'chat.message', dedupeKey: 'evt_m2', messageId: 'm2', sender: 'human', at: at(45), text: 'a picture for you', priceCents: 0, chatterId: null };
    const full: ChatMessageInput = { ...webhookCopy('m2', 45), dedupeKey: 'full:m2', chatterId: 'ann' };
    const { events } = run([fan('m1', 0), bare, full]);
    expect(ofMessage(events, 'm2').map((e) => e.type)).toEqual(['MessageRecorded', 'MessageAttributed']);
    expect(events.at(-1)).toMatchObject({ type: 'MessageAttributed', data: { chatterId: 'ann', priceCents: 1_500, isFree: false, queueId: 'q7', session: { firstResponderId: 'ann' } } });
    expect(messageDocs(events).get('m2')).toEqual(messageDocs(webhookFirst.events).get('m2'));
  });
});
