import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/domain/json.js';
import { normalise } from '../../src/domain/normalise.js';
import { parsePlatformTime } from '../../src/domain/time.js';
import { routeWebhook, routeWebhookBytes } from '../../src/domain/webhook-route.js';
import type { InboundMeta } from '../../src/domain/inbound-record.js';
import { MemoryLedger } from '../support/memory-ledger.js';
import type { SessionSummary } from '../../machines/session-events.js';
import { initialChatState, step, type ChatState } from '../../machines/step.js';

// The samples were captured in June 2026; times more than a day past receipt are refused.
const NOW = Date.UTC(2026, 6, 1);

const samplesDir = join(import.meta.dirname, '../../../shared/platform/samples');

/** The wire body of a sample: the file minus its capture notes. */
export function sampleBody(file: string): Buffer {
  const { _meta, ...body } = JSON.parse(readFileSync(join(samplesDir, file), 'utf8')) as Record<string, unknown>;
  return Buffer.from(JSON.stringify(body));
}

const expectedFan: Record<string, string> = {
  'messages_received.json': '1000005',
  'messages_sent.json': '1000003',
};

describe('routing real platform bodies', () => {
  const files = readdirSync(samplesDir).filter((f) => f.endsWith('.json'));

  it.each(files)('%s routes to an account and a chat, never the creator user_id', (file) => {
    const raw = sampleBody(file);
    const body = parseJson(raw.toString()) as { payload: { user_id?: string } };
    const r = routeWebhook(body, 'evt_' + 'a'.repeat(40), raw);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.route.accountId).toMatch(/^acct_/);
    // Only live captures: the documentation examples reuse one placeholder id for both.
    if (body.payload.user_id && !file.startsWith('unverified_')) expect(r.route.chatId).not.toBe(body.payload.user_id);
    if (expectedFan[file]) expect(r.route.chatId).toBe(expectedFan[file]);
  });

  it('requires the idempotency key except for users.* events', () => {
    const raw = sampleBody('messages_received.json');
    const r = routeWebhook(parseJson(raw.toString()), undefined, raw);
    expect(r).toEqual({ ok: false, field: 'x-ofapi-idempotency-key', reason: 'header is required for messages.received' });
    const typing = sampleBody('users_typing.json');
    const t = routeWebhook(parseJson(typing.toString()), undefined, typing);
    expect(t.ok && t.route.dedupeKey).toMatch(/^body_[0-9a-f]{40}$/);
    expect(t.ok && t.route.chatId).toBe('1000034');
  });

  it('names the field that is wrong', () => {
    const raw = Buffer.from('{}');
    expect(routeWebhook([], 'k', raw)).toMatchObject({ ok: false, field: 'body' });
    expect(routeWebhook({ event: 'messages.received' }, 'k', raw)).toMatchObject({ ok: false, field: 'account_id' });
    expect(routeWebhook({ event: 'x', account_id: 'acct_1', payload: 3 }, 'k', raw)).toMatchObject({ ok: false, field: 'payload' });
  });

  it('refuses prototype-polluting keys and absurd nesting, wherever they sit, but not the words inside text', () => {
    const wrap = (payload: string): Buffer => Buffer.from(`{"event":"messages.received","account_id":"acct_1","payload":${payload}}`);
    // The door as the route runs it: from the bytes, parsed and checked in one walk.
    const route = (raw: Buffer) => routeWebhookBytes(raw, 'k');
    expect(route(wrap('{"fromUser":{"id":1,"__proto__":{"admin":true}}}'))).toMatchObject({ ok: false, field: 'body', reason: expect.stringMatching(/__proto__/) });
    expect(route(wrap('{"id":12345678901234567890,"__proto__":{}}'))).toMatchObject({ ok: false, field: 'body' });
    expect(route(wrap('{"a":{"constructor":{"prototype":{"x":1}}}}'))).toMatchObject({ ok: false, reason: expect.stringMatching(/constructor/) });
    const deep = 5000;
    expect(route(wrap(`{"a":${'['.repeat(deep)}${']'.repeat(deep)}}`))).toMatchObject({ ok: false, field: 'body', reason: expect.stringMatching(/nested deeper/) });
    // A fan may type anything; only keys count.
    const text = route(wrap('{"fromUser":{"id":7},"text":"\\"__proto__\\": {} and constructor.prototype","constructor":"fine"}'));
    expect(text.ok).toBe(true);
    expect(routeWebhook({ event: 'x', account_id: 'a', payload: { a: Object.fromEntries([['constructor', { prototype: 1 }]]) } }, 'k', Buffer.from('{}')).ok).toBe(false);
  });

  it('keeps ids beyond 2^53 exact', () => {
    const raw = Buffer.from('{"event":"messages.received","account_id":"acct_1","payload":{"id":123456789012345678901,"fromUser":{"id":98765432109876543210}}}');
    const r = routeWebhook(parseJson(raw.toString()), 'evt_1', raw);
    expect(r.ok && r.route.chatId).toBe('98765432109876543210');
    const fromBytes = routeWebhookBytes(raw, 'evt_1');
    expect(fromBytes.ok && fromBytes.route.chatId).toBe('98765432109876543210');
    expect(fromBytes.ok && fromBytes.route.input).toMatchObject({ messageId: '123456789012345678901' });
    const meta: InboundMeta = { source: 'webhook', event: 'messages.received', accountId: 'acct_1', chatId: '98765432109876543210', dedupeKey: 'evt_1', receivedAt: NOW };
    expect(normalise(meta, raw)).toMatchObject({ type: 'chat.message', messageId: '123456789012345678901' });
  });
});

