// GET /api/admin/definitions: the definitions versions the processor has decided under (issue
// 55), oldest first, with when each took over: what a report's `window.definitions` names.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { inForce, type DefinitionsStore } from '../../definitions/definitions-store.js';

export interface AdminDefinitionsOptions {
  readonly definitions: DefinitionsStore;
}

const VersionSchema = Type.Object({
  version: Type.Integer({ minimum: 1 }),
  since: Type.String({ format: 'date-time', description: 'when a processor first decided under it' }),
  until: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'when the next version took over; null: in force now' }),
  recordedBy: Type.String({ description: '`environment`: a processor started with these settings' }),
  values: Type.Object({
    sessionIdleSec: Type.Integer({ description: 'SESSION_IDLE_SEC' }),
    allowedLatenessSec: Type.Integer({ description: 'ALLOWED_LATENESS_SEC' }),
    unansweredCloseSec: Type.Integer({ description: 'UNANSWERED_CLOSE_SEC' }),
    attributionLookbackSec: Type.Integer({ description: 'ATTRIBUTION_LOOKBACK_SEC' }),
  }),
});

export const adminDefinitionsRoutes: FastifyPluginAsyncTypebox<AdminDefinitionsOptions> = async (app, opts) => {
  app.get('/api/admin/definitions', {
    config: { access: 'admin' },
    schema: {
      summary: 'The definitions versions the processor has decided under (session gap, lateness, unanswered limit, attribution lookback), oldest first; the last is in force',
      security: [{ adminToken: [] }],
      response: { 200: Type.Object({ items: Type.Array(VersionSchema), current: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: 'the version in force; null before any processor has run' }) }) },
    },
  }, async () => {
    const versions = inForce(await opts.definitions.all(), Infinity);
    const items = versions.map((v) => ({ ...v, since: new Date(v.since).toISOString(), until: v.until === null ? null : new Date(v.until).toISOString() }));
    return { items, current: versions.at(-1)?.version ?? null };
  });
};
