// Pure normalisation of one inbound record into the session machine's input. Never throws:
// anything it cannot use becomes a `chat.skipped` input, kept in the log and counted.
import type { ChatInput, FanSignalKind, MessageSender, PaymentKind } from '../../machines/chat-input.js';
import type { InboundMeta } from './inbound-record.js';
import { idString, isObject, parseJson, type JsonObject } from './json.js';
import { htmlToText } from './text-clean.js';
import { parsePlatformTime } from './time.js';

/** The longest message text the read models keep. */
export const MAX_TEXT_CHARS = 10_000;

/** Message text arrives as HTML; read models keep plain text. Bounded work per record,
 *  whatever the text holds (see text-clean.ts). */
export function plainText(html: unknown): string {
  return typeof html === 'string' ? htmlToText(html, MAX_TEXT_CHARS) : '';
}

/** Dollars (a number, or a string like "$12.00") to integer cents; anything else is 0. */
export function dollarsToCents(v: unknown): number {
  const n = typeof v === 'string' ? Number(v.replace(/[$,\s]/g, '')) : v;
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.round(n * 100) : 0;
}

/** The platform's lifetime-spend figure (`fanData.spending.total` or `fan.spending.total`). */
function fanSpendCents(payload: JsonObject): number | undefined {
  for (const holder of [payload.fanData, payload.fan]) {
    if (!isObject(holder)) continue;
    const spending = holder.spending;
    if (isObject(spending) && typeof spending.total === 'number' && Number.isFinite(spending.total) && spending.total >= 0) {
      return Math.round(spending.total * 100);
    }
  }
  return undefined;
}

function withSpend<T extends object>(input: T, payload: JsonObject): T {
  const spend = fanSpendCents(payload);
  return spend === undefined ? input : { ...input, fanSpendCents: spend };
}

function skipped(meta: InboundMeta, reason: string): ChatInput {
  return { type: 'chat.skipped', dedupeKey: meta.dedupeKey, event: meta.event, reason, at: meta.receivedAt };
}

function timeOf(meta: InboundMeta, ...candidates: unknown[]): number {
  for (const c of candidates) {
    const t = parsePlatformTime(c);
    if (t !== undefined) return t;
  }
  return meta.receivedAt;
}

function message(meta: InboundMeta, payload: JsonObject, sender: MessageSender): ChatInput {
  const messageId = idString(payload.id);
  if (!messageId) return skipped(meta, 'payload.id: missing message id');
  return withSpend({
    type: 'chat.message' as const,
    dedupeKey: meta.dedupeKey,
    messageId,
    sender,
    at: timeOf(meta, payload.createdAt, payload.sentAt),
    text: plainText(payload.text),
    priceCents: dollarsToCents(payload.price),
    chatterId: sender === 'human' ? meta.chatterId ?? idString(payload.chatterId) ?? null : null,
  }, payload);
}

const TRANSACTION_KINDS: Record<string, PaymentKind> = {
  tip: 'tip', tips: 'tip',
  message: 'ppv', messages: 'ppv', chat_message: 'ppv', ppv: 'ppv',
  subscription: 'subscription', subscribe: 'subscription', subscribes: 'subscription', recurring_subscription: 'subscription',
  post: 'post', posts: 'post',
  stream: 'stream', streams: 'stream',
};

function transaction(meta: InboundMeta, payload: JsonObject): ChatInput {
  const paymentId = idString(payload.id);
  if (!paymentId) return skipped(meta, 'payload.id: missing transaction id');
  const grossCents = dollarsToCents(payload.amount);
  if (grossCents <= 0) return skipped(meta, 'payload.amount: must be a positive amount');
  const netCents = dollarsToCents(payload.net_amount ?? payload.net) || grossCents;
  const type = typeof payload.type === 'string' ? payload.type.toLowerCase() : '';
  return withSpend({
    type: 'chat.payment' as const,
    dedupeKey: meta.dedupeKey,
    paymentId,
    kind: TRANSACTION_KINDS[type] ?? 'other',
    grossCents,
    netCents,
    at: timeOf(meta, payload.created_at, payload.createdAt),
  }, payload);
}