describe('normalising messages', () => {
  const meta = (event: string): InboundMeta => ({ source: 'webhook', event, accountId: 'acct_1', chatId: '1', dedupeKey: 'evt_x', receivedAt: NOW });

  it('reads a received message as a fan message at its createdAt, text without HTML', () => {
    expect(normalise(meta('messages.received'), sampleBody('messages_received.json'))).toEqual({
      type: 'chat.message', dedupeKey: 'evt_x', messageId: '1000006', sender: 'fan', at: Date.parse('2026-06-10T18:35:30Z'),
      text: 'Sample fan message text used in anonymized fixtures.', priceCents: 0, chatterId: null, fanSpendCents: 0, receivedAt: NOW,
    });
  });

  it('reads a sent PPV message as a human reply priced in cents; queued sends are automated', () => {
    const sent = normalise({ ...meta('messages.sent'), chatterId: 'bob' }, sampleBody('messages_sent.json'));
    expect(sent).toMatchObject({ type: 'chat.message', messageId: '1000027', sender: 'human', priceCents: 2500, chatterId: 'bob' });
    const body = JSON.parse(sampleBody('messages_sent.json').toString());
    body.payload.isFromQueue = true;
    expect(normalise(meta('messages.sent'), Buffer.from(JSON.stringify(body)))).toMatchObject({ sender: 'automated', chatterId: null });
  });

  it('skips malformed bodies and unmodelled kinds without throwing', () => {
    expect(normalise(meta('messages.received'), Buffer.from('{not json'))).toMatchObject({ type: 'chat.skipped', reason: 'body: not valid JSON' });
    expect(normalise(meta('messages.received'), Buffer.from('{"payload":{}}'))).toMatchObject({ type: 'chat.skipped', reason: 'payload.id: missing message id' });
    expect(normalise(meta('posts.liked'), Buffer.from('{"payload":{}}'))).toMatchObject({ type: 'chat.skipped' });
  });

  it('parses every timestamp format the platform uses', () => {
    const want = Date.parse('2026-06-10T20:59:47Z');
    expect(parsePlatformTime('2026-06-10 20:59:47')).toBe(want);
    expect(parsePlatformTime('2026-06-10T20:59:47+00:00')).toBe(want);
    expect(parsePlatformTime('2026-06-10T20:59:47.000000Z')).toBe(want);
    expect(parsePlatformTime(want / 1000)).toBe(want);
    expect(parsePlatformTime('yesterday')).toBeUndefined();
    // Days the calendar does not have are refused, not rolled over into the next month.
    for (const impossible of ['2026-02-30T00:00:00Z', '2026-02-29T10:00:00Z', '2026-04-31 10:00:00', '2026-06-31T12:00:00+02:00', '2026-00-10T00:00:00Z', '2026-06-00T00:00:00Z']) {
      expect(parsePlatformTime(impossible)).toBeUndefined();
    }
    expect(parsePlatformTime('2028-02-29T10:00:00Z')).toBe(Date.UTC(2028, 1, 29, 10));
    expect(parsePlatformTime('2026-04-30 23:59:59')).toBe(Date.UTC(2026, 3, 30, 23, 59, 59));
  });
});

