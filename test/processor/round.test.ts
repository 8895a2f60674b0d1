// The processor's round with no store and no log: given a round's inbound records and what the
// store would hold (chat states, ledger entries), the states, events, ledger entries and
// set-aside records it decides. The store's part is two maps (test/support/run-chats.ts).
import { describe, expect, it } from 'vitest';
import type { AppendRecord, LogRecord, RecordBatch } from '../../src/adapters/log/log.js';
import { messageWebhook } from '../../src/demo/platform-bodies.js';
import { inboundRecord } from '../../src/domain/inbound-record.js';
import type { ChatStateDoc } from '../../src/processor/chat-state.js';
import { decideRound, readRound, type Rederiving, type RoundResult, type RoundSettings } from '../../src/processor/round.js';
import { tickRecords } from '../../src/processor/ticker.js';
import { StoredFormatError } from '../../src/support/stored-format.js';
import { RoundStore } from '../support/run-chats.js';
import { step } from '../../machines/step.js';

const ACCOUNT = 'acct_00000000000000000000000000000r0d';
const T0 = Date.parse('2026-06-10T10:00:00Z');
const MIN = 60_000;
const SETTINGS: RoundSettings = { idleMs: 30 * MIN, lateMs: 2 * MIN, now: 42 };
const keyOf = (fan: string): string => `${ACCOUNT}:${fan}`;

function message(fan: string, id: number, at: number, opts: { direction?: 'received' | 'sent'; key?: string; text?: string; chatterId?: string; priceDollars?: number } = {}): AppendRecord {
  const direction = opts.direction ?? 'received';
  const body = messageWebhook({
    accountId: ACCOUNT, fanId: fan, messageId: String(id), createdAt: new Date(at).toISOString(), text: opts.text ?? 'x', direction,
    ...(opts.priceDollars !== undefined ? { priceDollars: opts.priceDollars } : {}),
  });
  // A copy naming its chatter is the connector's.
  const source = opts.chatterId === undefined ? 'webhook' : 'connector';
  return inboundRecord({
    source, event: direction === 'received' ? 'messages.received' : 'messages.sent', accountId: ACCOUNT, chatId: fan, dedupeKey: opts.key ?? `evt_${id}`, receivedAt: at,
    ...(opts.chatterId === undefined ? {} : { chatterId: opts.chatterId }),
  }, Buffer.from(body));
}

/** The browser connector's copy of a reply, as POST /api/connector/messages writes it: its chatter, no send facts. */
function connectorMessage(fan: string, id: number, at: number, chatterId: string): AppendRecord {
  const body = { event: 'connector.message', account_id: ACCOUNT, payload: { id: String(id), text: 'x', createdAt: new Date(at).toISOString(), chatterId, automated: false } };
  return inboundRecord({
    source: 'connector', event: 'connector.message', accountId: ACCOUNT, chatId: fan, chatterId, dedupeKey: `connector:${ACCOUNT}:${id}`, receivedAt: at,
  }, Buffer.from(JSON.stringify(body)));
}

const tick = (at: number): AppendRecord => tickRecords(1, at)[0] as AppendRecord;

/** Records at consecutive offsets of one partition from `first`, as one batch. */
function batch(partition: number, first: number, records: readonly AppendRecord[]): RecordBatch {
  return {
    topic: 'inbound', partition,
    records: records.map((r, i): LogRecord => ({ topic: 'inbound', partition, offset: first + i, key: r.key, value: Buffer.from(r.value), headers: r.headers ?? {}, timestamp: 0 })),
  };
}

/** One round over `store`, stored if `keep`. */
function round(store: RoundStore, batches: readonly RecordBatch[], opts: { settings?: Partial<RoundSettings>; poisoned?: Map<string, string>; rederiving?: Rederiving; keep?: boolean } = {}): RoundResult {
  const read = readRound(batches, opts.poisoned);
  const r = decideRound(read, store.facts(read), { ...SETTINGS, ...opts.settings }, opts.rederiving);
  if (opts.keep ?? true) store.write(r);
  return r;
}

const types = (r: RoundResult): string[] => r.events.map((e) => e.event.type);
const ledgerIds = (r: RoundResult): string[] => r.ledger.ops().flatMap((op) => ('insertOne' in op ? [op.insertOne.document._id] : []));

