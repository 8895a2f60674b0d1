// Chatters (issue 51): their records (an admin's: display name, accounts, commission, active),
// clocking in and out, and clocked time. A clock-in or -out is a command in the inbound log, to
// the chatter's own clock chat, so replay keeps it; the automatic clock-out after CLOCK_IDLE_SEC
// without a reply is worked out from the chatter's replies where intervals are read.
import { Type, type FastifyPluginAsyncTypebox, type Static } from '@fastify/type-provider-typebox';
import { actorOf } from '../../access/access-model.js';
import type { ChatterDoc } from '../../accounts/chatter-store.js';
import { ID_PATTERN } from '../../domain/bounds.js';
import { inboundRecord } from '../../domain/inbound-record.js';
import { CLOCK_CHATTER, clockChatOf } from '../../domain/normalise.js';
import type { BatchingAppender } from '../../ingest/batching-appender.js';
import { chattersSeen } from '../../read-models/report-buckets/chatters-seen.js';
import { accountTest } from '../../read-models/account-test.js';
import { clockedIntervals, onNow, openInterval, summarise, type ClockedInterval } from '../../read-models/clock-intervals/queries.js';
import type { ReadSide } from '../../read-side/read-side.js';
import { ApiError } from '../errors.js';
import { parseWindow, WindowParams, windowView } from '../report-window.js';
import { accountFilter, assertVisible } from '../scope.js';
import { iso, Nullable, Time } from '../views.js';

export interface ChatterRouteOptions {
  readonly read: ReadSide;
  readonly inbound: BatchingAppender;
  readonly clockIdleSec: number;
  readonly reportTimezone: string;
  readonly now?: () => number;
}

const ChatterId = Type.String({ pattern: ID_PATTERN, description: 'the chatter\'s id, as the connector names them' });
const AccountId = Type.String({ minLength: 1, maxLength: 200 });
/** The most accounts one chatter record names. */
const MAX_CHATTER_ACCOUNTS = 200;

const OnNowSchema = Type.Object({ accountId: Type.String(), since: Time, intervalId: Type.String() });

const ChatterSchema = Type.Object({
  chatterId: Type.String(),
  displayName: Nullable(Type.String(), 'as an admin set it; null: none set (show the id)'),
  accountIds: Type.Array(Type.String(), { description: 'the accounts they work: as an admin set them, or else those they have worked for (replies, credited sales)' }),
  commissionPct: Nullable(Type.Number({ minimum: 0, maximum: 100 }), 'their share of the revenue credited to them, percent; null: none agreed'),
  active: Type.Boolean(),
  hasRecord: Type.Boolean({ description: 'false: seen in the pipeline only; PUT /api/admin/chatters/:chatterId gives them a record' }),
  onNow: Type.Array(OnNowSchema, { description: 'the accounts they are clocked in on now' }),
});

const ChatterBody = Type.Object({
  displayName: Nullable(Type.String({ minLength: 1, maxLength: 100 }), 'how the console names them; null: by id'),
  accountIds: Type.Array(AccountId, { maxItems: MAX_CHATTER_ACCOUNTS, description: `the accounts they work, at most ${MAX_CHATTER_ACCOUNTS}` }),
  commissionPct: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 100 }), 'their share of the revenue credited to them, percent')),
  active: Type.Optional(Type.Boolean({ default: true })),
}, { additionalProperties: false });

const IntervalSchema = Type.Object({
  intervalId: Type.String(),
  accountId: Type.String(),
  chatterId: Type.String(),
  clockedInAt: Time,
  endedAt: Nullable(Type.String({ format: 'date-time' }), 'null: on now'),
  automatic: Type.Boolean({ description: 'ended by idling: no reply of theirs on the account for CLOCK_IDLE_SEC' }),
  clockedInBy: Type.String(),
  clockedOutBy: Nullable(Type.String()),
});

const ClockedRowSchema = Type.Object({
  accountId: Type.String(),
  chatterId: Type.String(),
  displayName: Nullable(Type.String()),
  clockedSec: Type.Integer({ minimum: 0, description: 'clocked seconds inside the window (an interval still on counts until now)' }),
  intervals: Type.Integer({ minimum: 0, description: 'clock intervals overlapping the window' }),
  automaticClockOuts: Type.Integer({ minimum: 0, description: 'of them, ended by idling' }),
  onNow: Type.Boolean(),
});