describe('normalising every platform event kind', () => {
  const metaFor = (file: string): { meta: InboundMeta; raw: Buffer } => {
    const raw = sampleBody(file);
    const body = parseJson(raw.toString()) as { event: string };
    const r = routeWebhook(body, 'evt_' + 'b'.repeat(40), raw);
    if (!r.ok) throw new Error(`${file} did not route`);
    return { meta: { source: 'webhook', ...r.route, receivedAt: NOW }, raw };
  };

  it('transactions.new is a payment in integer cents for the fan, with the platform lifetime spend', () => {
    const { meta, raw } = metaFor('transactions_new.json');
    expect(meta.chatId).toBe('1000003');
    expect(normalise(meta, raw)).toEqual({
      type: 'chat.payment', dedupeKey: meta.dedupeKey, paymentId: 'e940b5fb905ba0815d5842a7bde1118c', kind: 'ppv',
      grossCents: 1700, netCents: 1360, at: Date.parse('2026-06-10T20:59:47Z'), fanSpendCents: 2880, receivedAt: NOW,
    });
  });

  it('tip and PPV notifications are signals with an informational amount, never payments', () => {
    const tip = metaFor('tips_received.json');
    expect(normalise(tip.meta, tip.raw)).toMatchObject({ type: 'chat.signal', signal: 'tip', refId: '115273984711', amountCents: 800, fanSpendCents: 63600 });
    const ppv = metaFor('messages_ppv_unlocked.json');
    expect(normalise(ppv.meta, ppv.raw)).toMatchObject({ type: 'chat.signal', signal: 'ppv-unlocked', amountCents: 1200, at: Date.parse('2026-06-10T20:49:00Z') });
    expect(ppv.meta.chatId).toBe('1000003');
  });

  it('subscriptions are signals; an unreadable price is no amount', () => {
    const sub = metaFor('subscriptions_new.json');
    expect(normalise(sub.meta, sub.raw)).toMatchObject({ type: 'chat.signal', signal: 'subscribed', amountCents: null });
    const renewed = metaFor('unverified_subscriptions_renewed.json');
    expect(normalise(renewed.meta, renewed.raw)).toMatchObject({ type: 'chat.signal', signal: 'resubscribed' });
    const expired = normalise({ ...sub.meta, event: 'subscriptions.expired' }, Buffer.from('{"payload":{"id":"9","expiredAt":"2026-06-11T00:00:00+00:00","user":{"id":5}}}'));
    expect(expired).toMatchObject({ type: 'chat.signal', signal: 'subscription-expired', at: Date.parse('2026-06-11T00:00:00Z') });
  });

  it('messages.deleted names only the message; it goes to the account stream', () => {
    const del = metaFor('messages_deleted.json');
    expect(del.meta.chatId).toBe('_account');
    expect(normalise(del.meta, del.raw)).toMatchObject({ type: 'chat.messageDeleted', messageId: '1000001' });
  });

  it('users.* are presence with the platform time', () => {
    const online = metaFor('users_online.json');
    expect(normalise(online.meta, online.raw)).toEqual({ type: 'chat.presence', dedupeKey: online.meta.dedupeKey, presence: 'online', at: Date.parse('2026-06-10T20:01:06Z'), receivedAt: NOW });
    const typing = metaFor('users_typing.json');
    expect(normalise(typing.meta, typing.raw)).toMatchObject({ type: 'chat.presence', presence: 'typing', at: NOW });
  });

  it('accounts.* become account status changes', () => {
    const meta: InboundMeta = { source: 'webhook', event: 'accounts.session_expired', accountId: 'acct_1', chatId: '_account', dedupeKey: 'evt_acc', receivedAt: NOW };
    const raw = Buffer.from('{"payload":{"state":"expired","progress":"started","latestAuthAttempt":{"completed_at":"2026-06-10T10:00:00+00:00"}}}');
    expect(normalise(meta, raw)).toEqual({ type: 'chat.account', dedupeKey: 'evt_acc', event: 'accounts.session_expired', state: 'expired', at: Date.parse('2026-06-10T10:00:00Z'), receivedAt: NOW });
  });

  it('a transaction without an amount, and an unknown kind, are skipped with the reason', () => {
    const meta: InboundMeta = { source: 'webhook', event: 'transactions.new', accountId: 'acct_1', chatId: '5', dedupeKey: 'k', receivedAt: NOW };
    expect(normalise(meta, Buffer.from('{"payload":{"id":"t1","amount":"lots"}}'))).toMatchObject({ type: 'chat.skipped', reason: expect.stringMatching(/^payload\.amount: must be an amount in dollars: a JSON number or a plain decimal string/) });
    expect(normalise(meta, Buffer.from('{"payload":{"id":"t1","amount":-5}}'))).toMatchObject({ type: 'chat.skipped', reason: 'payload.amount: must be a positive amount' });
    expect(normalise({ ...meta, event: 'chat_queue.updated' }, Buffer.from('{"payload":{}}'))).toMatchObject({ type: 'chat.skipped' });
  });

  it('routes every live sample to the fan named in it', () => {
    expect(metaFor('tips_received.json').meta.chatId).toBe('310112051');
    expect(metaFor('users_online.json').meta.chatId).toBe('1000033');
    expect(metaFor('subscriptions_new.json').meta.chatId).toBe('1000032');
  });
});

