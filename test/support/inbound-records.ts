// Generated facts as the `inbound` records the doors write: platform webhook bodies through the
// webhook route's routing, connector records for replies that name their chatter, admin close
// commands as POST /api/admin/close-session writes them. Tests that run the real processing
// (the round, the processor) feed it these, so normalising is part of what they check.
import type { AppendRecord } from '../../src/adapters/log/log.js';
import { messageWebhook, transactionWebhook } from '../../src/demo/platform-bodies.js';
import { inboundRecord } from '../../src/domain/inbound-record.js';
import { inputHeaders } from '../../src/domain/normalise.js';
import { routeWebhook } from '../../src/domain/webhook-route.js';
import type { Fact } from './reference-model.js';

const iso = (ms: number): string => new Date(ms).toISOString();

/** A platform webhook body as the webhook route appends it, delivered under `idempotencyKey`. */
export function webhookRecord(body: string, idempotencyKey: string, receivedAt: number): AppendRecord {
  const raw = Buffer.from(body);
  const routed = routeWebhook(JSON.parse(body) as unknown, idempotencyKey, raw, receivedAt, body);
  if (!routed.ok) throw new Error(`the webhook route refuses a generated body: ${routed.field} ${routed.reason}`);
  // As the webhook route writes it: with the input the door normalised it to.
  const { input, ...meta } = routed.route;
  return inboundRecord({ source: 'webhook', ...meta }, raw, inputHeaders(input, raw.length));
}

/** A reply naming its chatter, as the browser connector's route appends it (src/http/routes/connector.ts). */
export function connectorRecord(m: { account: string; chat: string; id: string; at: number; chatter: string; text: string }, receivedAt: number): AppendRecord {
  const body = { event: 'connector.message', account_id: m.account, payload: { id: m.id, text: m.text, createdAt: iso(m.at), chatterId: m.chatter, automated: false } };
  return inboundRecord({
    source: 'connector', event: 'connector.message', accountId: m.account, chatId: m.chat, chatterId: m.chatter,
    dedupeKey: `connector:${m.account}:${m.id}`, receivedAt,
  }, Buffer.from(JSON.stringify(body)));
}

/**
 * The record of one fact delivered under `key`, received at `receivedAt`. A close names
 * `closeSession` (null: whatever session is open); it is received when requested.
 */
export function factRecord(f: Fact, key: string, receivedAt: number, closeSession: string | null = null): AppendRecord {
  switch (f.kind) {
    case 'message': {
      const base = { accountId: f.account, fanId: f.chat, messageId: f.id, createdAt: iso(f.at), text: `m${f.id}` };
      if (f.sender === 'fan') {
        return webhookRecord(messageWebhook({ ...base, direction: 'received', ...(f.spend !== undefined ? { fanSpendDollars: f.spend / 100 } : {}) }), key, receivedAt);
      }
      if (f.sender === 'automated') return webhookRecord(messageWebhook({ ...base, direction: 'sent', fromQueue: true }), key, receivedAt);
      if (f.chatter === null) return webhookRecord(messageWebhook({ ...base, direction: 'sent' }), key, receivedAt);
      return connectorRecord({ account: f.account, chat: f.chat, id: f.id, at: f.at, chatter: f.chatter, text: `m${f.id}` }, receivedAt);
    }
    case 'payment':
      return webhookRecord(transactionWebhook({ accountId: f.account, fanId: f.chat, transactionId: f.id, createdAt: iso(f.at), type: f.ppv === true ? 'message' : 'tip', amountDollars: f.cents / 100 }), key, receivedAt);
    case 'close': {
      const requestedAt = iso(f.at);
      return inboundRecord({
        source: 'command', event: 'command.close-session', accountId: f.account, chatId: f.chat,
        dedupeKey: `close:${closeSession ?? key}:${requestedAt}`, receivedAt: f.at,
      }, Buffer.from(JSON.stringify({ ...(closeSession !== null ? { sessionId: closeSession } : {}), requestedAt, requestedBy: 'admin' })));
    }
  }
}
