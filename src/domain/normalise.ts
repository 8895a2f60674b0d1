// Pure normalisation of one inbound record into the session machine's input. Never throws:
// anything it cannot use becomes a `chat.skipped` input, kept in the log and counted.
import type { ChatInput, MessageSender } from '../../machines/chat-input.js';
import type { InboundMeta } from './inbound-record.js';
import { idString, isObject, parseJson, type JsonObject } from './json.js';
import { parsePlatformTime } from './time.js';

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&nbsp;': ' ' };

/** Message text arrives as HTML; read models keep plain text. */
export function plainText(html: unknown): string {
  if (typeof html !== 'string') return '';
  return html
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (m) => ENTITIES[m] ?? m)
    .trim()
    .slice(0, 10_000);
}

export function dollarsToCents(v: unknown): number {
  const n = typeof v === 'string' ? Number(v.replace(/[$,\s]/g, '')) : v;
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.round(n * 100) : 0;
}

function skipped(meta: InboundMeta, reason: string): ChatInput {
  return { type: 'chat.skipped', dedupeKey: meta.dedupeKey, event: meta.event, reason, at: meta.receivedAt };
}

function normaliseMessage(meta: InboundMeta, payload: JsonObject, inbound: boolean): ChatInput {
  const messageId = idString(payload.id);
  if (!messageId) return skipped(meta, 'payload.id: missing message id');
  const at = parsePlatformTime(payload.createdAt) ?? meta.receivedAt;
  let sender: MessageSender = 'fan';
  if (!inbound) sender = payload.isFromQueue === true ? 'automated' : 'human';
  return {
    type: 'chat.message',
    dedupeKey: meta.dedupeKey,
    messageId,
    sender,
    at,
    text: plainText(payload.text),
    priceCents: dollarsToCents(payload.price),
    chatterId: sender === 'human' ? meta.chatterId ?? null : null,
  };
}

export function normalise(meta: InboundMeta, raw: Buffer): ChatInput {
  let body: unknown;
  try {
    body = parseJson(raw.toString('utf8'));
  } catch {
    return skipped(meta, 'body: not valid JSON');
  }
  if (!isObject(body) || !isObject(body.payload)) return skipped(meta, 'payload: must be an object');
  switch (meta.event) {
    case 'messages.received':
      return normaliseMessage(meta, body.payload, true);
    case 'messages.sent':
      return normaliseMessage(meta, body.payload, false);
    default:
      return skipped(meta, `event ${meta.event}: not modelled by the session machine`);
  }
}
