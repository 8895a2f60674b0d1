// The demo dataset's record format, and its verification: each record is a platform webhook
// body signed with the demo secret, plus what the connector would add (the chatter).
import { routeWebhookBytes, type WebhookRoute } from '../domain/webhook-route.js';
import { ID_RULE, isId } from '../domain/bounds.js';
import { verifySignature } from '../ingest/signature.js';

export interface DemoRecord {
  /** The raw webhook body, exactly as signed. */
  readonly body: string;
  readonly signature: string;
  readonly idempotencyKey: string;
  /** Who typed a reply, as the browser connector reports it. */
  readonly chatterId?: string;
}

export type VerifiedDemo = { readonly route: WebhookRoute; readonly raw: Buffer; readonly chatterId?: string };

export type DemoCheck =
  | { readonly ok: true; readonly record: VerifiedDemo }
  | { readonly ok: false; readonly status: 400 | 401; readonly field: string; readonly reason: string };

export function verifyDemoRecord(secret: string, r: DemoRecord, field: string): DemoCheck {
  const raw = Buffer.from(r.body, 'utf8');
  if (!verifySignature(secret, raw, r.signature)) return { ok: false, status: 401, field: `${field}.signature`, reason: 'does not match the body under the demo secret' };
  // The connector's rule for a chatter id: demo records come from a file anyone can edit.
  if (r.chatterId !== undefined && !isId(r.chatterId)) return { ok: false, status: 400, field: `${field}.chatterId`, reason: `must be an id of ${ID_RULE}` };
  const routed = routeWebhookBytes(raw, r.idempotencyKey);
  if (!routed.ok) return { ok: false, status: 400, field: `${field}.${routed.field === 'x-ofapi-idempotency-key' ? 'idempotencyKey' : routed.field}`, reason: routed.reason };
  return { ok: true, record: { route: routed.route, raw, ...(r.chatterId ? { chatterId: r.chatterId } : {}) } };
}
