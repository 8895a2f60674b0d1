// Alert hooks: admins register URLs that hear of alert transitions (alert-hooks/), list them
// with their last delivery, read a hook's recent deliveries, enable a disabled one and delete
// them. The signing secret is in the create answer only.
import { randomBytes } from 'node:crypto';
import { Type, type FastifyPluginAsyncTypebox, type Static } from '@fastify/type-provider-typebox';
import { actorOf } from '../../access/access-model.js';
import { MAX_HOOK_ACCOUNTS, TooManyHooks, type AlertHooks } from '../../alert-hooks/alert-hooks.js';
import { MAX_HOOK_URL_LENGTH, urlProblem } from '../../alert-hooks/destination.js';
import type { DeliveryDoc, HookDoc } from '../../alert-hooks/hook-docs.js';
import { testBody } from '../../alert-hooks/payload.js';
import { sendOnce } from '../../alert-hooks/sender.js';
import { signedHeaders } from '../../alert-hooks/signing.js';
import { ACCOUNT_ID_PATTERN } from '../../domain/bounds.js';
import { ALERT_TRANSITIONS } from '../../pipeline/alert-doc.js';
import { ApiError, invalidInput } from '../errors.js';
import { iso, Nullable, timeOf as Time } from '../views.js';

export interface AlertHookRouteOptions {
  /** The hook registry, built once by the composition root. */
  readonly hooks: AlertHooks;
  readonly allowPrivate: boolean;
  readonly now?: () => number;
}

const Transition = Type.Union([Type.Literal('opened'), Type.Literal('acked'), Type.Literal('resolved')]);
const Format = Type.Union([Type.Literal('standard'), Type.Literal('slack')]);

export const DeliverySchema = Type.Object({
  id: Type.String({ description: 'the webhook-id sent with it (the same on every attempt)' }),
  event: Transition,
  alertId: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed'), Type.Literal('dropped')], { description: 'pending: first attempt or a retry is due; delivered: the receiver answered 2xx; failed: given up (retry window over, or destination refused); dropped: the hook was disabled first' }),
  attempts: Type.Integer({ minimum: 0 }),
  transitionAt: Time('when the alert changed'),
  createdAt: Time('when it was queued for this hook'),
  lastAttemptAt: Time('null: not attempted yet'),
  nextAttemptAt: Time('null: no attempt is due'),
  lastHttpStatus: Nullable(Type.Integer(), 'the receiver\'s status on the last attempt; null when none came'),
  lastError: Nullable(Type.String(), 'why the last attempt failed; null when it did not'),
  doneAt: Time('when it was delivered, given up or dropped'),
});

const HookSchema = Type.Object({
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(Transition),
  accountIds: Nullable(Type.Array(Type.String()), 'only alerts of these accounts; null: every alert'),
  format: Format,
  status: Type.Union([Type.Literal('active'), Type.Literal('disabled')]),
  disabledAt: Time('null: active'),
  disabledBecause: Nullable(Type.String()),
  createdAt: Time(),
  createdBy: Type.String(),
  lastDelivery: Nullable(DeliverySchema, 'its latest delivery; null: none yet'),
});

const CreatedHookSchema = Type.Object({
  ...HookSchema.properties,
  secret: Type.String({ description: 'whsec_ and the base64 signing key (Standard Webhooks); shown in this answer only' }),
  note: Type.String(),
});

const HookId = Type.String({ pattern: '^hook_[0-9a-f]{16}$', description: 'the hook id' });

function deliveryView(d: DeliveryDoc): Static<typeof DeliverySchema> {
  return {
    id: d.eventId, event: d.event, alertId: d.alertId, status: d.status, attempts: d.attempts,
    transitionAt: iso(d.transitionAt), createdAt: iso(d.createdAt), lastAttemptAt: iso(d.lastAttemptAt), nextAttemptAt: d.status === 'pending' ? iso(d.nextAttemptAt) : null,
    lastHttpStatus: d.lastHttpStatus, lastError: d.lastError, doneAt: iso(d.doneAt),
  };
}

function hookView(h: HookDoc, last: DeliveryDoc | undefined): Static<typeof HookSchema> {
  return {
    id: h._id, url: h.url, events: [...h.events], accountIds: h.accountIds ? [...h.accountIds] : null, format: h.format, status: h.status,
    disabledAt: iso(h.disabledAt), disabledBecause: h.disabledBecause, createdAt: iso(h.createdAt), createdBy: h.createdBy,
    lastDelivery: last ? deliveryView(last) : null,
  };
}

