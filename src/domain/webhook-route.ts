// Routing facts of a platform webhook body: which account and chat it belongs to, and the
// dedupe id. This is all the request path computes; everything else happens in the machine.
import { createHash } from 'node:crypto';
import { ACCOUNT_ID_RULE, DEDUPE_KEY_RULE, EVENT_RULE, ID_RULE, isAccountId, isDedupeKey, isEventName, isId, malformedTextPath } from './bounds.js';
import { idString, isObject, parseCheckedJson, unsafeStructure, type JsonObject } from './json.js';
import type { ChatInput } from '../../machines/chat-input.js';
import { admit } from './normalise.js';

/** Ephemeral events that the platform may send without an idempotency key. */
const KEYLESS_EVENTS = new Set(['users.typing', 'users.online', 'users.offline']);

/** Records about an account as a whole (no fan) are keyed by the account. */
export const ACCOUNT_CHAT = '_account';

export interface WebhookRoute {
  readonly event: string;
  readonly accountId: string;
  readonly chatId: string;
  readonly dedupeKey: string;
  /** When it was received: the time its bounds were checked against, and its record's. */
  readonly receivedAt: number;
  /** The session machine's input it normalises to, for the record to carry (normalise.ts carriedInput). */
  readonly input: ChatInput;
}

export type RouteResult =
  | { readonly ok: true; readonly route: WebhookRoute }
  | { readonly ok: false; readonly field: string; readonly reason: string };

/** Where each event shape names the fan, in the order looked at. Never the notification's `user_id` (that is the creator). */
function fanFields(event: string): readonly (readonly [string, string | null])[] {
  switch (event) {
    case 'messages.received':
      return [['fromUser', 'id']];
    case 'messages.sent':
      return [['toUser', 'id']];
    case 'transactions.new':
    case 'users.online':
    case 'users.offline':
      return [['fan', 'id'], ['user', 'id']];
    case 'users.typing':
      return [['id', null]];
    default:
      return [['user', 'id'], ['fan', 'id'], ['fromUser', 'id'], ['toUser', 'id']];
  }
}

/** The fan of the chat and the field it came from, per event shape. */
function fanOf(event: string, payload: JsonObject): { readonly id: string; readonly field: string } | undefined {
  for (const [key, sub] of fanFields(event)) {
    const holder = payload[key];
    const v = sub === null ? holder : isObject(holder) ? holder[sub] : undefined;
    // A fan field present but not an id is refused by the door, not routed elsewhere.
    if (v !== undefined && v !== null) return { id: idString(v) ?? '', field: sub === null ? `payload.${key}` : `payload.${key}.${sub}` };
  }
  return undefined;
}

/**
 * The door: routing facts of a parsed body, or the first field outside ./bounds.ts. `text` is
 * the JSON the body was parsed from; `receivedAt` bounds how far ahead its times may be.
 */
export function routeWebhook(body: unknown, idempotencyKey: string | undefined, rawBody: Buffer, receivedAt = Date.now(), text?: string): RouteResult {
  if (!isObject(body)) return { ok: false, field: 'body', reason: 'must be a JSON object' };
  const unsafe = unsafeStructure(body);
  if (unsafe) return { ok: false, field: 'body', reason: unsafe };
  return routeChecked(body, idempotencyKey, rawBody, receivedAt, text);
}

/**
 * The door from the raw bytes: parsed once (parseCheckedJson: lossless, structure checked in
 * the same walk), then routed as routeWebhook routes a parsed body.
 */
export function routeWebhookBytes(rawBody: Buffer, idempotencyKey: string | undefined, receivedAt = Date.now()): RouteResult {
  const text = rawBody.toString('utf8');
  let parsed: ReturnType<typeof parseCheckedJson>;
  try {
    parsed = parseCheckedJson(text);
  } catch {
    return { ok: false, field: 'body', reason: 'is not valid JSON' };
  }
  if (!isObject(parsed.value)) return { ok: false, field: 'body', reason: 'must be a JSON object' };
  if (parsed.unsafe) return { ok: false, field: parsed.unsafe.at || 'body', reason: parsed.unsafe.reason };
  return routeChecked(parsed.value, idempotencyKey, rawBody, receivedAt, text);
}

/** routeWebhook past the structure check. */
function routeChecked(body: JsonObject, idempotencyKey: string | undefined, rawBody: Buffer, receivedAt: number, text: string | undefined): RouteResult {
  const malformed = malformedTextPath(body, text ?? rawBody.toString('utf8'));
  if (malformed) return { ok: false, field: malformed, reason: 'must be well-formed Unicode (it holds a lone surrogate)' };
  const { event, account_id: accountId, payload } = body;
  if (typeof event !== 'string' || !isEventName(event)) {
    return { ok: false, field: 'event', reason: `must be a string of ${EVENT_RULE}` };
  }
  if (typeof accountId !== 'string' || !isAccountId(accountId)) {
    return { ok: false, field: 'account_id', reason: `must be a string of ${ACCOUNT_ID_RULE}` };
  }
  if (!isObject(payload)) return { ok: false, field: 'payload', reason: 'must be a JSON object' };
  let dedupeKey = idempotencyKey?.trim();
  if (!dedupeKey) {
    if (!KEYLESS_EVENTS.has(event)) {
      return { ok: false, field: 'x-ofapi-idempotency-key', reason: `header is required for ${event}` };
    }
    dedupeKey = `body_${createHash('sha256').update(rawBody).digest('hex').slice(0, 40)}`;
  } else if (!isDedupeKey(dedupeKey)) {
    return { ok: false, field: 'x-ofapi-idempotency-key', reason: `must be ${DEDUPE_KEY_RULE}` };
  }
  const fan = fanOf(event, payload);
  if (fan && !isId(fan.id)) return { ok: false, field: fan.field, reason: `must be an id of ${ID_RULE}` };
  const chatId = fan?.id ?? ACCOUNT_CHAT;
  const admitted = admit({ source: 'webhook', event, accountId, chatId, dedupeKey, receivedAt }, body);
  if (!admitted.ok) return { ok: false, ...admitted.refusal };
  return { ok: true, route: { event, accountId, chatId, dedupeKey, receivedAt, input: admitted.input } };
}
