// POST /api/admin/replay starts a rebuild of the read models; GET shows its progress.
import { Type, type FastifyPluginAsyncTypebox, type Static } from '@fastify/type-provider-typebox';
import type { PipelineControl } from '../../pipeline-control.js';
import { ReplayConflict, type ReplayFrom, type ReplayJobDoc } from '../../projector/replay.js';
import { ApiError, invalidInput } from '../errors.js';
import { iso, timeOf as Time } from '../views.js';

export interface AdminReplayOptions {
  readonly pipeline: PipelineControl;
}

export const ReplayJobViewSchema = Type.Object({
  id: Type.String(),
  state: Type.Union([Type.Literal('building'), Type.Literal('switching'), Type.Literal('done'), Type.Literal('failed')]),
  from: Type.Union([
    Type.Object({ kind: Type.Literal('beginning') }),
    Type.Object({ kind: Type.Literal('offset'), offset: Type.Integer({ minimum: 0, description: 'every partition starts at this offset' }) }),
    Type.Object({ kind: Type.Literal('time'), time: Time('starts at the first event appended at or after this time') }),
  ], { description: 'where in session-events the rebuild starts' }),
  fromVersion: Type.Integer({ description: 'the read-model version active when it started' }),
  targetVersion: Type.Integer({ description: 'the version it builds, active once it is done' }),
  eventsApplied: Type.Integer({ minimum: 0 }),
  lag: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'events left to reach the end of the log (null: not known yet)' }),
  startedAt: Time(),
  updatedAt: Time('the runner\'s last heartbeat'),
  finishedAt: Time('null while it runs'),
  error: Type.Union([Type.String(), Type.Null()], { description: 'why it failed' }),
  statusUrl: Type.String({ description: 'where to follow it' }),
});

const ReplayJobListSchema = Type.Object({ items: Type.Array(ReplayJobViewSchema), count: Type.Integer({ minimum: 0 }) });

function jobView(j: ReplayJobDoc): Static<typeof ReplayJobViewSchema> {
  return {
    id: j._id,
    state: j.state,
    from: j.from.kind === 'time' ? { kind: 'time', time: iso(j.from.time) } : { ...j.from },
    fromVersion: j.fromVersion,
    targetVersion: j.targetVersion,
    eventsApplied: j.eventsApplied,
    lag: j.lag,
    startedAt: iso(j.startedAt),
    updatedAt: iso(j.heartbeatAt),
    finishedAt: iso(j.finishedAt),
    error: j.error,
    statusUrl: `/api/admin/replay/${encodeURIComponent(j._id)}`,
  };
}

export const adminReplayRoutes: FastifyPluginAsyncTypebox<AdminReplayOptions> = async (app, opts) => {
  const service = () => {
    const replay = opts.pipeline.replay;
    if (!replay) throw new ApiError('CONFLICT', 'replay: send it to a process that runs the projector role (ROLES)');
    return replay;
  };

  app.post('/api/admin/replay', {
    config: { access: 'admin' },
    schema: {
      summary: 'Rebuild the read models from session-events into a new version, then switch (202 with a job id; 409 while one runs)',
      security: [{ adminToken: [] }],
      body: Type.Optional(Type.Object({
        fromOffset: Type.Optional(Type.Integer({ minimum: 0, description: 'start every partition at this offset (default: the beginning)' })),
        fromTime: Type.Optional(Type.String({ format: 'date-time', description: 'start at the first event appended at or after this time' })),
      }, { additionalProperties: false })),
      response: { 202: ReplayJobViewSchema },
    },
  }, async (request, reply) => {
    const body = request.body ?? {};
    if (body.fromOffset !== undefined && body.fromTime !== undefined) throw invalidInput('fromTime', 'give fromOffset or fromTime, not both');
    const from: ReplayFrom = body.fromOffset !== undefined ? { kind: 'offset', offset: body.fromOffset }
      : body.fromTime !== undefined ? { kind: 'time', time: Date.parse(body.fromTime) }
      : { kind: 'beginning' };
    try {
      const job = await service().start(from);
      return reply.status(202).send(jobView(job));
    } catch (err) {
      if (err instanceof ReplayConflict) throw new ApiError('CONFLICT', `${err.message}; wait for it to finish (GET /api/admin/replay)`);
      throw err;
    }
  });

  app.get('/api/admin/replay', {
    config: { access: 'admin' },
    schema: {
      summary: 'Recent replay jobs, newest first',
      security: [{ adminToken: [] }],
      querystring: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'jobs to return (default 20, max 100)' }) }, { additionalProperties: false }),
      response: { 200: ReplayJobListSchema },
    },
  }, async (request) => {
    const jobs = await service().list(request.query.limit);
    return { items: jobs.map(jobView), count: jobs.length };
  });

  app.get('/api/admin/replay/:id', {
    config: { access: 'admin' },
    schema: {
      summary: 'Progress of one replay: state, events applied, lag',
      security: [{ adminToken: [] }],
      params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) }),
      response: { 200: ReplayJobViewSchema },
    },
  }, async (request) => {
    const job = await service().get(request.params.id);
    if (!job) throw new ApiError('NOT_FOUND', `id: no replay ${request.params.id}`);
    return jobView(job);
  });
};
