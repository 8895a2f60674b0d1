// Demo data: signed fixture ingest (no platform key), seeding the shipped fixtures, and
// purging demo accounts or the whole pipeline.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { demoRefusal } from '../../demo/demo-policy.js';
import { verifyDemoRecord, type DemoRecord, type VerifiedDemo } from '../../demo/demo-records.js';
import { DemoAccountSchema, loadDemoAccounts, loadDemoRecords } from '../../demo/fixtures.js';
import { historyCompleteRecords, inboundRecord } from '../../domain/inbound-record.js';
import { ID_PATTERN, ID_RULE } from '../../domain/bounds.js';
import type { BatchingAppender } from '../../ingest/batching-appender.js';
import { DrainTimeoutError, PipelineBusyError, type PipelineControl } from '../../pipeline-control.js';
import { ApiError } from '../errors.js';
import { recentShift, shiftBody } from '../../demo/timeline.js';
import { signBody } from '../../ingest/signature.js';
import type { AccountRegistry } from '../../accounts/registry.js';

export const DEMO_INGEST_MAX_RECORDS = 500;

export interface DemoRouteOptions {
  readonly accounts: AccountRegistry;
  /** Removes everything of these accounts, fenced (src/demo/purge-accounts.ts); counts per collection. */
  readonly purgeAccounts: (accountIds: readonly string[]) => Promise<Record<string, number>>;
  readonly inbound: BatchingAppender;
  readonly demoSecret: string;
  /** NODE_ENV ('development' when unset). */
  readonly environment: string;
  readonly pipeline: PipelineControl;
}

const DemoRecordSchema = Type.Object({
  body: Type.String({ minLength: 2, maxLength: 1_000_000, description: 'the raw platform webhook body, exactly as signed' }),
  signature: Type.String({ minLength: 1, maxLength: 200, description: 'hex HMAC-SHA256 of body with the demo secret' }),
  idempotencyKey: Type.String({ minLength: 1, maxLength: 200 }),
  chatterId: Type.Optional(Type.String({ pattern: ID_PATTERN, description: `who sent an outbound message, as the connector reports it: ${ID_RULE}` })),
}, { additionalProperties: false });

/** Where demo data may be written with the secret everyone can read in the source. */

/** How many records went into the log. */
const AcceptedSchema = Type.Object({ accepted: Type.Integer({ minimum: 1, description: 'records appended to the inbound log' }) });
const SeededSchema = Type.Object({
  status: Type.Literal('seeded'),
  records: Type.Integer({ minimum: 0, description: 'fixture records appended' }),
  accounts: Type.Array(DemoAccountSchema, { description: 'the demo accounts, registered with their names' }),
  timeline: Type.Union([Type.Literal('recent'), Type.Literal('original')]),
  shiftedBySec: Type.Number({ description: 'how far every time was moved (0 for original)' }),
});
const PurgedSchema = Type.Union([
  Type.Object({
    status: Type.Literal('purged'),
    accounts: Type.Array(Type.String(), { description: 'the demo accounts removed' }),
    removed: Type.Record(Type.String(), Type.Integer({ minimum: 0 }), { description: 'documents removed, per collection (a read model by its name, summed over its stored versions)' }),
  }),
  Type.Object({
    status: Type.Literal('reset'),
    droppedCollections: Type.Array(Type.String(), { description: 'the collections dropped: every stored read-model version, and the processing state (chat states and their ledger, set-aside records, alerts, analyses, event digests...)' }),
    skippedTo: Type.Record(Type.String(), Type.Record(Type.String(), Type.Integer({ minimum: 0 })), { description: 'per topic (inbound, session events) and partition, the offset its consumer group now starts from: the end of the log at the reset' }),
  }),
]);

