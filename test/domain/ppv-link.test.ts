// The PPV an unlock notification names, read from its chat link (platform README §1.3), and
// what the normaliser makes of the real PPV send and unlock samples.
import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/domain/json.js';
import { normalise } from '../../src/domain/normalise.js';
import { ppvLinkOf } from '../../src/domain/ppv-link.js';
import { routeWebhook } from '../../src/domain/webhook-route.js';
import type { InboundMeta } from '../../src/domain/inbound-record.js';
import { sample } from '../support/platform.js';
import type { ChatMessageInput, ChatSignalInput } from '../../machines/chat-input.js';
import type { SessionEvent } from '../../machines/session-events.js';
import { initialChatState, step } from '../../machines/step.js';
import { foldMessage } from '../../src/read-models/messages/projection.js';

const sampleBody = (file: string): Buffer => Buffer.from(JSON.stringify(sample(file)));

const NOW = Date.UTC(2026, 6, 1);
const LINK = "<a href='https://onlyfans.com/my/chats/chat/1000003?firstId=4211000000123'>message</a>";

describe('ppvLinkOf', () => {
  it('reads the fan and the message from the link, in quotes, escaped or bare', () => {
    expect(ppvLinkOf(LINK)).toEqual({ fanId: '1000003', messageId: '4211000000123' });
    expect(ppvLinkOf('<a href="https://onlyfans.com/my/chats/chat/77/?foo=1&amp;firstId=88">x</a>')).toEqual({ fanId: '77', messageId: '88' });
    expect(ppvLinkOf('see https://onlyfans.com/my/chats/chat/5?firstId=6 now')).toEqual({ fanId: '5', messageId: '6' });
    // The first text without a link is passed over for the next.
    expect(ppvLinkOf(undefined, '<p>no link</p>', LINK)).toEqual({ fanId: '1000003', messageId: '4211000000123' });
  });

  it('reads nothing from a link without a message id, with ids that are not numbers, or from no text', () => {
    for (const t of ['', '<p>Sample fan message text used in anonymized fixtures.</p>', 'https://onlyfans.com/my/chats/chat/5',
      'https://onlyfans.com/my/chats/chat/5?firstId=', 'https://onlyfans.com/my/chats/chat/abc?firstId=6', 'https://onlyfans.com/my/chats/chat/5?firstId=6x',
      `https://onlyfans.com/my/chats/chat/5?firstId=${'9'.repeat(21)}`, 42, null, { href: LINK }]) {
      expect(ppvLinkOf(t), String(t)).toBeNull();
    }
  });

  it('reads a link after a long run of marks without one, each character once (a rescan per mark would take minutes here)', () => {
    const hostile = `${'/my/chats/chat/'.repeat(20_000)}?firstId=1 ${LINK}`;
    expect(ppvLinkOf(hostile)).toEqual({ fanId: '1000003', messageId: '4211000000123' });
  });
});