export const adminAlertHookRoutes: FastifyPluginAsyncTypebox<AlertHookRouteOptions> = async (app, opts) => {
  // Read at each call, not captured: a clock set for a test (or by a time-travel tool) reaches every route.
  const clock = opts.now ?? ((): number => Date.now());
  const { hooks } = opts;
  const found = async (id: string): Promise<HookDoc> => {
    const hook = await hooks.get(id);
    if (!hook) throw new ApiError('NOT_FOUND', `id: no alert hook ${id}`);
    return hook;
  };
  const viewOf = async (hook: HookDoc) => hookView(hook, (await hooks.lastDeliveries([hook._id])).get(hook._id));

  app.post('/api/admin/alert-hooks', {
    config: { access: 'admin' },
    schema: {
      summary: 'Register a URL that hears of alert transitions (opened, acked, resolved), signed the Standard Webhooks way. The secret is in this answer only',
      security: [{ adminToken: [] }],
      body: Type.Object({
        url: Type.String({ minLength: 1, maxLength: MAX_HOOK_URL_LENGTH, description: 'http(s) URL; private, loopback and link-local destinations are refused unless ALERT_HOOK_ALLOW_PRIVATE=true' }),
        events: Type.Array(Transition, { minItems: 1, maxItems: ALERT_TRANSITIONS.length, uniqueItems: true, description: 'the transitions to send' }),
        accountIds: Type.Optional(Type.Array(Type.String({ pattern: ACCOUNT_ID_PATTERN }), { minItems: 1, maxItems: MAX_HOOK_ACCOUNTS, uniqueItems: true, description: 'only alerts of these accounts (alerts tied to no account, such as the pipeline\'s, are then not sent); omitted: every alert' })),
        format: Type.Optional(Type.Union([Type.Literal('standard'), Type.Literal('slack')], { default: 'standard', description: 'standard: a JSON event {type, timestamp, data}; slack: a Slack-compatible {"text": …}' })),
      }, { additionalProperties: false }),
      response: { 201: CreatedHookSchema },
    },
  }, async (request, reply) => {
    const { url, events, accountIds, format } = request.body;
    const problem = urlProblem(url, opts.allowPrivate);
    if (problem) throw invalidInput('body.url', problem);
    let hook: HookDoc;
    try {
      hook = await hooks.create({ url, events, accountIds: accountIds ?? null, format: format ?? 'standard', createdBy: actorOf(request.principal) });
    } catch (err) {
      if (err instanceof TooManyHooks) throw new ApiError('CONFLICT', err.message);
      throw err;
    }
    return reply.status(201).send({
      ...hookView(hook, undefined), secret: hook.secret,
      note: 'store the secret now: it is not shown again. Verify each delivery\'s webhook-signature with it (see docs/api.md, "Alert hooks")',
    });
  });

  app.get('/api/admin/alert-hooks', {
    config: { access: 'admin' },
    schema: {
      summary: 'Alert hooks (never their secrets), oldest first, each with its latest delivery',
      security: [{ adminToken: [] }],
      response: { 200: Type.Object({ items: Type.Array(HookSchema), count: Type.Integer({ minimum: 0 }) }) },
    },
  }, async () => {
    const all = await hooks.list();
    const last = await hooks.lastDeliveries(all.map((h) => h._id));
    return { items: all.map((h) => hookView(h, last.get(h._id))), count: all.length };
  });

  app.get('/api/admin/alert-hooks/:id', {
    config: { access: 'admin' },
    schema: { summary: 'One alert hook (never its secret)', security: [{ adminToken: [] }], params: Type.Object({ id: HookId }), response: { 200: HookSchema } },
  }, async (request) => viewOf(await found(request.params.id)));

  app.delete('/api/admin/alert-hooks/:id', {
    config: { access: 'admin' },
    schema: {
      summary: 'Delete an alert hook and its deliveries: nothing more is sent to it (an attempt already under way finishes)',
      security: [{ adminToken: [] }],
      params: Type.Object({ id: HookId }),
      response: { 200: HookSchema },
    },
  }, async (request) => {
    const hook = await found(request.params.id);
    const view = await viewOf(hook);
    await hooks.remove(hook._id);
    await hooks.settleDisabledAlert(hook._id);
    return view;
  });

  app.post('/api/admin/alert-hooks/:id/enable', {
    config: { access: 'admin' },
    schema: {
      summary: 'Enable a hook that was disabled because its deliveries kept failing; its alert resolves. Deliveries dropped meanwhile are not sent',
      security: [{ adminToken: [] }],
      params: Type.Object({ id: HookId }),
      response: { 200: HookSchema },
    },
  }, async (request) => {
    await found(request.params.id);
    const hook = await hooks.enable(request.params.id);
    if (!hook) throw new ApiError('NOT_FOUND', `id: no alert hook ${request.params.id}`);
    await hooks.settleDisabledAlert(hook._id);
    return viewOf(hook);
  });

  app.post('/api/admin/alert-hooks/:id/test', {
    config: { access: 'admin' },
    schema: {
      summary: 'Send a signed test event (type alert.test) to the hook now, through the same guard, timeout and signing as deliveries, and answer how it went; nothing is stored or retried',
      security: [{ adminToken: [] }],
      params: Type.Object({ id: HookId }),
      response: {
        200: Type.Object({
          delivered: Type.Boolean({ description: 'the receiver answered 2xx' }),
          webhookId: Type.String(),
          httpStatus: Nullable(Type.Integer(), 'null when no answer came'),
          error: Nullable(Type.String()),
          ms: Type.Integer({ minimum: 0, description: 'how long the attempt took' }),
        }),
      },
    },
  }, async (request) => {
    const hook = await found(request.params.id);
    const started = Date.now();
    const webhookId = `msg_test_${randomBytes(12).toString('base64url')}`;
    const body = testBody(hook.format, webhookId, clock());
    const outcome = await sendOnce(hook.url, signedHeaders(hook.secret, webhookId, body, clock()), body, { allowPrivate: opts.allowPrivate });
    return { delivered: outcome.ok, webhookId, httpStatus: outcome.httpStatus, error: outcome.ok ? null : outcome.error, ms: Date.now() - started };
  });

  app.get('/api/admin/alert-hooks/:id/deliveries', {
    config: { access: 'admin' },
    schema: {
      summary: 'A hook\'s recent deliveries, newest first, with their status, attempts and last answer',
      security: [{ adminToken: [] }],
      params: Type.Object({ id: HookId }),
      querystring: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }) }, { additionalProperties: false }),
      response: { 200: Type.Object({ items: Type.Array(DeliverySchema), count: Type.Integer({ minimum: 0 }) }) },
    },
  }, async (request) => {
    await found(request.params.id);
    const items = (await hooks.recentDeliveries(request.params.id, request.query.limit)).map(deliveryView);
    return { items, count: items.length };
  });
};
