// Pure normalisation of one inbound record into the session machine's input. Never throws:
// anything it cannot use becomes a `chat.skipped` input, kept in the log and counted. The
// bounds of ./bounds.ts apply here as they do at the door (`refusalOf`), so a record the door
// would refuse today but that an older version let into the log is skipped, not stepped.
import type { ChatInput, ChatSignalInput, FanSignalKind, MessageSender, PaymentKind } from '../../machines/chat-input.js';
import { checkTime, ID_RULE, isId, MAX_AMOUNT_DOLLARS, OutOfBounds, type Refusal } from './bounds.js';
import { H, HISTORY_COMPLETE, type InboundMeta } from './inbound-record.js';
import { idString, isObject, parseCheckedJson, type JsonObject } from './json.js';
import { htmlToText } from './text-clean.js';
import { parsePlatformTime, TIME_RULE } from './time.js';
import { ppvLinkOf } from './ppv-link.js';

/** The longest message text the read models keep. */
export const MAX_TEXT_CHARS = 10_000;

/** A lifetime's spend beyond this is a wrong figure, not a whale: it is ignored. */
const MAX_LIFETIME_SPEND_DOLLARS = 100_000_000;

/** Message text arrives as HTML; read models keep plain text. Bounded work per record,
 *  whatever the text holds (see text-clean.ts). */
export function plainText(html: unknown): string {
  return typeof html === 'string' ? htmlToText(html, MAX_TEXT_CHARS) : '';
}

/** An amount as the door takes it: a JSON number, or a plain decimal string ("12.50"); never hex, binary or exponent spellings, which Number() would read. */
const DECIMAL = /^-?\d{1,15}(?:\.\d{1,15})?$/;

function dollars(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  return typeof v === 'string' && DECIMAL.test(v.trim()) ? Number(v.trim()) : undefined;
}

/** Dollars as a notification displays them ("$1,200.00"): the symbol and separators dropped, then the door's rule. */
const displayDollars = (v: unknown): number | undefined => (typeof v === 'string' ? dollars(v.replace(/[$,\s]/g, '')) : dollars(v));

/** Dollars (a number, or display text like "$12.00") to integer cents; anything else, or out of bounds, is 0. */
export function dollarsToCents(v: unknown): number {
  const n = displayDollars(v);
  return n !== undefined && n > 0 && n <= MAX_AMOUNT_DOLLARS ? cents(n) : 0;
}

const absent = (v: unknown): boolean => v === undefined || v === null || v === '';

const AMOUNT_RULE = 'an amount in dollars: a JSON number or a plain decimal string such as "12.50"';

/** An amount that counts (a payment, a price): absent is undefined, anything unreadable, out of bounds or below a cent is refused. */
function amountCents(field: string, v: unknown): number | undefined {
  if (absent(v)) return undefined;
  const n = dollars(v);
  if (n === undefined) throw new OutOfBounds(field, `must be ${AMOUNT_RULE}`);
  if (Math.abs(n) > MAX_AMOUNT_DOLLARS) throw new OutOfBounds(field, `must be at most ${MAX_AMOUNT_DOLLARS.toLocaleString('en-US')} dollars`);
  const c = cents(n);
  // The smallest unit kept is a cent: an amount that would round to nothing is refused, not lost.
  if (c === 0 && n !== 0) throw new OutOfBounds(field, 'must be 0 or at least one cent (0.01): amounts are kept in whole cents');
  return c;
}

/**
 * Dollars to integer cents, to the nearest (half away from zero, on the decimal the sender
 * wrote: 1.005 is 101, though 1.005 × 100 is 100.49999… in binary); never -0.
 */
const cents = (dollars: number): number => {
  const c = Number((Math.abs(dollars) * 100).toPrecision(15));
  return Math.sign(dollars) * Math.round(c) + 0;
};

/** An id that is present must be an id; absent is undefined (the caller decides what that means). */
function optionalId(field: string, v: unknown): string | undefined {
  if (absent(v)) return undefined;
  const id = idString(v);
  if (id === undefined || !isId(id)) throw new OutOfBounds(field, `must be an id of ${ID_RULE}`);
  return id;
}