function intervalView(i: ClockedInterval): Static<typeof IntervalSchema> {
  return { intervalId: i.id, accountId: i.accountId, chatterId: i.chatterId, clockedInAt: iso(i.inAt), endedAt: i.end === null ? null : iso(i.end), automatic: i.automatic, clockedInBy: i.inBy, clockedOutBy: i.outBy };
}

export const chatterRoutes: FastifyPluginAsyncTypebox<ChatterRouteOptions> = async (app, opts) => {
  // Read at each call, not captured: a clock set for a test (or by a time-travel tool) reaches every route.
  const clock = opts.now ?? ((): number => Date.now());
  const idleMs = opts.clockIdleSec * 1000;
  const { models, chatters, accounts } = opts.read;

  app.get('/api/chatters', {
    schema: {
      summary: 'Chatters: every chatter with a record or seen in the pipeline (of the key\'s accounts), with their record and the accounts they are clocked in on now',
      querystring: Type.Object({ accountId: Type.Optional(AccountId) }, { additionalProperties: false }),
      response: { 200: Type.Object({ items: Type.Array(ChatterSchema), count: Type.Integer({ minimum: 0 }) }) },
    },
  }, async (request) => {
    const inScope = accountFilter(request, request.query.accountId);
    const rm = await models.active();
    const now = clock();
    const [records, seen, on] = await Promise.all([chatters.all(), chattersSeen(rm), onNow(rm, inScope, idleMs, now)]);
    const visible = accountTest(inScope);
    const byId = new Map<string, { record: ChatterDoc | null; seen: Set<string> }>();
    for (const r of records) byId.set(r._id, { record: r, seen: new Set() });
    for (const [id, accountIds] of seen) {
      const row = byId.get(id) ?? { record: null, seen: new Set<string>() };
      for (const a of accountIds) row.seen.add(a);
      byId.set(id, row);
    }
    const items = [...byId].map(([chatterId, { record, seen: worked }]) => {
      const accountIds = (record && record.accountIds.length > 0 ? [...record.accountIds] : [...worked].sort()).filter(visible);
      return {
        chatterId, displayName: record?.displayName ?? null, accountIds, commissionPct: record?.commissionPct ?? null, active: record?.active ?? true, hasRecord: record !== null,
        onNow: on.filter((i) => i.chatterId === chatterId).map((i) => ({ accountId: i.accountId, since: iso(i.inAt), intervalId: i.id })),
      };
    }).filter((c) => c.accountIds.length > 0 || c.onNow.length > 0 || (inScope.accountId === undefined && c.hasRecord))
      .sort((a, b) => a.chatterId.localeCompare(b.chatterId));
    return { items, count: items.length };
  });

  app.put('/api/admin/chatters/:chatterId', {
    config: { access: 'admin' },
    schema: {
      summary: 'Create or replace a chatter\'s record: display name, the accounts they work, commission share, active',
      security: [{ adminToken: [] }],
      params: Type.Object({ chatterId: ChatterId }),
      body: ChatterBody,
      response: { 200: Type.Object({ chatterId: Type.String(), displayName: Nullable(Type.String()), accountIds: Type.Array(Type.String()), commissionPct: Nullable(Type.Number()), active: Type.Boolean(), updatedAt: Time, updatedBy: Type.String() }) },
    },
  }, async (request) => {
    const { chatterId } = request.params;
    const body = request.body;
    const doc = await chatters.set(chatterId, {
      displayName: body.displayName, accountIds: body.accountIds, commissionPct: body.commissionPct ?? null, active: body.active ?? true,
    }, actorOf(request.principal), clock());
    return { chatterId, displayName: doc.displayName, accountIds: [...doc.accountIds], commissionPct: doc.commissionPct, active: doc.active, updatedAt: iso(doc.updatedAt), updatedBy: doc.updatedBy };
  });

  app.post('/api/admin/chatters/:chatterId/clock', {
    config: { access: 'manager' },
    schema: {
      summary: 'Clock a chatter in or out of an account. Appends a command to the inbound log (the chatter\'s clock chat); GET /api/chatters shows them on once it is processed. A chatter idle for CLOCK_IDLE_SEC is clocked out automatically: clocking in again after that starts a new interval',
      security: [{ adminToken: [] }],
      params: Type.Object({ chatterId: ChatterId }),
      body: Type.Object({
        accountId: AccountId,
        action: Type.Union([Type.Literal('in'), Type.Literal('out')]),
      }, { additionalProperties: false }),
      response: {
        202: Type.Object({
          status: Type.Literal('clock-requested'), chatterId: Type.String(), accountId: Type.String(), action: Type.Union([Type.Literal('in'), Type.Literal('out')]),
          requestedAt: Time,
          endsIdleIntervalAt: Nullable(Type.String({ format: 'date-time' }), 'the open interval had already ended by idling: it is recorded as ending then'),
        }, { description: 'the command is in the inbound log: the processor applies it' }),
      },
    },
  }, async (request, reply) => {
    const { chatterId } = request.params;
    const { accountId, action } = request.body;
    assertVisible(request, accountId, `accountId: no account ${accountId}`);
    const rm = await models.active();
    const now = clock();
    const [record, account, stats] = await Promise.all([chatters.get(chatterId), accounts.get(accountId), rm.account_stats.findOne({ accountId })]);
    if (!account && !stats) throw new ApiError('INVALID_INPUT', `accountId: no account ${accountId}`);
    if (record) {
      if (!record.active) throw new ApiError('INVALID_INPUT', `chatterId: chatter ${chatterId} is not active`);
      if (record.accountIds.length > 0 && !record.accountIds.includes(accountId)) throw new ApiError('INVALID_INPUT', `accountId: chatter ${chatterId} does not work account ${accountId} (their record names ${record.accountIds.join(', ')})`);
    } else if (!(await chattersSeen(rm, new Set([accountId]))).has(chatterId)) {
      throw new ApiError('INVALID_INPUT', `chatterId: no chatter ${chatterId} has a record or has worked for account ${accountId}`);
    }
    const open = await openInterval(rm, accountId, chatterId, idleMs, now);
    const on = open !== null && open.end === null;
    if (action === 'in' && on) throw new ApiError('CONFLICT', `action: chatter ${chatterId} is already clocked in on ${accountId} (since ${iso(open.inAt)})`);
    if (action === 'out' && open === null) throw new ApiError('CONFLICT', `action: chatter ${chatterId} is not clocked in on ${accountId}`);
    // An interval ended by idling is closed where it ended, by this very command.
    const idleSince = open !== null && open.end !== null && open.automatic ? open.end : null;
    const requestedAt = new Date(now).toISOString();
    const body = Buffer.from(JSON.stringify({ chatterId, action, requestedBy: actorOf(request.principal), requestedAt, ...(idleSince !== null ? { idleSince: iso(idleSince) } : {}) }));
    try {
      await opts.inbound.append(inboundRecord({
        source: 'command', event: CLOCK_CHATTER, accountId, chatId: clockChatOf(chatterId),
        dedupeKey: `clock:${accountId}:${chatterId}:${action}:${requestedAt}`, receivedAt: now,
      }, body));
    } catch (err) {
      request.log.error({ err }, 'clock command append failed');
      throw new ApiError('NOT_READY', 'the inbound log is unavailable; retry later');
    }
    return reply.status(202).send({ status: 'clock-requested' as const, chatterId, accountId, action, requestedAt, endsIdleIntervalAt: idleSince === null ? null : iso(idleSince) });
  });

  app.get('/api/chatters/clocked', {
    config: { rateClass: 'report' },
    schema: {
      summary: 'Clocked time per chatter and account over a window: clocked seconds (an interval still on counts until now), intervals, automatic clock-outs, on now; with the intervals themselves',
      querystring: Type.Object({ accountId: Type.Optional(AccountId), chatterId: Type.Optional(ChatterId), ...WindowParams }, { additionalProperties: false }),
      response: {
        200: Type.Object({
          items: Type.Array(ClockedRowSchema, { description: 'by chatter, then account' }),
          intervals: Type.Array(IntervalSchema, { description: 'the clock intervals overlapping the window, oldest first' }),
          clockIdleSec: Type.Integer({ description: 'CLOCK_IDLE_SEC: idle this long without a reply, a chatter is clocked out' }),
          window: Type.Object({ from: Time, to: Time }),
        }),
      },
    },
  }, async (request) => {
    const w = parseWindow(request.query, opts.reportTimezone);
    const inScope = accountFilter(request, request.query.accountId);
    const now = clock();
    const [intervals, records] = await Promise.all([clockedIntervals(await models.active(), inScope, w.from, w.to, idleMs, now, request.query.chatterId), chatters.all()]);
    const names = new Map(records.map((r) => [r._id, r.displayName]));
    const items = summarise(intervals, w.from, w.to, now).map((r) => ({ ...r, displayName: names.get(r.chatterId) ?? null }));
    return { items, intervals: intervals.map(intervalView), clockIdleSec: opts.clockIdleSec, window: windowView(w) };
  });
};
