// The dedupe rule (machines/dedupe.ts) on its own: a message or payment is one fact per id,
// whatever key each copy came under; anything else is one fact per key. Checked against a
// reference written from that sentence (facts, not ledger ids) on generated streams of copies.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatInput, ChatMessageInput, ChatPaymentInput } from '../../machines/chat-input.js';
import { dedupe, idsOf } from '../../machines/dedupe.js';
import { MemoryLedger } from '../support/memory-ledger.js';

const message = (id: string, key: string, sender: ChatMessageInput['sender'], chatterId: string | null, facts: Partial<Pick<ChatMessageInput, 'priceCents' | 'isFree' | 'queueId'>> = {}): ChatMessageInput => ({
  type: 'chat.message', dedupeKey: key, at: 1_000, messageId: id, sender, text: 'x', priceCents: 0, chatterId, ...facts,
});
/** The platform webhook's copy of a send: the send facts, no chatter. */
const webhookSend = (id: string, facts: Partial<Pick<ChatMessageInput, 'priceCents' | 'isFree' | 'queueId'>> = { priceCents: 1_500, isFree: false, queueId: 'q7' }): ChatMessageInput =>
  message(id, `evt_${id}`, 'human', null, facts);
/** The browser connector's copy: the chatter, no send facts. */
const connectorCopy = (id: string, chatterId = 'chatter_a'): ChatMessageInput => message(id, `conn_${id}`, 'human', chatterId);
const payment = (id: string, key: string): ChatPaymentInput => ({ type: 'chat.payment', dedupeKey: key, at: 1_000, paymentId: id, kind: 'tip', grossCents: 500, netCents: 400 });
const deleted = (id: string, key: string): ChatInput => ({ type: 'chat.messageDeleted', dedupeKey: key, at: 1_000, messageId: id });