export const demoRoutes: FastifyPluginAsyncTypebox<DemoRouteOptions> = async (app, opts) => {
  /** Demo data is for trying convops out: never in production, and never signed with a public secret outside development. */
  const assertDemoAllowed = (what: string): void => {
    const refusal = demoRefusal(opts.environment, opts.demoSecret, what);
    if (refusal) throw new ApiError('FORBIDDEN', `${refusal.field}: ${refusal.reason}`);
  };

  /** Verifies every record first: a batch is stored whole or not at all. */
  const verifyAll = (records: readonly DemoRecord[]): VerifiedDemo[] => records.map((r, i) => {
    const check = verifyDemoRecord(opts.demoSecret, r, `records.${i}`);
    if (!check.ok) throw new ApiError(check.status === 401 ? 'UNAUTHORIZED' : 'INVALID_INPUT', `${check.field}: ${check.reason}`);
    return check.record;
  });

  const append = async (request: FastifyRequest, verified: readonly VerifiedDemo[]): Promise<void> => {
    const receivedAt = Date.now();
    try {
      await Promise.all(verified.map((v) => opts.inbound.append(inboundRecord({ source: 'demo', ...v.route, receivedAt, ...(v.chatterId ? { chatterId: v.chatterId } : {}) }, v.raw))));
    } catch (err) {
      request.log.error({ err }, 'demo append failed');
      throw new ApiError('NOT_READY', 'the inbound log is unavailable; retry later');
    }
  };

  app.post('/api/demo/ingest', {
    config: { access: 'admin' },
    schema: {
      summary: `Signed fixture ingest (up to ${DEMO_INGEST_MAX_RECORDS} records a call, within the body limit): an admin credential and records signed with DEMO_SECRET; refused in production`,
      security: [{ adminToken: [] }],
      body: Type.Object({ records: Type.Array(DemoRecordSchema, { minItems: 1, maxItems: DEMO_INGEST_MAX_RECORDS }) }, { additionalProperties: false }),
      response: { 200: AcceptedSchema },
    },
  }, async (request) => {
    assertDemoAllowed('demo ingest');
    const verified = verifyAll(request.body.records);
    await append(request, verified);
    return { accepted: verified.length };
  });

  app.post('/api/admin/seed-demo', {
    config: { access: 'admin' },
    schema: {
      summary: 'Load the shipped demo fixtures through the pipeline and register the demo accounts with their names (development only). By default the timeline is moved so its last records are minutes old',
      security: [{ adminToken: [] }],
      body: Type.Optional(Type.Object({
        timeline: Type.Optional(Type.Union([Type.Literal('recent'), Type.Literal('original')], {
          default: 'recent',
          description: 'recent (default): every time moves by one offset so the latest record is 3 minutes old; original: the times as shipped',
        })),
      }, { additionalProperties: false })),
      response: { 200: SeededSchema },
    },
  }, async (request) => {
    assertDemoAllowed('demo seeding');
    const shipped = loadDemoRecords();
    // The shipped file is checked as shipped; the moved copies are signed again, so they go
    // through the very check a connector's records go through.
    verifyAll(shipped);
    const timeline = request.body?.timeline ?? 'recent';
    const shiftMs = timeline === 'recent' ? recentShift(shipped.map((r) => r.body), Date.now()) : 0;
    const records = shiftMs === 0 ? shipped : shipped.map((r) => {
      const body = shiftBody(r.body, shiftMs);
      return { ...r, body, signature: signBody(opts.demoSecret, body) };
    });
    const verified = verifyAll(records);
    const accounts = loadDemoAccounts();
    for (const a of accounts) await opts.accounts.upsert(a.id, { displayName: a.displayName, source: 'demo' });
    const receivedAt = Date.now();
    try {
      await opts.inbound.appendBulk(verified.map((v) => inboundRecord({ source: 'demo', ...v.route, receivedAt, ...(v.chatterId ? { chatterId: v.chatterId } : {}) }, v.raw)));
      // After the history, in each chat's partition: what is already past closes at once.
      await opts.inbound.appendBulk(historyCompleteRecords(verified.map((v) => v.route), receivedAt));
    } catch (err) {
      request.log.error({ err }, 'demo seed append failed');
      // Part may have landed: seeding again is safe, the records are deduplicated by their keys.
      throw new ApiError('NOT_READY', 'the inbound log is unavailable; retry later (seeding again is safe)');
    }
    return { status: 'seeded' as const, records: verified.length, accounts, timeline, shiftedBySec: shiftMs / 1000 };
  });

  app.post('/api/admin/purge-demo', {
    config: { access: 'admin' },
    schema: {
      summary: 'Remove everything of the demo accounts (documents, totals, report buckets, chat states, dedupe ledger, set-aside records, alerts, analyses, registry entries); with full=true, reset the whole pipeline (consumers skip the existing log, read models are dropped). Either is sent to a process that runs both the processor and the projector (409 otherwise, or while a replay, purge or reset runs). A purge first lets the consumers apply what the log already holds, then keeps them stopped while the data goes (503, removing nothing, if they cannot catch up within a minute)',
      security: [{ adminToken: [] }],
      body: Type.Optional(Type.Object({ full: Type.Optional(Type.Boolean({ default: false })) }, { additionalProperties: false })),
      response: { 200: PurgedSchema },
    },
  }, async (request) => {
    if (request.body?.full) {
      if (!opts.pipeline.runsProcessing) {
        throw new ApiError('CONFLICT', 'full: a full reset must be sent to a process that runs both the processor and the projector (ROLES)');
      }
      const reset = await fencedOrRefused(() => opts.pipeline.resetAll());
      return { status: 'reset' as const, droppedCollections: [...reset.droppedCollections], skippedTo: reset.skippedTo };
    }
    const accountIds = loadDemoAccounts().map((a) => a.id);
    // With the consumers drained and stopped: no round is half way through a demo chat, so none
    // writes a document, a total or a chat state back after it is deleted, and nothing of them
    // already in the log comes back afterwards (the multi-process caveat is in fenced()).
    const removed = await fencedOrRefused(() => opts.purgeAccounts(accountIds));
    return { status: 'purged' as const, accounts: accountIds, removed };
  });
};

/** A fenced piece of work, its refusals in the error catalogue's words. */
async function fencedOrRefused<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof PipelineBusyError) throw new ApiError('CONFLICT', err.message);
    if (err instanceof DrainTimeoutError) throw new ApiError('NOT_READY', `${err.message}; retry later`);
    throw err;
  }
}
