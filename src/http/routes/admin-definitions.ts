// The definitions that shape history (issue 55), read and changed by admins. GET
// /api/admin/definitions lists every version with the live one. A change is a preview: POST
// .../generations computes the whole log again under the changed values beside the live
// pipeline (src/definitions/preview.ts); its progress, the before/after diff, apply, bring a
// switched-away generation up to date (to switch back), and cancel or drop are the other routes.
import type { BusinessHoursStore } from '../../accounts/business-hours-store.js';
import { Type, type FastifyPluginAsyncTypebox, type Static } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { DefinitionsStore } from '../../definitions/definitions-store.js';
import type { GenerationDoc } from '../../definitions/generations.js';
import { DEFINITION_BOUNDS, GenerationNotFound, PreviewRefused, type DefinitionsPreviews } from '../../definitions-previews.js';
import { definitionsDiff, DiffSchema } from '../../definitions/preview-diff.js';
import type { ReadModelSet } from '../../read-models/read-model-set.js';
import { ApiError, errorResponses, invalidInput } from '../errors.js';
import { iso, timeOf as Time } from '../views.js';

export interface AdminDefinitionsOptions {
  readonly definitions: DefinitionsStore;
  readonly previews: DefinitionsPreviews;
  readonly models: ReadModelSet;
  readonly slaThresholdSec: number;
  /** The accounts' schedules now: the diff's business figures judge what is still open by them. */
  readonly businessHours: BusinessHoursStore;
}

const ValuesSchema = Type.Object({
  sessionIdleSec: Type.Integer({ description: 'SESSION_IDLE_SEC: the gap after which a session closes as idle' }),
  allowedLatenessSec: Type.Integer({ description: 'ALLOWED_LATENESS_SEC: how late a record may arrive and still be placed exactly; less than sessionIdleSec' }),
  unansweredCloseSec: Type.Integer({ description: 'UNANSWERED_CLOSE_SEC: how long an unanswered fan keeps a session open (0: until answered)' }),
  attributionLookbackSec: Type.Integer({ description: 'ATTRIBUTION_LOOKBACK_SEC: the converter model\'s lookback' }),
  businessHoursRestatedAt: Type.Optional(Type.Integer({ description: 'epoch ms: records received before it are measured by the business hours in force then (a preview asked for restateBusinessHours); absent: each by the schedule in force when it was received' })),
});

const VersionSchema = Type.Object({
  version: Type.Integer({ minimum: 1 }),
  since: Type.String({ format: 'date-time', description: 'when a processor first decided under it, or when it was proposed' }),
  recordedBy: Type.String({ description: '`environment`: a processor started with these settings; `admin:<key>` or `admin-token`: proposed through the API' }),
  generation: Type.Integer({ minimum: 0, description: 'the definitions generation it belongs to: 0 the environment\'s, later ones previews' }),
  values: ValuesSchema,
});

const num = (min: number, max: number, description: string) => Type.Optional(Type.Integer({ minimum: min, maximum: max, description }));
const [idle, late, unanswered, lookback] = [DEFINITION_BOUNDS.sessionIdleSec, DEFINITION_BOUNDS.allowedLatenessSec, DEFINITION_BOUNDS.unansweredCloseSec, DEFINITION_BOUNDS.attributionLookbackSec];
const ChangeSchema = Type.Object({
  sessionIdleSec: num(idle[0], idle[1], 'the new session gap, seconds'),
  allowedLatenessSec: num(late[0], late[1], 'the new allowed lateness, seconds; must stay below the session gap'),
  unansweredCloseSec: num(unanswered[0], unanswered[1], 'the new unanswered limit, seconds'),
  attributionLookbackSec: num(lookback[0], lookback[1], 'the new converter lookback, seconds'),
  restateBusinessHours: Type.Optional(Type.Boolean({ description: 'true: measure history by the accounts\' business hours as they are now (a schedule change reaches past sessions, their figures on clock=business and their unanswered limits); false: each record by the schedule in force when it was received (undoes a restatement); absent: as the live definitions are' })),
}, { additionalProperties: false, minProperties: 1, description: 'what changes; the rest stays as live' });

