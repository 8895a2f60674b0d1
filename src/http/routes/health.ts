// GET /api/health: per-component health and readiness. Never includes a secret value.
import type { FastifyPluginAsync } from 'fastify';
import { Type, type Static } from '@fastify/type-provider-typebox';
import type { Log } from '../../adapters/log/log.js';
import type { DocumentStore } from '../../adapters/store/store.js';
import type { Topology } from '../../topology.js';
import type { PlatformReadiness } from '../../adapters/platform/readiness.js';
import type { ModelStatus } from '../../intelligence/model-provider.js';
import type { SetAsideRecords } from '../../pipeline/set-aside-records.js';
import type { ProcessorStatus } from '../../processor/session-processor.js';
import type { ProjectorStatus } from '../../projector/projector.js';
import { withTimeout } from '../../support/deadline.js';
import { Count } from '../views.js';
import { GroupProgressWatch, type StageProblem } from '../../pipeline/stage-health.js';

export interface HealthOptions {
  readonly log: Log;
  /** Whether the store answers, and which it is: health reads nothing else of it. */
  readonly store: Pick<DocumentStore, 'kind' | 'ping'>;
  readonly setAside: Pick<SetAsideRecords, 'count'>;
  readonly topology: Topology;
  /** The live definitions generation's topics and groups (src/definitions/generations.ts); `topology` when absent. */
  readonly liveTopology?: () => Promise<Topology>;
  readonly roles: ReadonlySet<string>;
  readonly webhookSecretConfigured: boolean;
  readonly adminTokenConfigured: boolean;
  readonly readAuth: 'open' | 'required';
  readonly counters: () => { readonly processor: ProcessorStatus | null; readonly projector: ProjectorStatus | null };
  /** Stages of this process whose rounds keep failing, or whose consumers were dropped from their group or stalled. */
  readonly problems: () => readonly StageProblem[];
  readonly platform: PlatformReadiness;
  readonly intelligence: { readonly enabled: boolean; readonly model: ModelStatus };
}

/**
 * Records a group has not consumed. A partition without a committed offset counts from the
 * start, unless the group starts at the end (intelligence): then it counts as nothing waiting,
 * and a group with no commit at all has no lag to report (null).
 */
async function lag(log: Log, groupId: string, topic: string, startsAtEnd = false): Promise<{ readonly lag: number; readonly committed: number } | null> {
  try {
    const [ends, committed] = await Promise.all([log.endOffsets(topic), log.committedOffsets(groupId, topic)]);
    if (startsAtEnd && Object.keys(committed).length === 0) return null;
    return {
      lag: Object.entries(ends).reduce((sum, [p, end]) => sum + Math.max(0, end - (committed[Number(p)] ?? (startsAtEnd ? end : 0))), 0),
      committed: Object.values(committed).reduce((a, b) => a + b, 0),
    };
  } catch {
    return null;
  }
}

/** Said in plain words, because open reads are a choice an operator must know they made. */
export function readAccessNote(readAuth: 'open' | 'required'): { readonly reads: 'open' | 'required'; readonly message: string } {
  return readAuth === 'open'
    ? { reads: 'open', message: 'Reads are open: anyone who can reach this port can read messages, fan ids, spend and the scorecard. Set READ_AUTH=required and give people access keys.' }
    : { reads: 'required', message: 'Reads need an access key (READ_AUTH=required); without one the floor shows totals only (no account, chatter, fan or text).' };
}

