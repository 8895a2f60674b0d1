// The door's bounds, case by case: each value here once got past it and broke something
// downstream (issue 27). The door refuses naming the field; a record already in the log with
// the same value is skipped by the normaliser, never stepped.
import { describe, expect, it } from 'vitest';
import type { InboundMeta } from '../../src/domain/inbound-record.js';
import { parseJson } from '../../src/domain/json.js';
import { normalise } from '../../src/domain/normalise.js';
import { routeWebhook } from '../../src/domain/webhook-route.js';

const NOW = Date.UTC(2026, 10, 25, 12);

function door(text: string, key: string | undefined = 'evt_bounds') {
  const raw = Buffer.from(text);
  return routeWebhook(parseJson(text), key, raw, NOW);
}

const received = (payload: Record<string, unknown>): string => JSON.stringify({ event: 'messages.received', account_id: 'acct_1', payload: { id: 1, fromUser: { id: 7 }, createdAt: '2026-11-25T11:00:00Z', ...payload } });
const transaction = (payload: Record<string, unknown>): string => JSON.stringify({ event: 'transactions.new', account_id: 'acct_1', payload: { id: 't1', amount: 10, created_at: '2026-11-25 11:00:00', fan: { id: '7' }, ...payload } });

function stored(text: string): ReturnType<typeof normalise> {
  const body = JSON.parse(text) as { event: string; account_id: string };
  const meta: InboundMeta = { source: 'webhook', event: body.event, accountId: body.account_id, chatId: '7', dedupeKey: 'evt_bounds', receivedAt: NOW };
  return normalise(meta, Buffer.from(text));
}

describe('the door', () => {
  it('accepts an ordinary body', () => {
    expect(door(received({}))).toMatchObject({ ok: true, route: { chatId: '7' } });
    expect(door(transaction({}))).toMatchObject({ ok: true });
  });

  it.each([3_000, 900_000])('refuses a %i-character fan id naming the field', (n) => {
    expect(door(received({ fromUser: { id: '9'.repeat(n) } }))).toMatchObject({ ok: false, field: 'payload.fromUser.id', reason: expect.stringMatching(/1 to 64/) });
    expect(door(received({ fromUser: { id: Number('9'.repeat(Math.min(n, 300))) } }))).toMatchObject({ ok: false, field: 'payload.fromUser.id' });
  });

  it('refuses fan ids that are not ids (objects, fractions, negative, separators)', () => {
    for (const id of [{}, 1.5, -3, 'a:b', 'a b', '', 1e300]) {
      expect(door(received({ fromUser: { id } })), JSON.stringify(id)).toMatchObject({ ok: false, field: 'payload.fromUser.id' });
    }
  });

  it.each([
    ['1e300', 1e300, 'must not be more than a day'],
    ['8.7e15', 8.7e15, 'must not be more than a day'],
    ['year -271821', '-271821-04-20T00:00:00Z', 'must be a time'],
    ['1999', '1999-12-31T23:59:59Z', 'must not be before 2000-01-01'],
    ['two days ahead', new Date(NOW + 2 * 86_400_000).toISOString(), 'must not be more than a day'],
    ['not a time', 'yesterday-ish', 'must be a time'],
  ])('refuses a message dated %s, and the normaliser skips it', (_name, createdAt, reason) => {
    const text = received({ createdAt });
    expect(door(text)).toMatchObject({ ok: false, field: 'payload.createdAt', reason: expect.stringContaining(reason) });
    expect(stored(text)).toMatchObject({ type: 'chat.skipped', reason: expect.stringContaining('payload.createdAt') });
  });

  it('accepts a time within a day ahead (clock skew), and an absent time means the time of receipt', () => {
    expect(door(received({ createdAt: new Date(NOW + 3_600_000).toISOString() })).ok).toBe(true);
    expect(stored(received({ createdAt: null }))).toMatchObject({ type: 'chat.message', at: NOW });
  });

  it('refuses amounts and prices out of range instead of counting them as 0 or null', () => {
    expect(door(transaction({ amount: 1e308 }))).toMatchObject({ ok: false, field: 'payload.amount', reason: expect.stringMatching(/at most 100,000 dollars/) });
    expect(door(transaction({ amount: '$1e308' }))).toMatchObject({ ok: false, field: 'payload.amount' });
    expect(door(transaction({ net_amount: 'lots' }))).toMatchObject({ ok: false, field: 'payload.net_amount' });
    expect(door(received({ price: 1e308 }))).toMatchObject({ ok: false, field: 'payload.price' });
    expect(door(received({ price: -1 }))).toMatchObject({ ok: false, field: 'payload.price', reason: 'must not be negative' });
    expect(stored(received({ price: 12.5 }))).toMatchObject({ type: 'chat.message', priceCents: 1250 });
    expect(stored(transaction({ amount: 99_999.99 }))).toMatchObject({ type: 'chat.payment', grossCents: 9_999_999 });
  });

  it('refuses text that is not well-formed Unicode, wherever it is, naming where', () => {
    expect(door('{"event":"messages.received","account_id":"acct_1","payload":{"id":"\\ud800","fromUser":{"id":7}}}')).toMatchObject({ ok: false, field: 'payload.id' });
    expect(door('{"event":"messages.received","account_id":"acct_1","payload":{"id":1,"text":"hi \\udc00","fromUser":{"id":7}}}')).toMatchObject({ ok: false, field: 'payload.text' });
    expect(door('{"event":"messages.received","account_id":"acct_1","payload":{"id":1,"fromUser":{"id":7},"x":{"\\ud83d":1}}}')).toMatchObject({ ok: false, field: 'payload.x.\ud83d (a key)' });
    // A whole pair is a character like any other.
    expect(door('{"event":"messages.received","account_id":"acct_1","payload":{"id":1,"text":"\\ud83d\\ude00","fromUser":{"id":7}}}').ok).toBe(true);
  });

  it('refuses message ids, account ids, event names and idempotency keys out of bounds', () => {
    expect(door(received({ id: 'x'.repeat(65) }))).toMatchObject({ ok: false, field: 'payload.id' });
    expect(door(received({}).replace('acct_1', 'acct:1'))).toMatchObject({ ok: false, field: 'account_id' });
    expect(door(received({}).replace('acct_1', 'a'.repeat(101)))).toMatchObject({ ok: false, field: 'account_id' });
    expect(door(received({}).replace('messages.received', 'messages received'))).toMatchObject({ ok: false, field: 'event' });
    expect(door(received({}), 'evt with spaces')).toMatchObject({ ok: false, field: 'x-ofapi-idempotency-key' });
    expect(door(received({}), 'k'.repeat(201))).toMatchObject({ ok: false, field: 'x-ofapi-idempotency-key' });
  });
});
