// The alert hook deliveries in the OpenAPI document: convops is the client there, so they are
// described under 3.1's `webhooks`, not `paths`. Receivers can generate their types from it
// (openapi-typescript writes them into examples/convops-api.d.ts), and the suite holds every
// delivered body to these schemas.
import { Type } from '@fastify/type-provider-typebox';
import { Nullable } from './views.js';

export const AlertEventSchema = Type.Object({
  type: Type.Union([Type.Literal('alert.opened'), Type.Literal('alert.acked'), Type.Literal('alert.resolved')]),
  timestamp: Type.String({ format: 'date-time', description: 'when the alert changed' }),
  data: Type.Object({
    id: Type.String({ description: 'the alert id' }),
    ruleId: Type.String(),
    severity: Type.Union([Type.Literal('info'), Type.Literal('warning'), Type.Literal('critical')]),
    reason: Type.String(),
    recommendation: Type.String(),
    labels: Type.Array(Type.String()),
    accountId: Nullable(Type.String(), 'null: tied to no account (the pipeline, a disabled hook, a chatter)'),
    sessionId: Nullable(Type.String()),
    chatId: Nullable(Type.String()),
    chatterId: Nullable(Type.String()),
    ackedBy: Nullable(Type.String(), 'who acknowledged it, once acknowledged'),
    event: Type.Union([Type.Literal('opened'), Type.Literal('acked'), Type.Literal('resolved')]),
    eventId: Type.String({ description: 'the webhook-id header: the same on every retry' }),
  }, { additionalProperties: false }),
}, { additionalProperties: false, description: 'format standard: a Standard Webhooks event' });

export const TestEventSchema = Type.Object({
  type: Type.Literal('alert.test'),
  timestamp: Type.String({ format: 'date-time' }),
  data: Type.Object({ eventId: Type.String() }, { additionalProperties: false }),
}, { additionalProperties: false, description: 'POST /api/admin/alert-hooks/:id/test, format standard' });

export const SlackBodySchema = Type.Object({ text: Type.String({ maxLength: 3000 }) }, { additionalProperties: false, description: 'format slack: a Slack-compatible message' });

const header = (name: string, description: string) => ({ name, in: 'header', required: true, description, schema: { type: 'string' } });

/** The `webhooks` object of the document. */
export function alertHookWebhooks(): Record<string, unknown> {
  return {
    alertTransition: {
      post: {
        operationId: 'alertHookDelivery',
        // Sent by convops, not called on it: it carries a signature (the headers), not a credential.
        security: [],
        tags: ['alert-hooks'],
        summary: 'What convops POSTs to an alert hook for each alert transition it asked for, retried with the same webhook-id until it answers 2xx',
        description: 'Verify webhook-signature before trusting the body: v1, and the base64 HMAC-SHA256 of `webhook-id.webhook-timestamp.body` under the base64-decoded part of the hook secret after `whsec_` (any Standard Webhooks library does it). Dedupe on webhook-id. Deliveries may arrive out of order: order by `timestamp`.',
        parameters: [
          header('webhook-id', 'one per transition (the same for every hook), the same on every retry'),
          header('webhook-timestamp', 'seconds since the epoch of this attempt'),
          header('webhook-signature', 'v1,<base64 HMAC-SHA256>'),
        ],
        requestBody: { required: true, content: { 'application/json': { schema: { anyOf: [AlertEventSchema, TestEventSchema, SlackBodySchema] } } } },
        responses: {
          200: { description: 'taken (any 2xx is)' },
          400: { description: 'not taken: any answer other than 2xx (a 3xx too: redirects are not followed) is retried with backoff, for at least an hour' },
        },
      },
    },
  };
}

/** `doc` with `webhooks` set (in place: the document object keeps its own type). */
export function withWebhooks<T extends object>(doc: T, webhooks: Record<string, unknown>): T {
  return Object.assign(doc, { webhooks });
}