const GenerationSchema = Type.Object({
  generation: Type.Integer({ minimum: 0 }),
  status: Type.Union([Type.Literal('live'), Type.Literal('building'), Type.Literal('ready'), Type.Literal('held'), Type.Literal('dropped'), Type.Literal('failed')], {
    description: 'live: its pipeline feeds the served read models; building: a preview catching up; ready: a preview caught up, can be applied; held: switched away from, kept (bring it up to date to switch back); dropped: its data is gone',
  }),
  definitionsVersion: Type.Integer({ minimum: 0 }),
  values: ValuesSchema,
  readModelVersion: Type.Integer({ minimum: 1 }),
  basedOn: Type.Object({ generation: Type.Integer(), definitionsVersion: Type.Integer() }, { description: 'what was live when the preview started: it applies only over that' }),
  createdAt: Time(),
  createdBy: Type.String(),
  progress: Type.Union([Type.Object({
    recordsBehind: Type.Integer({ minimum: 0, description: 'inbound records its processor has still to step' }),
    eventsBehind: Type.Integer({ minimum: 0, description: 'session events its projector has still to fold' }),
    recordsDone: Type.Integer({ minimum: 0, description: 'inbound records stepped since it (re)started' }),
    eventsDone: Type.Integer({ minimum: 0 }),
    recordsPerSec: Type.Union([Type.Number(), Type.Null()]),
    startedAt: Time(),
    caughtUpAt: Time('when it first had (nearly) nothing left; null: not yet, it cannot be applied'),
    updatedAt: Time(),
  }), Type.Null()], { description: 'null until first measured (each second)' }),
  audit: Type.Array(Type.Object({ at: Time(), by: Type.String(), action: Type.String(), detail: Type.Union([Type.String(), Type.Null()]) }), { description: 'who did what, when' }),
  error: Type.Union([Type.String(), Type.Null()]),
  statusUrl: Type.String(),
  diffUrl: Type.String(),
});

function generationView(d: GenerationDoc, live: number): Static<typeof GenerationSchema> {
  const p = d.progress;
  const status = d.generation === live ? 'live' : d.state === 'shadow' ? (p?.caughtUpAt != null ? 'ready' : 'building') : d.state;
  const secs = p ? (p.updatedAt - p.startedAt) / 1000 : 0;
  return {
    generation: d.generation, status, definitionsVersion: d.definitionsVersion, values: { ...d.values }, readModelVersion: d.readModelVersion,
    basedOn: { ...d.basedOn }, createdAt: iso(d.createdAt), createdBy: d.createdBy,
    progress: p === null ? null : {
      recordsBehind: p.recordsBehind, eventsBehind: p.eventsBehind, recordsDone: p.recordsDone, eventsDone: p.eventsDone,
      recordsPerSec: secs > 0 ? Math.round(p.recordsDone / secs) : null, startedAt: iso(p.startedAt), caughtUpAt: iso(p.caughtUpAt), updatedAt: iso(p.updatedAt),
    },
    audit: d.audit.map((a) => ({ at: iso(a.at), by: a.by, action: a.action, detail: a.detail ?? null })),
    error: d.error,
    statusUrl: `/api/admin/definitions/generations/${d.generation}`,
    diffUrl: `/api/admin/definitions/generations/${d.generation}/diff`,
  };
}

const who = (request: FastifyRequest): string => (request.principal.kind === 'key' ? `admin:${request.principal.name}` : request.principal.kind);

const Params = Type.Object({ n: Type.String({ minLength: 1, maxLength: 20, description: 'the generation number' }) });

/** A generation number from the path; anything else names no generation (404, like an unknown id). */
function generationOf(n: string): number {
  if (!/^[0-9]{1,7}$/.test(n)) throw new ApiError('NOT_FOUND', `n: no definitions generation ${n}`);
  return Number(n);
}

/** The service's refusals as the API answers them: 400 for bad values, 404 unknown, 409 otherwise. */
async function answering<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof GenerationNotFound) throw new ApiError('NOT_FOUND', `n: ${err.message}`);
    if (err instanceof PreviewRefused) {
      if (err.reason === 'INVALID_DEFINITIONS') throw invalidInput(err.message.split(':')[0] ?? 'body', err.message.slice(err.message.indexOf(':') + 1).trim());
      throw new ApiError('CONFLICT', `${err.reason}: ${err.message}; nothing was changed`);
    }
    throw err;
  }
}