describe('PPV facts from the real samples', () => {
  const metaFor = (file: string, body?: unknown): { meta: InboundMeta; raw: Buffer } => {
    const raw = body === undefined ? sampleBody(file) : Buffer.from(JSON.stringify(body));
    const r = routeWebhook(parseJson(raw.toString()), 'evt_' + 'c'.repeat(40), raw);
    if (!r.ok) throw new Error(`${file} did not route`);
    return { meta: { source: 'webhook', ...r.route, receivedAt: NOW }, raw };
  };

  it('a PPV send keeps its price and that it is not free; a queued send its queue', () => {
    const { meta, raw } = metaFor('messages_sent.json');
    const input = normalise(meta, raw);
    expect(input).toMatchObject({ type: 'chat.message', priceCents: 2500, isFree: false, queueId: '1000026' });
    const sample = parseJson(sampleBody('messages_sent.json').toString()) as { payload: Record<string, unknown> };
    const plain = { ...sample, payload: { ...sample.payload, isFree: true, price: 0, queueId: null, isFromQueue: false } };
    const free = normalise(metaFor('messages_sent.json', plain).meta, Buffer.from(JSON.stringify(plain)));
    expect(free).toMatchObject({ type: 'chat.message', priceCents: 0, isFree: true });
    expect(free).not.toHaveProperty('queueId');
  });

  it('an unlock names its PPV by the link into its own fan\'s chat, and says why it names none otherwise', () => {
    const sample = parseJson(sampleBody('messages_ppv_unlocked.json').toString()) as { payload: { replacePairs: Record<string, string> } };
    const { meta: anonymised, raw } = metaFor('messages_ppv_unlocked.json');
    // The anonymised capture's link is replaced by a sentence: no link.
    expect(normalise(anonymised, raw)).toMatchObject({ type: 'chat.signal', signal: 'ppv-unlocked', amountCents: 1200, ppv: { unlinked: 'no-link' } });

    const withLink = (fanId: string) => ({ ...sample, payload: { ...sample.payload, replacePairs: { ...sample.payload.replacePairs, '{MESSAGE_LINK}': LINK.replace('1000003', fanId) } } });
    const own = metaFor('x', withLink(anonymised.chatId));
    expect(normalise(own.meta, own.raw)).toMatchObject({ ppv: { messageId: '4211000000123' } });
    const other = metaFor('x', withLink('999'));
    expect(normalise(other.meta, other.raw)).toMatchObject({ ppv: { unlinked: 'other-chat' } });
  });

  it('an unlock display amount is read as dollars or not at all, never refused', () => {
    const sample = parseJson(sampleBody('messages_ppv_unlocked.json').toString()) as { payload: { replacePairs: Record<string, string> } };
    for (const [amount, cents] of [['$1,200.00', 120000], ['12', 1200], ['€12', null], ['', null], ['-5', null], ['$99999999', null]] as const) {
      const body = { ...sample, payload: { ...sample.payload, replacePairs: { ...sample.payload.replacePairs, '{AMOUNT}': amount } } };
      const { meta, raw } = metaFor('x', body);
      expect(normalise(meta, raw), amount).toMatchObject({ type: 'chat.signal', amountCents: cents });
    }
  });
});

describe('PPV facts through the chart and the messages fold', () => {
  const input = (over: Partial<ChatMessageInput>): ChatMessageInput => ({
    type: 'chat.message', dedupeKey: 'k1', messageId: '501', sender: 'human', text: 'unlock me', priceCents: 2500, chatterId: 'c1', at: NOW - 60_000, ...over,
  });
  const start = () => initialChatState({ accountId: 'acct_1', chatId: '42', idleMs: 1_800_000, lateMs: 60_000, unansweredMs: 86_400_000 });

  it('a send keeps free-or-not and its queue into its event and its message document, and says nothing the platform did not', () => {
    for (const [over, facts] of [[{ isFree: false, queueId: '77' }, { isFree: false, queueId: '77' }], [{}, {}]] as const) {
      const { events } = step(start(), input(over));
      const recorded = events.find((e) => e.type === 'MessageRecorded');
      expect(recorded?.data).toMatchObject({ messageId: '501', priceCents: 2500, ...facts });
      const doc = foldMessage(undefined, { ...(recorded as SessionEvent), source: { partition: 0, offset: 1 } } as SessionEvent);
      expect(doc).toMatchObject({ messageId: '501', priceCents: 2500, ...facts });
      if (!('isFree' in facts)) {
        expect(recorded?.data).not.toHaveProperty('isFree');
        expect(doc).not.toHaveProperty('queueId');
      }
    }
  });

  it('an unlock keeps the PPV it names, or why it names none, in its event', () => {
    for (const ppv of [{ messageId: '501' }, { unlinked: 'other-chat' }] as const) {
      const signal: ChatSignalInput = { type: 'chat.signal', dedupeKey: 'k2', signal: 'ppv-unlocked', refId: 'n1', amountCents: 2500, at: NOW - 30_000, ppv };
      const { events } = step(start(), signal);
      expect(events.find((e) => e.type === 'FanSignalRecorded')?.data).toMatchObject({ signal: 'ppv-unlocked', ppv });
    }
  });
});
