// Routing facts of a platform webhook body: which account and chat it belongs to, and the
// dedupe id. This is all the request path computes; everything else happens in the machine.
import { createHash } from 'node:crypto';
import { idString, isObject, unsafeStructure, type JsonObject } from './json.js';

/** Ephemeral events that the platform may send without an idempotency key. */
const KEYLESS_EVENTS = new Set(['users.typing', 'users.online', 'users.offline']);

/** Records about an account as a whole (no fan) are keyed by the account. */
export const ACCOUNT_CHAT = '_account';

export interface WebhookRoute {
  readonly event: string;
  readonly accountId: string;
  readonly chatId: string;
  readonly dedupeKey: string;
}

export type RouteResult =
  | { readonly ok: true; readonly route: WebhookRoute }
  | { readonly ok: false; readonly field: string; readonly reason: string };

/** The fan of the chat, per event shape. Never the notification's `user_id` (that is the creator). */
export function fanIdOf(event: string, payload: JsonObject): string | undefined {
  const from = (key: string): string | undefined => {
    const v = payload[key];
    return isObject(v) ? idString(v.id) : undefined;
  };
  switch (event) {
    case 'messages.received':
      return from('fromUser');
    case 'messages.sent':
      return from('toUser');
    case 'transactions.new':
    case 'users.online':
    case 'users.offline':
      return from('fan') ?? from('user');
    case 'users.typing':
      return idString(payload.id);
    default:
      return from('user') ?? from('fan') ?? from('fromUser') ?? from('toUser');
  }
}

export function routeWebhook(body: unknown, idempotencyKey: string | undefined, rawBody: Buffer): RouteResult {
  if (!isObject(body)) return { ok: false, field: 'body', reason: 'must be a JSON object' };
  const unsafe = unsafeStructure(body);
  if (unsafe) return { ok: false, field: 'body', reason: unsafe };
  const { event, account_id: accountId, payload } = body;
  if (typeof event !== 'string' || event.length === 0 || event.length > 100) {
    return { ok: false, field: 'event', reason: 'must be a non-empty string of at most 100 characters' };
  }
  if (typeof accountId !== 'string' || accountId.length === 0 || accountId.length > 200) {
    return { ok: false, field: 'account_id', reason: 'must be a non-empty string of at most 200 characters' };
  }
  if (!isObject(payload)) return { ok: false, field: 'payload', reason: 'must be a JSON object' };
  let dedupeKey = idempotencyKey?.trim();
  if (!dedupeKey) {
    if (!KEYLESS_EVENTS.has(event)) {
      return { ok: false, field: 'x-ofapi-idempotency-key', reason: `header is required for ${event}` };
    }
    dedupeKey = `body_${createHash('sha256').update(rawBody).digest('hex').slice(0, 40)}`;
  } else if (dedupeKey.length > 200) {
    return { ok: false, field: 'x-ofapi-idempotency-key', reason: 'must be at most 200 characters' };
  }
  const chatId = fanIdOf(event, payload) ?? ACCOUNT_CHAT;
  return { ok: true, route: { event, accountId, chatId, dedupeKey } };
}

export function chatKeyOf(accountId: string, chatId: string): string {
  return `${accountId}:${chatId}`;
}
