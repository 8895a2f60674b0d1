// GET /api/admin/verify: recomputes every account's totals from the documents and names each
// place the totals rows or the report buckets disagree (src/read-side/verify.ts). An operator's
// check after an incident, and what the fault suites run after every scenario.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type {} from '../../adapters/store/store.js';
import { ACCOUNT_ID_PATTERN } from '../../domain/bounds.js';
import { ReadModelSet } from '../../read-models/read-model-set.js';
import type { Generations } from '../../definitions/generations.js';
import { VERIFIED_FIGURES, verifyFigures, type PipelineFaults } from '../../read-side/verify.js';
import { errorResponses } from '../errors.js';

export interface AdminVerifyOptions {
  readonly models: ReadModelSet;
  /** The pipeline's own faults (lost chat-state writes, conflicting events), of one account or all. */
  readonly faults: (accountId?: string) => Promise<PipelineFaults>;
  readonly generations: Generations;
}

const Difference = Type.Object({
  accountId: Type.String(),
  figure: Type.String({ enum: [...VERIFIED_FIGURES] }),
  source: Type.Union([Type.Literal('totals'), Type.Literal('buckets'), Type.Literal('all-time')], { description: 'what disagrees with the documents: the totals rows, the report buckets (months) or the all-time buckets' }),
  documents: Type.Number({ description: 'the figure recomputed from the documents' }),
  found: Type.Number({ description: 'the figure the totals rows or the report buckets hold' }),
});

const Rollback = Type.Object({
  chatKey: Type.String(), partition: Type.Integer(),
  storedOffset: Type.Integer({ description: 'offset of the state the store handed back' }), storedSeq: Type.Union([Type.Integer(), Type.Null()]),
  cachedOffset: Type.Integer({ description: 'offset of the state the processor had stored, or of the last record the lost rounds had applied to the chat' }), cachedSeq: Type.Union([Type.Integer(), Type.Null()]),
  detectedAt: Type.String(), recoveredAt: Type.Union([Type.String(), Type.Null()], { description: 'when the chat was re-derived from inbound and stored again' }),
  recordsRederived: Type.Union([Type.Integer(), Type.Null()]),
  recordsMissing: Type.Integer({ description: 'records of the range re-read that the log no longer held: the state went on without them' }),
});
const Heal = Type.Object({
  version: Type.Integer({ description: 'the read-model version' }), partition: Type.Integer({ description: 'the session-events partition' }),
  from: Type.Integer({ description: 'the applied mark found: the first offset folded again' }), to: Type.Integer({ description: 'where the consumer resumed' }),
  detectedAt: Type.String(), recoveredAt: Type.Union([Type.String(), Type.Null()], { description: 'when the round that folded the gap again was written' }),
  eventsMissing: Type.Integer({ description: 'events of the gap the log no longer held: the read models went on without them' }),
});
const Conflict = Type.Object({ id: Type.String({ description: 'the set-aside id' }), eventId: Type.Union([Type.String(), Type.Null()]), chatKey: Type.Union([Type.String(), Type.Null()]), error: Type.String() });

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
        200: Type.Object({
          ok: Type.Boolean({ description: 'no difference, no session event id with two contents, no rolled-back chat state or read-model gap waiting to be re-derived or re-derived without records the log no longer held' }),
          accounts: Type.Integer(), checkedAt: Type.String({ format: 'date-time' }), differences: Type.Array(Difference),
          stateRollbacks: Type.Object({ count: Type.Integer(), unrecovered: Type.Integer(), incomplete: Type.Integer({ description: 're-derived without records the log no longer held' }), items: Type.Array(Rollback) }, { description: 'chat states the store handed back older than the processor had stored (lost writes), newest first (20 listed)' }),
          readModelHeals: Type.Object({ count: Type.Integer(), unrecovered: Type.Integer(), incomplete: Type.Integer({ description: 'folded again without events the log no longer held' }), items: Type.Array(Heal) }, { description: 'read models found behind their applied mark (the store lost projector rounds the consumer group had committed) and folded again from session-events, newest first (20 listed); all accounts' }),
          eventConflicts: Type.Object({ count: Type.Integer(), items: Type.Array(Conflict) }, { description: 'session event ids that came back with other content (set aside, not folded), newest first (20 listed)' }),
          definitions: Type.Object({
            generation: Type.Integer({ minimum: 0, description: 'the live definitions generation: its pipeline feeds the read models served (one write switches both)' }),
            readModelVersion: Type.Integer({ minimum: 1 }),
            previewing: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'a generation being previewed beside it (resumed after a restart); null: none' }),
            held: Type.Array(Type.Integer({ minimum: 0 }), { description: 'generations switched away from and kept' }),
          }, { description: 'which set is live: after a stop during a preview or a switch, either the old or the new, never a mix' }),
        }),
        ...errorResponses('INVALID_INPUT', 'UNAUTHORIZED', 'FORBIDDEN', 'RATE_LIMITED'),
      },
    },
  }, async (request) => {
    const rm = await opts.models.active();
    const report = await verifyFigures(rm, request.query.accountId ? { accountId: request.query.accountId } : {});
    const faults = await opts.faults(request.query.accountId);
    const [pointer, generations] = await Promise.all([opts.models.pointer(), opts.generations.all()]);
    const previewing = generations.find((g) => g.state === 'shadow' && g.generation !== pointer.generation)?.generation ?? null;
    const definitions = { generation: pointer.generation, readModelVersion: pointer.version, previewing, held: generations.filter((g) => g.state === 'held' && g.generation !== pointer.generation).map((g) => g.generation) };
    const ok = report.ok && faults.stateRollbacks.unrecovered === 0 && faults.stateRollbacks.incomplete === 0 && faults.eventConflicts.count === 0
      && faults.readModelHeals.unrecovered === 0 && faults.readModelHeals.incomplete === 0;
    return {
      ...report, ok, differences: [...report.differences],
      stateRollbacks: { ...faults.stateRollbacks, items: [...faults.stateRollbacks.items] },
      readModelHeals: { ...faults.readModelHeals, items: [...faults.readModelHeals.items] },
      eventConflicts: { ...faults.eventConflicts, items: [...faults.eventConflicts.items] },
      definitions,
    };
  });
};