// A scheduled or mass send (the connector's `automated: true`, the platform's `isFromQueue`) is
// recorded but never answers the fan: no first response, no end to the wait, no credit for the
// payment after it (docs/connector.md). Each record is normalised from its bytes, as the
// processor does, and stepped through the session machine after the fan's message.
describe('automated sends never answer the fan', () => {
  const account = 'acct_02000000000000000000000000000000';
  const fanAt = Date.parse('2026-06-10T18:35:30Z');
  const sentAt = fanAt + 270_000;
  const fanMeta: InboundMeta = { source: 'webhook', event: 'messages.received', accountId: account, chatId: '1000005', dedupeKey: 'evt_fan', receivedAt: NOW };
  /** The record POST /api/connector/ingest writes for one message (src/http/routes/connector.ts). */
  const connector = (automated: boolean): { meta: InboundMeta; raw: Buffer } => ({
    meta: { source: 'connector', event: 'connector.message', accountId: account, chatId: '1000005', chatterId: 'ann', dedupeKey: `connector:${account}:1000040`, receivedAt: NOW },
    raw: Buffer.from(JSON.stringify({ event: 'connector.message', account_id: account, payload: { id: '1000040', text: 'new set out now', createdAt: new Date(sentAt).toISOString(), chatterId: 'ann', automated } })),
  });
  /** The platform's messages.sent sample, sent to the fan at `sentAt`, queued or not. */
  const sent = (isFromQueue: boolean): { meta: InboundMeta; raw: Buffer } => {
    const body = JSON.parse(sampleBody('messages_sent.json').toString());
    body.payload.isFromQueue = isFromQueue;
    body.payload.toUser.id = 1000005;
    body.payload.createdAt = new Date(sentAt).toISOString();
    return { meta: { source: 'webhook', event: 'messages.sent', accountId: account, chatId: '1000005', dedupeKey: 'evt_sent', receivedAt: NOW }, raw: Buffer.from(JSON.stringify(body)) };
  };
  const tip = { type: 'chat.payment', dedupeKey: 'evt_tip', at: sentAt + 60_000, paymentId: 't1', kind: 'tip', grossCents: 1000, netCents: 800 } as const;

  /** The fan writes, the record follows, then a tip: the session as it stands, and who the tip is credited to. */
  function after(record: { meta: InboundMeta; raw: Buffer }): { state: ChatState; session: SessionSummary | null; tipChatter: string | null | undefined } {
    const ledger = new MemoryLedger();
    let state = initialChatState({ accountId: account, chatId: '1000005', idleMs: 30 * 60_000, lateMs: 300_000, unansweredMs: 86_400_000 });
    let tipChatter: string | null | undefined;
    for (const input of [normalise(fanMeta, sampleBody('messages_received.json')), normalise(record.meta, record.raw), tip]) {
      const admitted = ledger.dedupe(input);
      if (!admitted) continue;
      const r = step(state, admitted);
      state = r.state;
      for (const e of r.events) if (e.type === 'PaymentRecorded') tipChatter = e.data.chatterId;
    }
    return { state, session: state.context.session?.summary ?? null, tipChatter };
  }

  it('a connector message marked automated leaves the fan waiting, with no first response and no credit', () => {
    expect(normalise(connector(true).meta, connector(true).raw)).toMatchObject({ type: 'chat.message', sender: 'automated', chatterId: null });
    const { state, session, tipChatter } = after(connector(true));
    expect(session).toMatchObject({ awaiting: true, waitingSince: fanAt, firstResponseAt: null, firstResponseSec: null, firstResponderId: null, replyCount: 0, lastHumanChatterId: null, messageCount: 2 });
    expect(state.value).toEqual({ session: 'awaiting' });
    expect(tipChatter).toBeNull();
    // The same message not marked automated is the chatter's reply: the flag is what tells them apart.
    const human = after(connector(false));
    expect(human.session).toMatchObject({ awaiting: false, waitingSince: null, firstResponseSec: 270, firstResponderId: 'ann', replyCount: 1 });
    expect(human.tipChatter).toBe('ann');
  });

  it('a queued send from the platform leaves the fan waiting, with no first response', () => {
    const { state, session } = after(sent(true));
    expect(session).toMatchObject({ awaiting: true, waitingSince: fanAt, firstResponseSec: null, replyCount: 0, messageCount: 2 });
    expect(state.value).toEqual({ session: 'awaiting' });
    expect(after(sent(false)).session).toMatchObject({ awaiting: false, firstResponseSec: 270, replyCount: 1 });
  });
});
