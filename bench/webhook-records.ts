// Inbound records as the webhook route writes them (routed by the door, carrying the input it
// normalised the body to), for benchmarks that fill `inbound` directly: without the carried
// input they would measure the processor parsing every body again, which live webhooks skip.
import type { InboundRecord } from '../src/domain/inbound-record.js';
import { inboundRecord } from '../src/domain/inbound-record.js';
import { inputHeaders } from '../src/domain/normalise.js';
import { routeWebhookBytes } from '../src/domain/webhook-route.js';

export function webhookRecord(body: string, idempotencyKey: string, receivedAt = Date.now()): InboundRecord {
  const raw = Buffer.from(body);
  const routed = routeWebhookBytes(raw, idempotencyKey, receivedAt);
  if (!routed.ok) throw new Error(`the door refuses a benchmark body: ${routed.field} ${routed.reason}`);
  const { input, ...meta } = routed.route;
  return inboundRecord({ source: 'webhook', ...meta }, raw, inputHeaders(input, raw.length));
}
