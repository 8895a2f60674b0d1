import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/domain/json.js';
import { normalise } from '../../src/domain/normalise.js';
import { parsePlatformTime } from '../../src/domain/time.js';
import { routeWebhook } from '../../src/domain/webhook-route.js';
import type { InboundMeta } from '../../src/domain/inbound-record.js';

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

  it('keeps ids beyond 2^53 exact', () => {
    const raw = Buffer.from('{"event":"messages.received","account_id":"acct_1","payload":{"id":123456789012345678901,"fromUser":{"id":98765432109876543210}}}');
    const r = routeWebhook(parseJson(raw.toString()), 'evt_1', raw);
    expect(r.ok && r.route.chatId).toBe('98765432109876543210');
    const meta: InboundMeta = { source: 'webhook', event: 'messages.received', accountId: 'acct_1', chatId: '98765432109876543210', dedupeKey: 'evt_1', receivedAt: 1 };
    expect(normalise(meta, raw)).toMatchObject({ type: 'chat.message', messageId: '123456789012345678901' });
  });
});

describe('normalising messages', () => {
  const meta = (event: string): InboundMeta => ({ source: 'webhook', event, accountId: 'acct_1', chatId: '1', dedupeKey: 'evt_x', receivedAt: 5 });

  it('reads a received message as a fan message at its createdAt, text without HTML', () => {
    expect(normalise(meta('messages.received'), sampleBody('messages_received.json'))).toEqual({
      type: 'chat.message', dedupeKey: 'evt_x', messageId: '1000006', sender: 'fan', at: Date.parse('2026-06-10T18:35:30Z'),
      text: 'Sample fan message text used in anonymized fixtures.', priceCents: 0, chatterId: null,
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
  });
});