const Lag = Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'records its consumer group has not consumed; null when the log does not answer or the group has no commit yet' });
const FreshnessSchema = Type.Union([Type.Object({
  windowSec: Type.Number(),
  samples: Count,
  p50Ms: Type.Union([Type.Number(), Type.Null()]),
  p99Ms: Type.Union([Type.Number(), Type.Null()]),
  maxMs: Type.Union([Type.Number(), Type.Null()]),
}), Type.Null()], { description: 'webhook received → done, over the last seconds; measured where the role runs (null elsewhere)' });
/** A processor's status (ProcessorStatus), counts since this process started it. */
const ProcessorStatusSchema = Type.Object({
  recordsApplied: Count,
  recordsSkippedAsApplied: Count,
  recordsDuplicate: Count,
  recordsWithoutRouting: Count,
  ticks: Count,
  eventsEmitted: Count,
  batchesFenced: Count,
  recordsSetAside: Count,
  slowSteps: Count,
  stateRollbacks: Count,
  recordsRederived: Count,
  freshness: FreshnessSchema,
});
/** A projector's status (ProjectorStatus), counts since this process started it. */
const ProjectorStatusSchema = Type.Object({
  eventsApplied: Count,
  eventsUnreadable: Count,
  eventsSetAside: Count,
  eventsConflicting: Count,
  batches: Count,
  sessionsSwept: Type.Integer({ minimum: 0, description: 'sessions closed in the read models at their deadline, ahead of the processor\'s close (embedded store only)' }),
  freshness: FreshnessSchema,
});
// A counter added to a stage's status and not here would be dropped from the answer by the
// serializer: the key lists must match (a compile error otherwise).
type SameKeys<A, B> = [Exclude<keyof A, keyof B> | Exclude<keyof B, keyof A>] extends [never] ? true : false;
const _statusesDeclared: [SameKeys<ProcessorStatus, Static<typeof ProcessorStatusSchema>>, SameKeys<ProjectorStatus, Static<typeof ProjectorStatusSchema>>] = [true, true];
const ProcessorCountersSchema = Type.Union([ProcessorStatusSchema, Type.Null()], { description: 'this process\'s processor (null when it runs elsewhere)' });
const ProjectorCountersSchema = Type.Union([ProjectorStatusSchema, Type.Null()], { description: 'this process\'s projector (null when it runs elsewhere)' });

export const HealthSchema = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
  ready: Type.Boolean({ description: 'the log and the store answer (503 when not)' }),
  problems: Type.Array(Type.Object({
    component: Type.String(),
    reason: Type.String(),
    since: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    group: Type.Optional(Type.String()),
  })),
  components: Type.Object({
    log: Type.Object({ ok: Type.Boolean(), kind: Type.String() }),
    store: Type.Object({ ok: Type.Boolean(), kind: Type.String() }),
    processor: Type.Object({ enabled: Type.Boolean(), lag: Lag, freshness: FreshnessSchema }),
    projector: Type.Object({ enabled: Type.Boolean(), lag: Lag, freshness: FreshnessSchema }),
    platformApi: Type.Object({ configured: Type.Boolean(), ready: Type.Boolean() }),
    intelligence: Type.Object({
      enabled: Type.Boolean(),
      lag: Lag,
      rules: Type.Boolean(),
      model: Type.Union([Type.Object({ enabled: Type.Literal(true), model: Type.String() }), Type.Object({ enabled: Type.Literal(false), reason: Type.String() })]),
    }),
  }),
  config: Type.Object({ webhookSecretConfigured: Type.Boolean(), adminTokenConfigured: Type.Boolean(), readAuth: Type.Union([Type.Literal('open'), Type.Literal('required')]) }),
  access: Type.Object({ reads: Type.Union([Type.Literal('open'), Type.Literal('required')]), message: Type.String() }),
  counters: Type.Object({
    processor: ProcessorCountersSchema,
    projector: ProjectorCountersSchema,
    setAside: Type.Object({ stored: Type.Union([Count, Type.Null()], { description: 'records set aside in the store (null when it does not answer)' }) }),
  }),
});
export type Health = Static<typeof HealthSchema>;