export const adminDefinitionsRoutes: FastifyPluginAsyncTypebox<AdminDefinitionsOptions> = async (app, opts) => {
  const { previews } = opts;
  const adminOnly = { config: { access: 'admin' as const } };
  const security = [{ adminToken: [] }];

  app.get('/api/admin/definitions', {
    ...adminOnly,
    schema: {
      summary: 'Every definitions version (session gap, lateness, unanswered limit, attribution lookback), oldest first, and the live one',
      security,
      response: {
        200: Type.Object({
          items: Type.Array(VersionSchema),
          current: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: 'the version the live pipeline decides under; null before any processor has run' }),
          generation: Type.Integer({ minimum: 0, description: 'the live definitions generation' }),
          readModelVersion: Type.Integer({ minimum: 1 }),
        }),
      },
    },
  }, async () => {
    const [docs, live] = await Promise.all([opts.definitions.all(), previews.live()]);
    const items = docs.map((d) => ({ version: d.version, since: new Date(d.since).toISOString(), recordedBy: d.recordedBy, generation: d.generation ?? 0, values: { ...d.values } }));
    return { items, current: live.definitionsVersion, generation: live.generation, readModelVersion: live.readModelVersion };
  });

  app.get('/api/admin/definitions/generations', {
    ...adminOnly,
    schema: { summary: 'Definitions generations: the live one, previews, and those kept after a switch', security, response: { 200: Type.Object({ live: Type.Integer({ minimum: 0 }), items: Type.Array(GenerationSchema) }) } },
  }, async () => {
    const { live, items } = await previews.list();
    return { live, items: items.map((d) => generationView(d, live)) };
  });

  app.post('/api/admin/definitions/generations', {
    ...adminOnly,
    schema: {
      summary: 'Preview changed definitions: the whole inbound log is computed again under them beside the live pipeline (202); apply it once caught up. 409 while another preview runs',
      security,
      body: ChangeSchema,
      response: { 202: GenerationSchema, ...errorResponses('INVALID_INPUT', 'CONFLICT') },
    },
  }, async (request, reply) => {
    const doc = await answering(() => previews.propose(request.body, who(request)));
    const { live } = await previews.list();
    return reply.status(202).send(generationView(doc, live));
  });

  app.get('/api/admin/definitions/generations/:n', {
    ...adminOnly,
    schema: { summary: 'One generation: its status, progress and audit trail', security, params: Params, response: { 200: GenerationSchema, ...errorResponses('NOT_FOUND') } },
  }, async (request) => {
    const doc = await answering(() => previews.get(generationOf(request.params.n)));
    return generationView(doc, (await previews.list()).live);
  });

  app.get('/api/admin/definitions/generations/:n/diff', {
    ...adminOnly,
    schema: {
      summary: 'Before (live) and after (this generation), overall and per account: sessions, closes by reason, first-response median and p90, % within the SLA threshold, missed, revenue; revenue per chatter',
      security, params: Params,
      querystring: Type.Object({ from: Type.Optional(Type.String({ format: 'date-time' })), to: Type.Optional(Type.String({ format: 'date-time' })) }, { additionalProperties: false }),
      response: { 200: DiffSchema, ...errorResponses('INVALID_INPUT', 'NOT_FOUND', 'CONFLICT') },
    },
  }, async (request) => {
    const doc = await answering(() => previews.get(generationOf(request.params.n)));
    if (doc.state === 'dropped' || doc.state === 'failed') throw new ApiError('CONFLICT', `n: generation ${doc.generation} is ${doc.state}; its read models are gone`);
    const from = request.query.from === undefined ? -Infinity : Date.parse(request.query.from);
    const to = request.query.to === undefined ? Infinity : Date.parse(request.query.to);
    if (from >= to) throw invalidInput('from', 'must be before to');
    const pointer = await opts.models.pointer();
    return definitionsDiff(opts.models.at(pointer.version), opts.models.at(doc.readModelVersion), { from, to }, opts.slaThresholdSec, Date.now(), { live: pointer.generation, other: doc.generation }, await opts.businessHours.clocks());
  });

  app.post('/api/admin/definitions/generations/:n/apply', {
    ...adminOnly,
    schema: {
      summary: 'Make a caught-up preview live: its read models and its pipeline replace the live ones in one switch; the generation switched away from is kept. 409 if it has not caught up or was built over another live generation',
      security, params: Params, response: { 200: GenerationSchema, ...errorResponses('NOT_FOUND', 'CONFLICT') },
    },
  }, async (request) => {
    const doc = await answering(() => previews.apply(generationOf(request.params.n), who(request)));
    return generationView(doc, (await previews.list()).live);
  });

  app.post('/api/admin/definitions/generations/:n/resume', {
    ...adminOnly,
    schema: {
      summary: 'Bring a generation kept after a switch up to date again as a preview (202), so it can be applied back: the undo of a switch',
      security, params: Params, response: { 202: GenerationSchema, ...errorResponses('NOT_FOUND', 'CONFLICT') },
    },
  }, async (request, reply) => {
    const doc = await answering(() => previews.resume(generationOf(request.params.n), who(request)));
    return reply.status(202).send(generationView(doc, (await previews.list()).live));
  });

  app.delete('/api/admin/definitions/generations/:n', {
    ...adminOnly,
    schema: {
      summary: 'Cancel a preview, or drop a generation kept after a switch: its chat states and read models go. The live one is refused (409)',
      security, params: Params, response: { 200: GenerationSchema, ...errorResponses('NOT_FOUND', 'CONFLICT') },
    },
  }, async (request) => {
    const doc = await answering(() => previews.cancel(generationOf(request.params.n), who(request)));
    return generationView(doc, (await previews.list()).live);
  });
};