describe('the processor round', () => {
  it('opens a session for a chat with no state: the state at the record\'s offset, events stamped with its position, its id for the ledger', () => {
    const r = round(new RoundStore(), [batch(0, 7, [message('1', 1, T0)])]);
    expect(r.readAt.get(keyOf('1'))).toBeNull();
    expect(r.states.get(keyOf('1'))).toMatchObject({ partition: 0, offset: 7 });
    expect(types(r)).toEqual(expect.arrayContaining(['SessionOpened', 'MessageRecorded']));
    for (const e of r.events) expect(e.event.source).toEqual({ partition: 0, offset: 7 });
    // One entry per message, by its id: every copy carries it, whatever its key.
    expect(ledgerIds(r)).toEqual([`${keyOf('1')}|m:1`]);
    expect(r.counted).toMatchObject({ recordsApplied: 1, recordsDuplicate: 0 });
  });

  it('takes a record the chat\'s ledger knows as a duplicate, under another key too; an entry past the stored state does not count', () => {
    const store = new RoundStore();
    const first = round(store, [batch(0, 0, [message('1', 1, T0)])]);
    const again = round(store, [batch(0, 1, [message('1', 1, T0, { key: 'evt_1_backfill' })])]);
    expect(again.counted).toMatchObject({ recordsDuplicate: 1, recordsApplied: 0 });
    expect(again.events).toEqual([]);
    expect(again.states.size).toBe(0);
    expect(again.ledger.ops()).toEqual([]);
    // A crash after the ledger write, before the state's: the entries are there, the state is not.
    // The record re-run is taken again and makes the same events.
    const crashed = new RoundStore();
    for (const [k, d] of store.ledger) crashed.ledger.set(k, d);
    const rerun = round(crashed, [batch(0, 0, [message('1', 1, T0)])]);
    expect(rerun.counted.recordsApplied).toBe(1);
    expect(rerun.events).toEqual(first.events);
  });

  it('skips a record at or below the chat\'s stored offset (a redelivery after a crash)', () => {
    const store = new RoundStore();
    round(store, [batch(0, 0, [message('1', 1, T0), message('1', 2, T0 + MIN, { direction: 'sent' })])]);
    const r = round(store, [batch(0, 1, [message('1', 2, T0 + MIN, { direction: 'sent' })])]);
    expect(r.counted).toMatchObject({ recordsSkippedAsApplied: 1, recordsApplied: 0, recordsDuplicate: 0 });
    expect(r.events).toEqual([]);
    expect(r.states.size).toBe(0);
  });

  it('reads a ledger the two-entry rule wrote: a redelivery under the old key is the message\'s duplicate by its id; a copy naming the chatter attributes it, writing only to the message\'s entry', () => {
    const store = new RoundStore();
    const key = keyOf('1');
    round(store, [batch(0, 0, [message('1', 1, T0, { direction: 'sent' })])]);
    expect([...store.ledger.keys()]).toEqual([`${key}|m:1`]);
    expect(store.ledger.get(`${key}|m:1`)).toMatchObject({ unattributed: true });
    // What the earlier rule also wrote for that record.
    store.ledger.set(`${key}|k:evt_1`, { _id: `${key}|k:evt_1`, chatKey: key, partition: 0, offset: 0, unattributed: false });
    const again = round(store, [batch(0, 1, [message('1', 1, T0, { direction: 'sent' })])]);
    expect(again.counted).toMatchObject({ recordsDuplicate: 1, recordsApplied: 0 });
    const named = round(store, [batch(0, 2, [message('1', 1, T0, { direction: 'sent', key: 'connector:1', chatterId: 'chatter_a' })])]);
    expect(named.events.map((e) => e.event.type)).toContain('MessageAttributed');
    expect(named.ledger.ops()).toEqual([{ updateOne: { filter: { _id: `${key}|m:1` }, update: { $set: { attributedOffset: 2 } } } }]);
  });

  it('takes the webhook\'s copy of a reply the connector brought first for its send facts, once, writing only to the message\'s entry', () => {
    const store = new RoundStore();
    const key = keyOf('1');
    round(store, [batch(0, 0, [message('1', 1, T0), connectorMessage('1', 2, T0 + MIN, 'chatter_a')])]);
    expect(store.ledger.get(`${key}|m:2`)).toEqual({ _id: `${key}|m:2`, chatKey: key, partition: 0, offset: 1, unattributed: false, bare: true });
    const facts = round(store, [batch(0, 2, [message('1', 2, T0 + MIN, { direction: 'sent', priceDollars: 15 })])]);
    expect(facts.counted).toMatchObject({ recordsApplied: 1, recordsDuplicate: 0 });
    expect(facts.events.map((e) => e.event)).toMatchObject([{ type: 'MessageAttributed', data: { messageId: '2', chatterId: null, priceCents: 1_500, isFree: false } }]);
    expect(facts.ledger.ops()).toEqual([{ updateOne: { filter: { _id: `${key}|m:2` }, update: { $set: { factsOffset: 2 } } } }]);
    // A third copy, either one's, adds nothing.
    const again = round(store, [batch(0, 3, [message('1', 2, T0 + MIN, { direction: 'sent', priceDollars: 15, key: 'evt_2_again' }), connectorMessage('1', 2, T0 + MIN, 'chatter_b')])]);
    expect(again.counted).toMatchObject({ recordsDuplicate: 2, recordsApplied: 0 });
    // Both copies in one round: one entry, written once, with the offset of the copy that brought the facts.
    const one = round(new RoundStore(), [batch(0, 0, [connectorMessage('1', 2, T0 + MIN, 'chatter_a'), message('1', 2, T0 + MIN, { direction: 'sent' })])]);
    expect(types(one)).toEqual(['MessageRecorded', 'MessageAttributed']);
    expect(one.ledger.ops()).toEqual([{ insertOne: { document: { _id: `${key}|m:2`, chatKey: key, partition: 0, offset: 0, unattributed: false, bare: true, factsOffset: 1 } } }]);
  });

  it('reads a ledger entry written before entries said whether a send was bare as not bare: the webhook\'s copy after the connector\'s stays a duplicate', () => {
    const store = new RoundStore();
    const key = keyOf('1');
    round(store, [batch(0, 0, [connectorMessage('1', 2, T0, 'chatter_a')])]);
    // As the earlier rule wrote the connector's first copy.
    store.ledger.set(`${key}|m:2`, { _id: `${key}|m:2`, chatKey: key, partition: 0, offset: 0, unattributed: false });
    const r = round(store, [batch(0, 1, [message('1', 2, T0, { direction: 'sent' })])]);
    expect(r.counted).toMatchObject({ recordsDuplicate: 1, recordsApplied: 0 });
    expect(r.ledger.ops()).toEqual([]);
  });

  it('takes the second copy of a message in the same round as a duplicate of the first', () => {
    const r = round(new RoundStore(), [batch(0, 0, [message('1', 1, T0), message('1', 1, T0, { key: 'evt_1_connector' })])]);
    expect(r.counted).toMatchObject({ recordsApplied: 1, recordsDuplicate: 1 });
    expect(r.events.filter((e) => e.event.type === 'MessageRecorded')).toHaveLength(1);
  });

  it('steps on a tick the chats of its partition that are due, in key order, and no chat of another partition or stored past the tick', () => {
    const store = new RoundStore();
    // Answered sessions in chats 2 and 1 of partition 0 (in that order), chat 3 in partition 1.
    round(store, [
      batch(0, 0, [message('2', 1, T0), message('2', 2, T0 + MIN, { direction: 'sent' }), message('1', 3, T0), message('1', 4, T0 + MIN, { direction: 'sent' })]),
      batch(1, 0, [message('3', 5, T0), message('3', 6, T0 + MIN, { direction: 'sent' })]),
    ]);
    const late = T0 + 3 * 60 * MIN;
    const r = round(store, [batch(0, 4, [tick(late)])], { keep: false });
    const closed = r.events.filter((e) => e.event.type === 'SessionClosed');
    expect(closed.map((e) => e.key)).toEqual([keyOf('1'), keyOf('2')]);
    for (const e of r.events) expect(e.event.source).toEqual({ partition: 0, offset: 4 });
    expect([...r.states.keys()].sort()).toEqual([keyOf('1'), keyOf('2')]);
    expect(r.counted.ticks).toBe(1);
    // The tick's round was not stored and chat 2 took a later record: the tick delivered again
    // steps chat 1 only, chat 2 being past it.
    round(store, [batch(0, 5, [message('2', 7, T0 + 2 * MIN)])]);
    const again = round(store, [batch(0, 4, [tick(late)])], { keep: false });
    expect([...again.states.keys()]).toEqual([keyOf('1')]);
  });

  it('sets aside a record the step throws on: its chat keeps its state with the offset past it, the ledger does not take its ids, the next record goes on', () => {
    const throwing: typeof step = (state, input) => {
      if (input.type === 'chat.message' && input.text.includes('boom')) throw new Error('the step cannot take this');
      return step(state, input);
    };
    const store = new RoundStore();
    const before = round(store, [batch(0, 0, [message('1', 1, T0)])]).states.get(keyOf('1')) as ChatStateDoc;
    const r = round(store, [batch(0, 1, [message('1', 2, T0 + MIN, { text: 'boom' }), message('1', 3, T0 + 2 * MIN, { direction: 'sent' })])], { settings: { step: throwing } });
    expect(r.setAside).toHaveLength(1);
    expect(r.setAside[0]).toMatchObject({ _id: 'inbound:0:1', stage: 'step', partition: 0, offset: 1, chatKey: keyOf('1'), error: 'Error: the step cannot take this', setAsideAt: 42 });
    expect(ledgerIds(r).some((id) => id.endsWith('|m:2'))).toBe(false);
    expect(r.events.some((e) => e.event.source?.offset === 1)).toBe(false);
    expect(r.counted.recordsApplied).toBe(1);
    expect(r.readAt.get(keyOf('1'))).toBe(before);
    expect(r.states.get(keyOf('1'))?.offset).toBe(2);
  });

  it('sets aside a record whose own round failed twice, leaving its chat alone', () => {
    const poisoned = round(new RoundStore(), [batch(0, 0, [message('1', 1, T0)])], { poisoned: new Map([['inbound:0:0', 'WriteError: refused']]) });
    expect(poisoned.setAside[0]).toMatchObject({ _id: 'inbound:0:0', stage: 'write', error: 'WriteError: refused' });
    expect(poisoned.states.size).toBe(0);
    expect(poisoned.events).toEqual([]);
  });

  it('sets aside one chat\'s part of a tick whose step throws on it, with no deadline, and steps the others', () => {
    const store = new RoundStore();
    round(store, [batch(0, 0, [message('1', 1, T0), message('1', 2, T0 + MIN, { direction: 'sent' }), message('2', 3, T0), message('2', 4, T0 + MIN, { direction: 'sent' })])]);
    const throwing: typeof step = (state, input) => {
      if (input.type === 'chat.tick' && state.context.chatId === '1') throw new Error('not this chat');
      return step(state, input);
    };
    const r = round(store, [batch(0, 4, [tick(T0 + 3 * 60 * MIN)])], { settings: { step: throwing } });
    expect(r.setAside.map((a) => [a._id, a.stage])).toEqual([[`inbound:0:4|${keyOf('1')}`, 'step']]);
    expect(r.states.get(keyOf('1'))).toMatchObject({ offset: 4, deadline: null });
    expect(r.events.map((e) => e.key)).not.toContain(keyOf('1'));
    expect(r.events.filter((e) => e.event.type === 'SessionClosed').map((e) => e.key)).toEqual([keyOf('2')]);
  });

  it('refuses a stored state in a format this version does not read: the round throws, naming what it found and what to do, and decides nothing', () => {
    const key = keyOf('1');
    const store = new RoundStore();
    round(store, [batch(0, 0, [message('1', 1, T0)])]);
    const now = store.states.get(key) as ChatStateDoc;
    const { lateMs: _late, ...beforeLedger } = now.state.context;
    const { unansweredMs: _limit, ...beforeLimit } = now.state.context;
    const cases: [string, ChatStateDoc, RegExp][] = [
      ['no lateMs', { ...now, state: { ...now.state, context: beforeLedger } } as unknown as ChatStateDoc, /its context has no lateMs\. This version does not read chat states written before event time and the chat ledger/],
      ['no unansweredMs', { ...now, state: { ...now.state, context: beforeLimit } } as unknown as ChatStateDoc, /its context has no unansweredMs\. This version does not read chat states written before the unanswered limit/],
      ['a pre-chart value', { ...now, state: { ...now.state, value: 'inSession' } }, /its state value is "inSession", which the session chart does not have\. This version does not read chat states written before the session chart/],
    ];
    for (const [what, old, found] of cases) {
      const stored = new RoundStore();
      stored.states.set(key, old);
      for (const [k, d] of store.ledger) stored.ledger.set(k, d);
      const ledgerBefore = new Map(stored.ledger);
      // With another chat's record before it: the round fails whole, not that chat's part.
      const records = batch(0, 1, [message('2', 7, T0), message('1', 2, T0 + MIN, { direction: 'sent' })]);
      const refused = (): RoundResult => round(stored, [records]);
      expect(refused, what).toThrow(StoredFormatError);
      expect(refused, what).toThrow(found);
      expect(refused, what).toThrow(`chat state "${key}" (inbound partition 0, offset 0) was written by a build of convops before 0.1.0`);
      expect(refused, what).toThrow(/Nothing was stepped or written; the round is retried and partition 0 waits until this is dealt with\. Derive the state again from inbound \(docs\/operations\.md, "Stored formats"\): a new TOPIC_PREFIX with INBOUND_TOPIC set to this deployment's inbound topic/);
      // A tick that would settle the chat is refused the same way.
      expect(() => round(stored, [batch(0, 1, [tick(T0 + 2 * 24 * 60 * MIN)])]), what).toThrow(StoredFormatError);
      expect(stored.states.get(key), what).toBe(old);
      expect(stored.states.has(keyOf('2')), what).toBe(false);
      expect(stored.ledger, what).toEqual(ledgerBefore);
    }
    // A state in this version's format is stepped as usual.
    expect(round(store, [batch(0, 1, [message('1', 2, T0 + MIN, { direction: 'sent' })])]).counted.recordsApplied).toBe(1);
  });

  it('re-derives a rolled-back chat: records before the round\'s start step it again to the state that was lost, without their events; a tick read again steps only that chat', () => {
    const records = [message('1', 1, T0), message('2', 2, T0), message('1', 3, T0 + MIN, { direction: 'sent' }), message('2', 4, T0 + MIN, { direction: 'sent' }), tick(T0 + 3 * 60 * MIN)];
    const whole = new RoundStore();
    round(whole, [batch(0, 0, records)]);
    // The store lost chat 1's writes after its first record: stored at offset 0. Chat 2 is
    // stored as it was before the tick, still due: the tick read again must leave it alone.
    const lost = new RoundStore();
    round(lost, [batch(0, 0, records.slice(0, 4))]);
    lost.states.set(keyOf('1'), (round(new RoundStore(), [batch(0, 0, records.slice(0, 1))]).states.get(keyOf('1')) as ChatStateDoc));
    for (const k of [...lost.ledger.keys()]) if (k.endsWith('|m:3')) lost.ledger.delete(k);
    // Its records since, read again (2 and the tick at 4), before the round's own record at 5.
    const b = batch(0, 0, [...records, message('1', 5, T0 + 4 * 60 * MIN)]);
    const rederiving: Rederiving = { roundStart: new Map([[0, 5]]), chats: new Map([[0, new Map([[keyOf('1'), 0]])]]) };
    const readAgain = { ...b, records: b.records.filter((r) => r.offset === 2 || r.offset === 4) };
    // Those alone lead chat 1 to exactly the state that was lost.
    expect(round(lost, [readAgain], { rederiving, keep: false }).states.get(keyOf('1'))).toEqual(whole.states.get(keyOf('1')));
    const r = round(lost, [{ ...b, records: b.records.filter((r) => r.offset === 2 || r.offset >= 4) }], { rederiving });
    expect(r.events.length).toBeGreaterThan(0);
    expect(r.events.every((e) => e.event.source?.offset === 5)).toBe(true);
    expect([...r.rederived.chats]).toEqual([keyOf('1')]);
    expect(r.rederived.events).toBeGreaterThan(0);
    expect(r.counted).toMatchObject({ recordsRederived: 2, recordsApplied: 1, ticks: 0 });
    expect(r.states.has(keyOf('2'))).toBe(false);
  });

  it('decides the same from the same records and facts, and leaves the facts it was given as they were', () => {
    const store = new RoundStore();
    round(store, [batch(0, 0, [message('1', 1, T0)])]);
    const read = readRound([batch(0, 1, [message('1', 2, T0 + MIN, { direction: 'sent' }), message('2', 3, T0), message('2', 3, T0, { key: 'evt_3_again' })])]);
    const facts = store.facts(read);
    const stateBefore = facts.states.get(keyOf('1'));
    const one = decideRound(read, facts, SETTINGS);
    const two = decideRound(read, facts, SETTINGS);
    expect(two.events).toEqual(one.events);
    expect([...two.states]).toEqual([...one.states]);
    expect(two.ledger.ops()).toEqual(one.ledger.ops());
    expect(one.ledger.ops().length).toBeGreaterThan(0);
    expect(facts.ledger.ops()).toEqual([]);
    expect(facts.states.get(keyOf('1'))).toBe(stateBefore);
    expect(facts.states.size).toBe(1);
    expect(one.slow).toEqual([]);
  });
});