export const healthRoutes: FastifyPluginAsync<HealthOptions> = async (app, opts) => {
  // Groups whose stages run in other processes: whether their offsets move between looks.
  const elsewhere = new GroupProgressWatch();
  app.get('/api/health', {
    config: { access: 'public' },
    schema: {
      summary: 'Health and readiness of the log, the store and the consumers, with their lag',
      response: { 200: HealthSchema, 503: { ...HealthSchema, description: 'not ready: the log or the store does not answer; the body says which' } },
    },
  }, async (_request, reply) => {
    const [logOk, storeOk] = await Promise.all([
      withTimeout(opts.log.ping(), 3000, false),
      withTimeout(opts.store.ping(), 3000, false),
    ]);
    const t = logOk && opts.liveTopology ? await withTimeout(opts.liveTopology(), 3000, opts.topology) : opts.topology;
    // Per role, whichever process runs it: records its group has not consumed yet.
    const [processorStanding, projectorStanding, intelligenceStanding] = logOk
      ? await Promise.all([
        withTimeout(lag(opts.log, t.processorGroup, t.inbound), 3000, null),
        withTimeout(lag(opts.log, t.projectorGroup, t.sessionEvents), 3000, null),
        withTimeout(lag(opts.log, t.intelligenceGroup, t.sessionEvents, true), 3000, null),
      ])
      : [null, null, null];
    const [processorLag, projectorLag, intelligenceLag] = [processorStanding?.lag ?? null, projectorStanding?.lag ?? null, intelligenceStanding?.lag ?? null];
    // A stage run here reports its own consumer (opts.problems); one run elsewhere is judged by its offsets.
    const stalledElsewhere = ([
      ['processor', t.processorGroup, processorStanding],
      ['projector', t.projectorGroup, projectorStanding],
      ['intelligence', t.intelligenceGroup, intelligenceStanding],
    ] as const).flatMap(([role, group, standing]) => {
      if (opts.roles.has(role) || !standing) return [];
      const p = elsewhere.observe(role, group, standing.committed, standing.lag);
      return p ? [p] : [];
    });
    const counters = opts.counters();
    // Set-aside records kept in the store, whichever process set them aside and across restarts
    // (the processor and projector counters count this process's only). A small collection.
    const setAsideStored = storeOk ? await withTimeout(opts.setAside.count().catch(() => null), 3000, null) : null;
    const ready = logOk && storeOk;
    // Degraded is not unready: the API still takes webhooks and serves reads while a stage is
    // stuck or records wait set aside, but whoever looks must be told which, why and since when.
    const problems: { component: string; reason: string; since: string | null; group?: string }[] = [
      ...(logOk ? [] : [{ component: 'log', reason: 'does not answer', since: null }]),
      ...(storeOk ? [] : [{ component: 'store', reason: 'does not answer', since: null }]),
      // A consumer dropped from its group or stalled with records waiting names the group too.
      ...[...opts.problems(), ...stalledElsewhere].map((p) => ({ component: p.stage, reason: p.reason, since: p.since, ...(p.group ? { group: p.group } : {}) })),
      ...(setAsideStored ? [{ component: 'set-aside', reason: `${setAsideStored} record${setAsideStored === 1 ? ' is' : 's are'} set aside (GET /api/admin/set-aside)`, since: null }] : []),
    ];
    const body: Health = {
      status: problems.length === 0 ? 'ok' : 'degraded',
      ready,
      problems,
      components: {
        log: { ok: logOk, kind: opts.log.kind },
        store: { ok: storeOk, kind: opts.store.kind },
        // Freshness (received → done, last seconds) is measured where the role runs: null elsewhere.
        processor: { enabled: opts.roles.has('processor'), lag: processorLag, freshness: counters.processor?.freshness ?? null },
        projector: { enabled: opts.roles.has('projector'), lag: projectorLag, freshness: counters.projector?.freshness ?? null },
        platformApi: { configured: opts.platform.configured, ready: await opts.platform.ready() },
        intelligence: { enabled: opts.intelligence.enabled, lag: intelligenceLag, rules: true, model: opts.intelligence.model },
      },
      config: { webhookSecretConfigured: opts.webhookSecretConfigured, adminTokenConfigured: opts.adminTokenConfigured, readAuth: opts.readAuth },
      access: readAccessNote(opts.readAuth),
      counters: { ...counters, setAside: { stored: setAsideStored } },
    };
    return reply.status(ready ? 200 : 503).send(body);
  });
};