/** The platform's lifetime-spend figure (`fanData.spending.total` or `fan.spending.total`). */
function fanSpendCents(payload: JsonObject): number | undefined {
  for (const holder of [payload.fanData, payload.fan]) {
    if (!isObject(holder)) continue;
    const spending = holder.spending;
    if (isObject(spending) && typeof spending.total === 'number' && Number.isFinite(spending.total) && spending.total >= 0 && spending.total <= MAX_LIFETIME_SPEND_DOLLARS) {
      return cents(spending.total);
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

/** The first time given among `candidates` ([field, value]), bounded; the time of receipt when none is. */
function timeOf(meta: InboundMeta, ...candidates: [string, unknown][]): number {
  for (const [field, v] of candidates) {
    if (absent(v)) continue;
    const t = parsePlatformTime(v);
    if (t === undefined) throw new OutOfBounds(field, `must be ${TIME_RULE}`);
    return checkTime(field, t, meta.receivedAt);
  }
  return meta.receivedAt;
}

function message(meta: InboundMeta, payload: JsonObject, sender: MessageSender): ChatInput {
  const messageId = optionalId('payload.id', payload.id);
  // The record's chatter (connector, demo) is held to the rule of the body's: a log written by
  // an older door may carry one it let through.
  const recorded = meta.chatterId === undefined ? undefined : optionalId('chatterId', meta.chatterId);
  const chatterId = sender === 'human' ? recorded ?? optionalId('payload.chatterId', payload.chatterId) ?? null : null;
  const price = amountCents('payload.price', payload.price) ?? 0;
  if (price < 0) throw new OutOfBounds('payload.price', 'must not be negative');
  const at = timeOf(meta, ['payload.createdAt', payload.createdAt], ['payload.sentAt', payload.sentAt]);
  if (!messageId) return skipped(meta, 'payload.id: missing message id');
  // Only what a creator's side sends is priced for a fan (a PPV) or sent from a queue.
  const queueId = sender === 'fan' ? undefined : optionalId('payload.queueId', payload.queueId);
  return withSpend({
    type: 'chat.message' as const,
    dedupeKey: meta.dedupeKey,
    messageId,
    sender,
    at,
    text: plainText(payload.text),
    priceCents: price,
    chatterId,
    ...(sender !== 'fan' && typeof payload.isFree === 'boolean' ? { isFree: payload.isFree } : {}),
    ...(queueId !== undefined ? { queueId } : {}),
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
  const paymentId = optionalId('payload.id', payload.id);
  const gross = amountCents('payload.amount', payload.amount) ?? 0;
  const net = payload.net_amount !== undefined ? amountCents('payload.net_amount', payload.net_amount) : amountCents('payload.net', payload.net);
  const at = timeOf(meta, ['payload.created_at', payload.created_at], ['payload.createdAt', payload.createdAt]);
  if (!paymentId) return skipped(meta, 'payload.id: missing transaction id');
  // Refunds and chargebacks (zero or negative) are kept in the log, not counted as payments.
  if (gross <= 0) return skipped(meta, 'payload.amount: must be a positive amount');
  if (net !== undefined && net > gross) throw new OutOfBounds(payload.net_amount !== undefined ? 'payload.net_amount' : 'payload.net', 'must not exceed payload.amount (the net is what is left of the gross)');
  const type = typeof payload.type === 'string' ? payload.type.toLowerCase() : '';
  return withSpend({
    type: 'chat.payment' as const,
    dedupeKey: meta.dedupeKey,
    paymentId,
    kind: TRANSACTION_KINDS[type] ?? 'other',
    grossCents: gross,
    netCents: net !== undefined && net > 0 ? net : gross,
    at,
  }, payload);
}

/** Tip, PPV and subscription notifications: signals only; `transactions.new` carries the money. */
function signal(meta: InboundMeta, payload: JsonObject, kind: FanSignalKind): ChatInput {
  const replace = isObject(payload.replacePairs) ? payload.replacePairs : {};
  // Notification amounts are display text (an anonymised capture even holds a sentence there):
  // unreadable or out of bounds is no amount, not a refusal.
  const amount = kind === 'tip'
    ? dollarsToCents(payload.amountGross ?? replace['{AMOUNT}'])
    : dollarsToCents(replace['{AMOUNT}'] ?? replace['{PRICE}']);
  return withSpend({
    type: 'chat.signal' as const,
    dedupeKey: meta.dedupeKey,
    signal: kind,
    refId: optionalId('payload.id', payload.id) ?? meta.dedupeKey,
    amountCents: amount > 0 ? amount : null,
    at: timeOf(meta, ['payload.createdAt', payload.createdAt], ['payload.expiredAt', payload.expiredAt], ['payload.created_at', payload.created_at]),
    ...(kind === 'ppv-unlocked' ? { ppv: unlockedMessage(meta, replace['{MESSAGE_LINK}'], payload.text) } : {}),
  }, payload);
}

/** The PPV an unlock names (ppv-link.ts); a link into another fan's chat links nothing here. */
function unlockedMessage(meta: InboundMeta, ...texts: unknown[]): NonNullable<ChatSignalInput['ppv']> {
  const link = ppvLinkOf(...texts);
  if (link === null) return { unlinked: 'no-link' };
  return link.fanId === meta.chatId ? { messageId: link.messageId } : { unlinked: 'other-chat' };
}

const SIGNALS: Record<string, FanSignalKind> = {
  'tips.received': 'tip',
  'messages.ppv.unlocked': 'ppv-unlocked',
  'subscriptions.new': 'subscribed',
  'subscriptions.renewed': 'resubscribed',
  'subscriptions.expired': 'subscription-expired',
};

/** Commands written by convops itself (admin routes), not by the platform. */
/** The command a manager's reassignment of a payment appends (src/http/routes/reassignments.ts). */
export const REASSIGN_PAYMENT = 'command.reassign-payment';

/** The command a chatter's clock-in or clock-out appends (src/http/routes/chatters.ts), to the chatter's clock chat. */
export const CLOCK_CHATTER = 'command.clock';

/** The chat a chatter's clock events go to: ids start with a letter or digit, so no fan's chat is named so. */
export const clockChatOf = (chatterId: string): string => `_clock.${chatterId}`;

/** A close command's `sessionSpan` ({from, to}, epoch ms), when it carries a sound one. */
function spanOf(v: unknown): { span?: { from: number; to: number } } {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return {};
  const { from, to } = v as Record<string, unknown>;
  return typeof from === 'number' && typeof to === 'number' && Number.isFinite(from) && Number.isFinite(to) && from <= to ? { span: { from, to } } : {};
}

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
      ...spanOf(body.sessionSpan),
    };
  }
  if (meta.event === REASSIGN_PAYMENT) {
    const at = parsePlatformTime(body.requestedAt);
    if (at === undefined) return skipped(meta, 'requestedAt: missing');
    if (typeof body.paymentId !== 'string' || body.paymentId === '') return skipped(meta, 'paymentId: missing');
    return {
      type: 'chat.reassign',
      dedupeKey: meta.dedupeKey,
      paymentId: body.paymentId,
      chatterId: typeof body.chatterId === 'string' ? body.chatterId : null,
      reason: typeof body.reason === 'string' ? body.reason : '',
      requestedBy: typeof body.requestedBy === 'string' ? body.requestedBy : 'admin',
      at,
    };
  }
  if (meta.event === CLOCK_CHATTER) {
    const at = parsePlatformTime(body.requestedAt);
    if (at === undefined) return skipped(meta, 'requestedAt: missing');
    if (body.action !== 'in' && body.action !== 'out') return skipped(meta, 'action: not in or out');
    if (typeof body.chatterId !== 'string' || meta.chatId !== clockChatOf(body.chatterId)) return skipped(meta, 'chatterId: not this clock chat\'s');
    return {
      type: 'chat.clock', dedupeKey: meta.dedupeKey, action: body.action, chatterId: body.chatterId,
      requestedBy: typeof body.requestedBy === 'string' ? body.requestedBy : 'admin', at,
      ...(typeof body.idleSince === 'string' && parsePlatformTime(body.idleSince) !== undefined ? { idleSince: parsePlatformTime(body.idleSince) as number } : {}),
    };
  }
  if (meta.event === HISTORY_COMPLETE) {
    const at = parsePlatformTime(body.through);
    if (at === undefined) return skipped(meta, 'through: missing');
    return { type: 'chat.settle', dedupeKey: meta.dedupeKey, at };
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
    // Checked as the door checks it: a log written by an older door may hold what it refuses now.
    const parsed = parseCheckedJson(raw.toString('utf8'));
    if (parsed.unsafe) return skipped(meta, `${parsed.unsafe.at || 'body'}: ${parsed.unsafe.reason}`);
    body = parsed.value;
  } catch {
    return skipped(meta, 'body: not valid JSON');
  }
  try {
    return interpret(meta, body);
  } catch (err) {
    if (err instanceof OutOfBounds) return skipped(meta, err.message);
    throw err;
  }
}

/** What the door makes of a parsed body: refused at a field, or the machine's input it becomes. */
export type Admission = { readonly ok: true; readonly input: ChatInput } | { readonly ok: false; readonly refusal: Refusal };

/**
 * What the door asks: would this parsed body be refused by the bounds, and if not, what input
 * does it become? Runs the normaliser itself, so the door and the processor can never disagree
 * about a field; the webhook route carries the input in the record (carriedInput) so the
 * processor need not parse the body again.
 */
export function admit(meta: InboundMeta, body: unknown): Admission {
  try {
    return { ok: true, input: interpret(meta, body) };
  } catch (err) {
    if (err instanceof OutOfBounds) return { ok: false, refusal: { field: err.field, reason: err.reason } };
    throw err;
  }
}

export function refusalOf(meta: InboundMeta, body: unknown): Refusal | undefined {
  const a = admit(meta, body);
  return a.ok ? undefined : a.refusal;
}

/**
 * The form of the input a record carries (H.input). Bump it with any change to what a body
 * normalises to: a record carrying another form is normalised from its raw bytes again, so a
 * re-derivation by newer code never steps an older normaliser's reading of it.
 */
export const INPUT_FORM = '4';

/**
 * Past these sizes a record carries no input (the processor parses its body): a carried input
 * holds up to 10,000 characters of text, JSON-escaped, and beside a body near BODY_LIMIT_BYTES
 * it would take the record past what a Kafka broker takes by default (1 MB).
 */
export const CARRY_LIMITS = { bodyBytes: 256 * 1024, inputChars: 16 * 1024 } as const;

/** The headers that carry a record's normalised input (for inboundRecord); none past CARRY_LIMITS. */
export function inputHeaders(input: ChatInput, bodyBytes: number): Record<string, string> | undefined {
  if (bodyBytes > CARRY_LIMITS.bodyBytes) return undefined;
  const text = JSON.stringify(input);
  return text.length > CARRY_LIMITS.inputChars ? undefined : { [H.input]: text, [H.inputForm]: INPUT_FORM };
}

/**
 * The input the door carried in the record, as normalise would make it from the raw bytes;
 * undefined when the record carries none, or one of another form (then normalise). A carried
 * input is a few hundred bytes where the body is kilobytes: parsed, not the body again.
 */
export function carriedInput(meta: InboundMeta, headers: Readonly<Record<string, string>>): ChatInput | undefined {
  const text = headers[H.input];
  // Only the webhook route carries one, made from this very meta (which names no chatter).
  if (text === undefined || headers[H.inputForm] !== INPUT_FORM || meta.source !== 'webhook' || meta.chatterId !== undefined) return undefined;
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(input) || typeof input.type !== 'string' || input.dedupeKey !== meta.dedupeKey) return undefined;
  return { ...(input as unknown as ChatInput), receivedAt: meta.receivedAt } as ChatInput;
}

/** The body as the machine's input; throws OutOfBounds for a value outside ./bounds.ts. */
function interpret(meta: InboundMeta, body: unknown): ChatInput {
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
      const messageId = optionalId('payload.id', payload.id);
      const at = timeOf(meta, ['payload.deletedAt', payload.deletedAt], ['payload.deleted_at', payload.deleted_at]);
      if (!messageId) return skipped(meta, 'payload.id: missing message id');
      return { type: 'chat.messageDeleted', dedupeKey: meta.dedupeKey, messageId, at };
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
        at: timeOf(meta, ['payload.status_changed_at', payload.status_changed_at], ['payload.observed_at', payload.observed_at]),
      };
    default: {
      const kind = SIGNALS[event];
      if (kind) return signal(meta, payload, kind);
      if (event.startsWith('accounts.')) {
        return {
          type: 'chat.account',
          dedupeKey: meta.dedupeKey,
          event,
          state: typeof payload.state === 'string' && payload.state.length <= 64 ? payload.state : null,
          at: timeOf(meta, ['payload.latestAuthAttempt.completed_at', isObject(payload.latestAuthAttempt) ? payload.latestAuthAttempt.completed_at : undefined], ['payload.disconnected_at', payload.disconnected_at]),
        };
      }
      return skipped(meta, `event ${event}: not modelled by the session machine`);
    }
  }
}
