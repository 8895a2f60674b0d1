// GET /api/admin/verify: recomputes every account's totals from the documents and names each
// place the totals rows or the report buckets disagree (src/queries/verify.ts). An operator's
// check after an incident, and what the fault suites run after every scenario.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { DocumentStore } from '../../adapters/store/store.js';
import { ACCOUNT_ID_PATTERN } from '../../domain/bounds.js';
import { ReadModelSet } from '../../projector/read-model-set.js';
import { VERIFIED_FIGURES, verifyFigures } from '../../queries/verify.js';
import { errorResponses } from '../errors.js';

export interface AdminVerifyOptions {
  readonly store: DocumentStore;
}

const Difference = Type.Object({
  accountId: Type.String(),
  figure: Type.String({ enum: [...VERIFIED_FIGURES] }),
  source: Type.Union([Type.Literal('totals'), Type.Literal('buckets')], { description: 'what disagrees with the documents' }),
  documents: Type.Number({ description: 'the figure recomputed from the documents' }),
  found: Type.Number({ description: 'the figure the totals rows or the report buckets hold' }),
});

export const adminVerifyRoutes: FastifyPluginAsyncTypebox<AdminVerifyOptions> = async (app, opts) => {
  app.get('/api/admin/verify', {
    config: { access: 'admin' },
    schema: {
      summary: "Recompute every account's totals from the read-model documents and name each figure the totals or the report buckets hold differently (reads every document: minutes on millions)",
      security: [{ adminToken: [] }],
      querystring: Type.Object({
        accountId: Type.Optional(Type.String({ pattern: ACCOUNT_ID_PATTERN, description: 'one account (default: all)' })),
      }, { additionalProperties: false }),
      response: {
        200: Type.Object({ ok: Type.Boolean(), accounts: Type.Integer(), checkedAt: Type.String({ format: 'date-time' }), differences: Type.Array(Difference) }),
        ...errorResponses('INVALID_INPUT', 'UNAUTHORIZED', 'FORBIDDEN', 'RATE_LIMITED'),
      },
    },
  }, async (request) => {
    const rm = await new ReadModelSet(opts.store).active();
    const report = await verifyFigures(rm, request.query.accountId ? { accountId: request.query.accountId } : {});
    return { ...report, differences: [...report.differences] };
  });
};