describe('the dedupe ledger', () => {
  it('knows a message by its id alone: one entry, found under any key', () => {
    const first = message('m1', 'evt_1', 'fan', null);
    expect(idsOf(first)).toEqual(['m:m1']);
    const ledger = new MemoryLedger();
    expect(ledger.dedupe(first)).toEqual(first);
    expect(ledger.dedupe(message('m1', 'backfill_m1', 'fan', null))).toBeNull();
    expect(ledger.dedupe(message('m1', 'evt_1', 'fan', null))).toBeNull();
    // Another message under the first one's key is another fact.
    expect(ledger.dedupe(message('m2', 'evt_1', 'fan', null))).not.toBeNull();
  });

  it('knows a payment by its id, and any other input by its key', () => {
    expect(idsOf(payment('t1', 'evt_9'))).toEqual(['p:t1']);
    expect(idsOf(deleted('m1', 'evt_8'))).toEqual(['k:evt_8']);
    const ledger = new MemoryLedger();
    expect(ledger.dedupe(payment('t1', 'evt_9'))).not.toBeNull();
    expect(ledger.dedupe(payment('t1', 'bf_t1'))).toBeNull();
    expect(ledger.dedupe(deleted('m1', 'evt_8'))).not.toBeNull();
    expect(ledger.dedupe(deleted('m1', 'evt_8'))).toBeNull();
    expect(ledger.dedupe(deleted('m1', 'evt_7'))).not.toBeNull();
  });

  it('turns the first copy that names the chatter of a human message taken in without one into its attribution, once', () => {
    const ledger = new MemoryLedger();
    expect(ledger.dedupe(message('m1', 'evt_1', 'human', null))).not.toBeNull();
    const named = ledger.dedupe(message('m1', 'conn_m1', 'human', 'chatter_a'));
    expect(named).toMatchObject({ type: 'chat.attribution', messageId: 'm1', chatterId: 'chatter_a', dedupeKey: 'conn_m1' });
    expect(ledger.dedupe(message('m1', 'conn_m1_again', 'human', 'chatter_b'))).toBeNull();
    expect(ledger.dedupe(message('m1', 'evt_1', 'human', null))).toBeNull();
    // A human message first taken in with its chatter is never attributed again.
    expect(ledger.dedupe(message('m2', 'evt_2', 'human', 'chatter_a'))).not.toBeNull();
    expect(ledger.dedupe(message('m2', 'conn_m2', 'human', 'chatter_b'))).toBeNull();
  });

  it('admits what a reference written from the rule admits, on generated streams of copies (seed printed on failure)', () => {
    type Facts = 'none' | 'free' | 'priced' | 'queued';
    type Copy = { kind: 'message'; id: string; key: string; sender: ChatMessageInput['sender']; chatter: string | null; facts: Facts } | { kind: 'payment' | 'deleted'; id: string; key: string };
    const factsOf: Record<Facts, Partial<ChatMessageInput>> = { none: {}, free: { isFree: true }, priced: { priceCents: 900, isFree: false }, queued: { queueId: 'q1' } };
    const copy: fc.Arbitrary<Copy> = fc.oneof(
      fc.record({
        kind: fc.constant('message' as const), id: fc.constantFrom('1', '2', '3'), key: fc.constantFrom('a', 'b', 'c', 'd'),
        sender: fc.constantFrom('fan' as const, 'human' as const, 'automated' as const), chatter: fc.constantFrom(null, 'x', 'y'),
        facts: fc.constantFrom<Facts>('none', 'free', 'priced', 'queued'),
      }),
      fc.record({ kind: fc.constantFrom('payment' as const, 'deleted' as const), id: fc.constantFrom('1', '2'), key: fc.constantFrom('a', 'b', 'c', 'd') }),
    );
    fc.assert(fc.property(fc.array(copy, { maxLength: 30 }), (copies) => {
      // The reference: facts seen so far, by what the fact is (not by ledger id).
      const facts = new Map<string, { sender?: string; chatter: string | null; sendFacts: boolean }>();
      const expected: string[] = [];
      for (const c of copies) {
        const fact = c.kind === 'deleted' ? `deletion under key ${c.key}` : `${c.kind} ${c.id}`;
        const had = facts.get(fact);
        if (c.kind !== 'message') {
          if (!had) facts.set(fact, { chatter: null, sendFacts: false });
          expected.push(had ? 'duplicate' : c.kind);
          continue;
        }
        // A copy of a send says what the platform said of it, or says nothing (the connector's).
        const says = c.sender !== 'fan' && c.facts !== 'none';
        // A fact's sender is its first copy's: the platform never changes who sent a message.
        if (!had) {
          facts.set(fact, { sender: c.sender, chatter: c.chatter, sendFacts: c.sender === 'fan' || says });
          expected.push('message');
          continue;
        }
        // A later copy adds the chatter a human message lacked, the send facts a send lacked, or both.
        const names = had.sender === 'human' && had.chatter === null && c.sender === 'human' && c.chatter !== null;
        const brings = !had.sendFacts && says;
        if (names) had.chatter = c.chatter;
        if (brings) had.sendFacts = true;
        expected.push(names || brings ? 'attribution' : 'duplicate');
      }
      const ledger = new MemoryLedger();
      const got = copies.map((c) => {
        const input = c.kind === 'message' ? message(c.id, c.key, c.sender, c.chatter, factsOf[c.facts]) : c.kind === 'payment' ? payment(c.id, c.key) : deleted(c.id, c.key);
        const a = ledger.dedupe(input);
        return a === null ? 'duplicate' : a.type === 'chat.attribution' ? 'attribution' : a.type === 'chat.message' ? 'message' : a.type === 'chat.payment' ? 'payment' : 'deleted';
      });
      expect(got).toEqual(expected);
    }), { numRuns: 500 });
  });

  it('remembers one id per admitted input, so each takes one ledger document', () => {
    const a = dedupe(message('m1', 'evt_1', 'human', null), () => undefined);
    expect(a).toMatchObject({ kind: 'admit', remember: [{ id: 'm:m1', unattributed: true, bare: true }] });
    const b = dedupe(message('m1', 'conn', 'human', 'x'), () => ({ unattributed: true, bare: true }));
    expect(b).toMatchObject({ kind: 'admit', remember: [{ id: 'm:m1', unattributed: false, bare: true }] });
  });

  it('remembers a send first taken in without its send facts as bare, and nothing else', () => {
    const remembered = (input: ChatInput) => {
      const v = dedupe(input, () => undefined);
      return v.kind === 'admit' ? v.remember : null;
    };
    expect(remembered(connectorCopy('m1'))).toEqual([{ id: 'm:m1', unattributed: false, bare: true }]);
    expect(remembered(message('m2', 'conn_m2', 'automated', null))).toEqual([{ id: 'm:m2', unattributed: false, bare: true }]);
    // Any one fact is a copy that has them: free, priced or from a queue.
    expect(remembered(webhookSend('m3'))).toEqual([{ id: 'm:m3', unattributed: true, bare: false }]);
    expect(remembered(webhookSend('m4', { isFree: true }))).toEqual([{ id: 'm:m4', unattributed: true, bare: false }]);
    expect(remembered(webhookSend('m5', { priceCents: 300 }))).toEqual([{ id: 'm:m5', unattributed: true, bare: false }]);
    expect(remembered(message('m6', 'evt_m6', 'automated', null, { queueId: 'q1' }))).toEqual([{ id: 'm:m6', unattributed: false, bare: false }]);
    // A fan's message has no send facts to lack.
    expect(remembered(message('m7', 'evt_m7', 'fan', null))).toEqual([{ id: 'm:m7', unattributed: false, bare: false }]);
    expect(remembered(payment('t1', 'evt_t1'))).toEqual([{ id: 'p:t1', unattributed: false, bare: false }]);
  });

  describe('the two copies of a send (the connector\'s names the chatter, the webhook\'s has the send facts), in either order', () => {
    it('connector first: the webhook\'s copy brings the send facts and names nobody; a third copy is a duplicate', () => {
      const ledger = new MemoryLedger();
      expect(ledger.dedupe(connectorCopy('m1'))).toEqual(connectorCopy('m1'));
      expect(ledger.dedupe({ ...webhookSend('m1'), receivedAt: 5_000 })).toEqual({
        type: 'chat.attribution', dedupeKey: 'evt_m1', at: 1_000, messageId: 'm1', chatterId: null, priceCents: 1_500, isFree: false, queueId: 'q7', receivedAt: 5_000,
      });
      expect(ledger.dedupe(webhookSend('m1'))).toBeNull();
      expect(ledger.dedupe(connectorCopy('m1', 'chatter_b'))).toBeNull();
    });

    it('webhook first: the connector\'s copy names the chatter and carries no send facts; a third copy is a duplicate', () => {
      const ledger = new MemoryLedger();
      expect(ledger.dedupe(webhookSend('m1'))).toEqual(webhookSend('m1'));
      expect(ledger.dedupe(connectorCopy('m1'))).toEqual({ type: 'chat.attribution', dedupeKey: 'conn_m1', at: 1_000, messageId: 'm1', chatterId: 'chatter_a' });
      expect(ledger.dedupe(connectorCopy('m1', 'chatter_b'))).toBeNull();
      expect(ledger.dedupe(webhookSend('m1', { priceCents: 99, isFree: false }))).toBeNull();
    });

    it('a free send\'s facts are facts too: price 0, isFree true', () => {
      const ledger = new MemoryLedger();
      ledger.dedupe(connectorCopy('m1'));
      expect(ledger.dedupe(webhookSend('m1', { isFree: true }))).toMatchObject({ type: 'chat.attribution', chatterId: null, priceCents: 0, isFree: true });
      expect(ledger.dedupe(webhookSend('m1', { isFree: true }))).toBeNull();
    });

    it('a copy that both names the chatter of an unattributed message and brings the facts of a bare one is one input carrying both', () => {
      const ledger = new MemoryLedger();
      // A first copy with neither: a human message without chatter or send facts.
      const neither = message('m1', 'evt_m1', 'human', null);
      expect(ledger.dedupe(neither)).toEqual(neither);
      expect(ledger.dedupe(message('m1', 'full_m1', 'human', 'chatter_a', { priceCents: 1_500, isFree: false }))).toEqual({
        type: 'chat.attribution', dedupeKey: 'full_m1', at: 1_000, messageId: 'm1', chatterId: 'chatter_a', priceCents: 1_500, isFree: false,
      });
      expect(ledger.dedupe(connectorCopy('m1', 'chatter_b'))).toBeNull();
      expect(ledger.dedupe(webhookSend('m1'))).toBeNull();
    });

    it('a first copy with neither takes the chatter and the facts from two later copies, one each', () => {
      const ledger = new MemoryLedger();
      ledger.dedupe(message('m1', 'evt_m1', 'human', null));
      expect(ledger.dedupe(connectorCopy('m1'))).toEqual({ type: 'chat.attribution', dedupeKey: 'conn_m1', at: 1_000, messageId: 'm1', chatterId: 'chatter_a' });
      expect(ledger.dedupe(webhookSend('m1'))).toMatchObject({ type: 'chat.attribution', chatterId: null, priceCents: 1_500, isFree: false, queueId: 'q7' });
      expect(ledger.dedupe(message('m1', 'again', 'human', 'chatter_b', { priceCents: 1 }))).toBeNull();
    });

    it('a fan\'s copy brings no send facts to a bare send', () => {
      const ledger = new MemoryLedger();
      ledger.dedupe(connectorCopy('m1'));
      expect(ledger.dedupe(message('m1', 'evt_fan', 'fan', null, { priceCents: 500 }))).toBeNull();
    });
  });
});
