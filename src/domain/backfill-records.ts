// Backfilled platform objects become `inbound` records shaped like the webhooks for the same
// facts, so one normaliser reads both, and idempotency keys chosen so that a message or a
// transaction that also arrives by webhook is recognised (the machine dedupes messages and
// payments by their own id, other records by their key).
import { isId } from './bounds.js';
import { idString, isObject, type JsonObject } from './json.js';
import { inboundRecord, type InboundRecord } from './inbound-record.js';

/** A REST message of chat `chatId` as a `messages.received` or `messages.sent` body. */
export function messageRecord(accountId: string, chatId: string, m: JsonObject, receivedAt: number): InboundRecord | null {
  const id = idString(m.id);
  // The REST API is outside too: ids out of bounds are skipped like ids that are missing.
  if (!id || !isId(id) || !isId(chatId)) return null;
  const sent = m.isSentByMe === true;
  const event = sent ? 'messages.sent' : 'messages.received';
  const { fromUser: _from, isSentByMe: _mine, ...rest } = m;
  const payload = { ...rest, id: '__ID__', [sent ? 'toUser' : 'fromUser']: { id: '__FAN__' } };
  // Ids stay exact: they go back in as the digits they came as.
  const raw = JSON.stringify({ event, account_id: accountId, payload }).replace('"__ID__"', /^\d+$/.test(id) ? id : JSON.stringify(id)).replace('"__FAN__"', /^\d+$/.test(chatId) ? chatId : JSON.stringify(chatId));
  return inboundRecord({ source: 'backfill', event, accountId, chatId, dedupeKey: `backfill:msg:${accountId}:${id}`, receivedAt }, Buffer.from(raw));
}

const KIND_BY_DESCRIPTION: [RegExp, string][] = [[/\btip/i, 'tip'], [/subscri/i, 'subscription'], [/message|ppv/i, 'message'], [/post/i, 'post'], [/stream/i, 'stream']];

/** A REST transaction as a `transactions.new` body (the REST list has no type; its description says it). */
export function transactionRecord(accountId: string, t: JsonObject, receivedAt: number): InboundRecord | null {
  const id = idString(t.id);
  const fan = isObject(t.user) ? idString(t.user.id) : undefined;
  if (!id || !fan || !isId(id) || !isId(fan)) return null;
  const description = typeof t.description === 'string' ? t.description : '';
  const type = typeof t.type === 'string' ? t.type : KIND_BY_DESCRIPTION.find(([re]) => re.test(description))?.[1] ?? 'other';
  const payload = { id, amount: t.amount, net_amount: t.net, fee_amount: t.fee, createdAt: t.createdAt, type, description, currency: t.currency, fan: { id: fan } };
  return inboundRecord({ source: 'backfill', event: 'transactions.new', accountId, chatId: fan, dedupeKey: `backfill:txn:${accountId}:${id}`, receivedAt }, Buffer.from(JSON.stringify({ event: 'transactions.new', account_id: accountId, payload })));
}