/** Tip, PPV and subscription notifications: signals only; `transactions.new` carries the money. */
function signal(meta: InboundMeta, payload: JsonObject, kind: FanSignalKind): ChatInput {
  const replace = isObject(payload.replacePairs) ? payload.replacePairs : {};
  const amount = kind === 'tip'
    ? dollarsToCents(payload.amountGross ?? replace['{AMOUNT}'])
    : dollarsToCents(replace['{AMOUNT}'] ?? replace['{PRICE}']);
  return withSpend({
    type: 'chat.signal' as const,
    dedupeKey: meta.dedupeKey,
    signal: kind,
    refId: idString(payload.id) ?? meta.dedupeKey,
    amountCents: amount > 0 ? amount : null,
    at: timeOf(meta, payload.createdAt, payload.expiredAt, payload.created_at),
  }, payload);
}

const SIGNALS: Record<string, FanSignalKind> = {
  'tips.received': 'tip',
  'messages.ppv.unlocked': 'ppv-unlocked',
  'subscriptions.new': 'subscribed',
  'subscriptions.renewed': 'resubscribed',
  'subscriptions.expired': 'subscription-expired',
};

/** Commands written by convops itself (admin routes), not by the platform. */
function command(meta: InboundMeta, body: JsonObject): ChatInput {
  if (meta.event === 'command.close-session') {
    const at = parsePlatformTime(body.requestedAt);
    if (at === undefined) return skipped(meta, 'requestedAt: missing');
    return {
      type: 'chat.close',
      dedupeKey: meta.dedupeKey,
      sessionId: typeof body.sessionId === 'string' ? body.sessionId : null,
      requestedBy: typeof body.requestedBy === 'string' ? body.requestedBy : 'admin',
      at,
    };
  }
  return skipped(meta, `command ${meta.event}: unknown`);
}

export function normalise(meta: InboundMeta, raw: Buffer): ChatInput {
  const input = normaliseBody(meta, raw);
  return input.type === 'chat.tick' ? input : { ...input, receivedAt: meta.receivedAt };
}

function normaliseBody(meta: InboundMeta, raw: Buffer): ChatInput {
  if (meta.source === 'tick') return { type: 'chat.tick', dedupeKey: meta.dedupeKey, at: meta.receivedAt };
  let body: unknown;
  try {
    body = parseJson(raw.toString('utf8'));
  } catch {
    return skipped(meta, 'body: not valid JSON');
  }
  if (!isObject(body)) return skipped(meta, 'body: must be an object');
  if (meta.source === 'command') return command(meta, body);
  const payload = body.payload;
  if (!isObject(payload)) return skipped(meta, 'payload: must be an object');
  const event = meta.event;
  switch (event) {
    case 'messages.received':
      return message(meta, payload, 'fan');
    case 'messages.sent':
      return message(meta, payload, payload.isFromQueue === true ? 'automated' : 'human');
    case 'connector.message':
      return message(meta, payload, payload.isFromQueue === true || payload.automated === true ? 'automated' : 'human');
    case 'messages.deleted': {
      const messageId = idString(payload.id);
      if (!messageId) return skipped(meta, 'payload.id: missing message id');
      return { type: 'chat.messageDeleted', dedupeKey: meta.dedupeKey, messageId, at: timeOf(meta, payload.deletedAt, payload.deleted_at) };
    }
    case 'transactions.new':
      return transaction(meta, payload);
    case 'users.typing':
    case 'users.online':
    case 'users.offline':
      return {
        type: 'chat.presence',
        dedupeKey: meta.dedupeKey,
        presence: event === 'users.typing' ? 'typing' : event === 'users.online' ? 'online' : 'offline',
        at: timeOf(meta, payload.status_changed_at, payload.observed_at),
      };
    default: {
      const kind = SIGNALS[event];
      if (kind) return signal(meta, payload, kind);
      if (event.startsWith('accounts.')) {
        return {
          type: 'chat.account',
          dedupeKey: meta.dedupeKey,
          event,
          state: typeof payload.state === 'string' ? payload.state : null,
          at: timeOf(meta, isObject(payload.latestAuthAttempt) ? payload.latestAuthAttempt.completed_at : undefined, payload.disconnected_at),
        };
      }
      return skipped(meta, `event ${event}: not modelled by the session machine`);
    }
  }
}
