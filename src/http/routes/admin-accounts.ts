// Admin: the account registry, the platform's connection flow, and backfill jobs. Every route
// needs the admin token; the ones that talk to the platform also need PLATFORMAPI_KEY and say
// so when it is missing. Platform failures map to our error catalogue, and a job is only
// created once the platform has answered, so a wrong key or a platform that is down leaves
// nothing behind.
import { Type, type FastifyPluginAsyncTypebox, type Static } from '@fastify/type-provider-typebox';
import { type AccountDoc } from '../../accounts/registry.js';
import { type BusinessHoursDoc } from '../../accounts/business-hours-store.js';
import { phrasesAt, type BannedPhrasesDoc } from '../../accounts/banned-phrases-store.js';
import { checkPhrases, MAX_PHRASE, MAX_PHRASES } from '../../domain/banned-phrases.js';
import { actorOf } from '../../access/access-model.js';
import { DAY_KEYS, MAX_HOLIDAYS, MAX_INTERVALS_PER_DAY, MAX_TIMEZONE_LENGTH, validateBusinessHours } from '../../domain/business-hours.js';
import { PlatformError, type PlatformClient } from '../../adapters/platform/platform-client.js';
import { BackfillConflict, type BackfillJobDoc, type BackfillJobs, type BackfillKind } from '../../backfill/backfill-jobs.js';
import { loadDemoAccounts } from '../../demo/fixtures.js';
import { idString, isObject } from '../../domain/json.js';
import type {} from '../../adapters/store/store.js';
import { EARLIEST_TIME_MS } from '../../domain/bounds.js';
import { ApiError, invalidInput } from '../errors.js';
import { iso, timeOf as Time } from '../views.js';
import type { ReadSide } from '../../read-side/read-side.js';

export interface AdminAccountOptions {
  readonly read: ReadSide;
  readonly client: PlatformClient;
  readonly backfill: BackfillJobs;
}

const ACCOUNT_ID = '^(fansly_)?acct_[0-9a-f]{32}$';
// The platform's attempt ids are `auth_…`; anything else (a lone surrogate, a slash) could not go in its URL.
const AttemptId = Type.String({ pattern: '^[A-Za-z0-9_.-]{1,200}$', description: 'the attempt id POST /api/admin/accounts/auth answered' });
const DEFAULT_BACKFILL_DAYS = 30;

/** Platform failures in our catalogue: what to fix is in the message. */
export function fromPlatform(err: unknown): never {
  if (!(err instanceof PlatformError)) throw err;
  switch (err.kind) {
    case 'missing-key': throw new ApiError('NOT_READY', err.message);
    case 'unavailable': throw new ApiError('NOT_READY', err.message);
    case 'rate-limited': throw new ApiError('RATE_LIMITED', err.message);
    case 'not-found': throw new ApiError('NOT_FOUND', err.message);
    default: throw new ApiError('PLATFORM_ERROR', err.message);
  }
}

export const AccountViewSchema = Type.Object({
  id: Type.String({ description: 'the platform account id' }),
  displayName: Type.String(),
  status: Type.Union([Type.Literal('connected'), Type.Literal('pending-auth'), Type.Literal('disconnected')]),
  source: Type.Union([Type.Literal('manual'), Type.Literal('synced'), Type.Literal('demo')], { description: 'how it was registered: by hand, synced from the platform, or the demo seed' }),
  username: Type.Union([Type.String(), Type.Null()], { description: 'the creator\'s username on the platform, when synced' }),
  createdAt: Time(),
  updatedAt: Time(),
});

export function accountView(a: AccountDoc): Static<typeof AccountViewSchema> {
  return { id: a._id, displayName: a.displayName, status: a.status, source: a.source, username: a.username, createdAt: iso(a.createdAt), updatedAt: iso(a.updatedAt) };
}

const BannedPhrasesViewSchema = Type.Object({
  accountId: Type.String(),
  phrases: Type.Array(Type.String(), { description: 'the list in force now, as kept (lower case, single spaces)' }),
  history: Type.Array(Type.Object({
    from: Time('in force for replies received from this time'),
    by: Type.String({ description: 'who set it' }),
    phrases: Type.Array(Type.String()),
  }), { description: 'every list kept (the latest 50), newest first' }),
});

function bannedPhrasesView(d: BannedPhrasesDoc): Static<typeof BannedPhrasesViewSchema> {
  return {
    accountId: d._id,
    phrases: [...phrasesAt(d, Number.POSITIVE_INFINITY)],
    history: [...d.versions].reverse().map((v) => ({ from: iso(v.from), by: v.by, phrases: [...v.phrases] })),
  };
}

const SeededAccountsSchema = Type.Object({
  seeded: Type.Integer({ minimum: 0, description: 'how many demo accounts were registered or updated' }),
  accounts: Type.Array(AccountViewSchema),
});

const SyncedAccountsSchema = Type.Object({
  synced: Type.Integer({ minimum: 0, description: 'how many platform accounts were registered or updated' }),
  accounts: Type.Array(AccountViewSchema),
});

export const BackfillJobViewSchema = Type.Object({
  id: Type.String(),
  kind: Type.Union([Type.Literal('backfill'), Type.Literal('backfill-transactions')]),
  state: Type.Union([Type.Literal('running'), Type.Literal('done'), Type.Literal('failed')]),
  accountIds: Type.Array(Type.String(), { description: 'the accounts it pulls, in order' }),
  since: Time('pulls history from this time'),
  progress: Type.Object({
    accountIndex: Type.Integer({ minimum: 0, description: 'index in accountIds of the account being pulled' }),
    chatsPage: Type.Union([Type.String(), Type.Null()], { description: 'next chats page of the current account (null: its first page)' }),
    chatIndex: Type.Integer({ minimum: 0, description: 'chats of that page already done' }),
    chats: Type.Integer({ minimum: 0 }),
    messages: Type.Integer({ minimum: 0 }),
    transactions: Type.Integer({ minimum: 0 }),
    requests: Type.Integer({ minimum: 0, description: 'requests made to the platform' }),
    waitedMs: Type.Number({ minimum: 0, description: 'time spent waiting out rate limits and backoffs' }),
  }),
  errors: Type.Array(Type.Object({ at: Time(), message: Type.String() }), { description: 'the latest errors (at most 20 kept)' }),
  startedAt: Time(),
  updatedAt: Time('the runner\'s last heartbeat'),
  finishedAt: Time('null while it runs'),
  statusUrl: Type.String({ description: 'where to follow it' }),
});

function jobView(j: BackfillJobDoc): Static<typeof BackfillJobViewSchema> {
  return {
    id: j._id, kind: j.kind, state: j.state, accountIds: [...j.accountIds], since: iso(j.since), progress: j.progress, errors: j.errors.map((e) => ({ at: iso(e.at), message: e.message })),
    startedAt: iso(j.startedAt), updatedAt: iso(j.heartbeatAt), finishedAt: iso(j.finishedAt), statusUrl: `/api/admin/backfill/${encodeURIComponent(j._id)}`,
  };
}

/** A text the platform answered, when it answered one. */
const platformText = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const PlatformText = (description: string) => Type.Union([Type.String(), Type.Null()], { description });

const AuthStartSchema = Type.Object({
  attemptId: Type.String({ description: 'the platform\'s attempt id: poll it' }),
  message: PlatformText('the platform\'s message, if any'),
  next: Type.Literal('POST /api/admin/accounts/auth/poll'),
});

const AuthPollSchema = Type.Object({
  state: PlatformText('the attempt\'s state as the platform gives it (authenticated once connected)'),
  progress: PlatformText('the platform\'s progress step, e.g. signing_in, needs_otp, signed_in'),
  needsOtp: Type.Boolean({ description: 'the platform waits for the two-factor code' }),
  account: Type.Union([AccountViewSchema, Type.Null()], { description: 'the account, registered once the attempt is authenticated' }),
  next: Type.Union([Type.Literal('POST /api/admin/accounts/auth/2fa'), Type.Literal('POST /api/admin/accounts/auth/poll'), Type.Null()], { description: 'what to call next (null: done)' }),
});

const Auth2faSchema = Type.Object({
  submitted: Type.Literal(true),
  message: PlatformText('the platform\'s message, if any'),
  next: Type.Literal('POST /api/admin/accounts/auth/poll'),
});

// A schedule as PUT takes it; the rules beyond its shape (a known zone, real times and dates,
// intervals in order that do not overlap) are checked by domain/business-hours.ts, whose 400s
// name the field and the reason.
const WallTime = Type.String({ minLength: 1, maxLength: 10, description: 'HH:MM on the local clock, 00:00 to 23:59; an end may be 24:00 (the next midnight)' });
const DayIntervals = Type.Array(Type.Array(WallTime, { minItems: 2, maxItems: 2, description: '[start, end): open from start until end' }), {
  maxItems: MAX_INTERVALS_PER_DAY, description: `open intervals, at most ${MAX_INTERVALS_PER_DAY}, none overlapping; [] (or the day left out) is closed`,
});
const Day = Type.Optional(DayIntervals);
const WeeklyBody = Type.Object({ mon: Day, tue: Day, wed: Day, thu: Day, fri: Day, sat: Day, sun: Day }, { additionalProperties: false, description: 'mon … sun; a day left out is closed' });
const BusinessHoursBody = Type.Object({
  timezone: Type.String({ minLength: 1, maxLength: MAX_TIMEZONE_LENGTH, description: 'an IANA time zone (Europe/Berlin) or an offset (+01:00): the clock the hours are on' }),
  weekly: WeeklyBody,
  holidays: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 20, description: 'YYYY-MM-DD' }), { maxItems: MAX_HOLIDAYS, description: `local dates closed all day, at most ${MAX_HOLIDAYS}` })),
}, { additionalProperties: false });

const DayView = Type.Array(Type.Array(Type.String(), { minItems: 2, maxItems: 2 }));
const WeeklyView = Type.Object({ mon: DayView, tue: DayView, wed: DayView, thu: DayView, fri: DayView, sat: DayView, sun: DayView }, { description: 'every day, its intervals in order ([] closed)' });
export const BusinessHoursViewSchema = Type.Object({
  accountId: Type.String(),
  timezone: Type.String({ description: 'the zone\'s canonical id' }),
  weekly: WeeklyView,
  holidays: Type.Array(Type.String(), { description: 'sorted' }),
  updatedAt: Time(),
});

function businessHoursView(doc: BusinessHoursDoc): Static<typeof BusinessHoursViewSchema> {
  const day = (d: (typeof DAY_KEYS)[number]): string[][] => (doc.weekly[d] ?? []).map(([a, b]) => [a, b]);
  const weekly = { mon: day('mon'), tue: day('tue'), wed: day('wed'), thu: day('thu'), fri: day('fri'), sat: day('sat'), sun: day('sun') };
  return { accountId: doc._id, timezone: doc.timezone, weekly, holidays: [...doc.holidays], updatedAt: iso(doc.updatedAt) };
}

const BackfillJobListSchema = Type.Object({ items: Type.Array(BackfillJobViewSchema), count: Type.Integer({ minimum: 0 }) });

export const adminAccountRoutes: FastifyPluginAsyncTypebox<AdminAccountOptions> = async (app, opts) => {
  const { accounts: registry, businessHours, bannedPhrases } = opts.read;
  const guarded = { config: { access: 'admin' as const } };
  const security = [{ adminToken: [] }];

  app.post('/api/admin/accounts', {
    ...guarded,
    schema: {
      summary: 'Register (or update) an account by hand: 201 when new, 200 when it existed',
      security,
      body: Type.Object({
        id: Type.String({ pattern: ACCOUNT_ID, description: 'the platform account id, acct_ and 32 hex digits' }),
        displayName: Type.String({ minLength: 1, maxLength: 200 }),
        status: Type.Optional(Type.Union([Type.Literal('connected'), Type.Literal('pending-auth'), Type.Literal('disconnected')])),
      }, { additionalProperties: false }),
      response: { 200: AccountViewSchema, 201: AccountViewSchema },
    },
  }, async (request, reply) => {
    const { id, displayName, status } = request.body;
    const { created, account } = await registry.upsert(id, { displayName, source: 'manual', ...(status ? { status } : {}) });
    return reply.status(created ? 201 : 200).send(accountView(account));
  });

  app.post('/api/admin/accounts/seed', {
    ...guarded,
    schema: { summary: 'Register the demo accounts (source demo)', security, response: { 200: SeededAccountsSchema } },
  }, async () => {
    const seeded = [];
    for (const a of loadDemoAccounts()) seeded.push(accountView((await registry.upsert(a.id, { displayName: a.displayName, source: 'demo' })).account));
    return { seeded: seeded.length, accounts: seeded };
  });

  app.post('/api/admin/accounts/sync', {
    ...guarded,
    schema: { summary: 'Pull the accounts connected on the platform (needs PLATFORMAPI_KEY)', security, response: { 200: SyncedAccountsSchema } },
  }, async () => {
    const remote = await opts.client.accounts().catch(fromPlatform);
    const synced = [];
    for (const r of remote) {
      const id = idString(r.id);
      if (!id) continue;
      const { account } = await registry.upsert(id, {
        displayName: String(r.display_name ?? r.onlyfans_username ?? id), source: 'synced',
        status: r.is_authenticated === true ? 'connected' : 'pending-auth', username: typeof r.onlyfans_username === 'string' ? r.onlyfans_username : null,
      });
      synced.push(accountView(account));
    }
    return { synced: synced.length, accounts: synced };
  });

  app.post('/api/admin/accounts/auth/start', {
    ...guarded,
    schema: {
      summary: "Start the platform's connection flow for an account (needs PLATFORMAPI_KEY)",
      security,
      body: Type.Object({
        email: Type.String({ minLength: 3, maxLength: 320 }),
        password: Type.String({ minLength: 1, maxLength: 500 }),
        name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
      }, { additionalProperties: false }),
      response: { 200: AuthStartSchema },
    },
  }, async (request) => {
    const started = await opts.client.startAuth({ email: request.body.email, password: request.body.password, ...(request.body.name ? { name: request.body.name } : {}) }).catch(fromPlatform);
    const attemptId = idString(started.attempt_id);
    if (!attemptId) throw new ApiError('PLATFORM_ERROR', 'the platform started no authentication attempt (no attempt_id)');
    return { attemptId, message: platformText(started.message), next: 'POST /api/admin/accounts/auth/poll' as const };
  });

  app.post('/api/admin/accounts/auth/poll', {
    ...guarded,
    schema: {
      summary: 'Poll an authentication attempt; registers the account once it is connected (needs PLATFORMAPI_KEY)',
      security,
      body: Type.Object({ attemptId: AttemptId }, { additionalProperties: false }),
      response: { 200: AuthPollSchema },
    },
  }, async (request) => {
    const polled = await opts.client.pollAuth(request.body.attemptId).catch(fromPlatform);
    const last = isObject(polled.lastAttempt) ? polled.lastAttempt : {};
    const needsOtp = last.needs_otp === true || polled.twoFactorPending === true;
    const account = isObject(polled.account) ? polled.account : null;
    const accountId = account ? idString(account.id) : undefined;
    let registered = null;
    if (polled.state === 'authenticated' && accountId) {
      registered = accountView((await registry.upsert(accountId, { displayName: String(account?.display_name ?? accountId), source: 'synced', status: 'connected', authAttemptId: request.body.attemptId })).account);
    }
    const next = needsOtp ? 'POST /api/admin/accounts/auth/2fa' as const : registered ? null : 'POST /api/admin/accounts/auth/poll' as const;
    return { state: platformText(polled.state), progress: platformText(polled.progress), needsOtp, account: registered, next };
  });

  app.post('/api/admin/accounts/auth/2fa', {
    ...guarded,
    schema: {
      summary: 'Submit the two-factor code of an authentication attempt (needs PLATFORMAPI_KEY)',
      security,
      body: Type.Object({ attemptId: AttemptId, code: Type.String({ pattern: '^[0-9A-Za-z]{4,12}$' }) }, { additionalProperties: false }),
      response: { 200: Auth2faSchema },
    },
  }, async (request) => {
    const answer = await opts.client.submit2fa(request.body.attemptId, request.body.code).catch(fromPlatform);
    return { submitted: true as const, message: platformText(answer.message), next: 'POST /api/admin/accounts/auth/poll' as const };
  });

  app.post('/api/admin/accounts/:id/disconnect', {
    ...guarded,
    schema: { summary: 'Mark an account disconnected; its history stays', security, params: Type.Object({ id: Type.String({ pattern: ACCOUNT_ID }) }), response: { 200: AccountViewSchema } },
  }, async (request) => {
    const existing = await registry.get(request.params.id);
    if (!existing) throw new ApiError('NOT_FOUND', `id: no registered account ${request.params.id}`);
    return accountView((await registry.upsert(existing._id, { displayName: existing.displayName, source: existing.source, status: 'disconnected' })).account);
  });

  // Any id is looked up (an id no account has is a 404), so a bad query parameter is named first.
  const accountParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200, description: 'a registered account id' }) });
  const registered = async (id: string): Promise<AccountDoc> => {
    const account = await registry.get(id);
    if (!account) throw new ApiError('NOT_FOUND', `id: no registered account ${id}`);
    return account;
  };

  app.put('/api/admin/accounts/:id/business-hours', {
    ...guarded,
    schema: {
      summary: 'Set an account\'s business hours (replaces any schedule): clock=business reports and its wait alerts then count open hours only',
      security,
      params: accountParams,
      body: BusinessHoursBody,
      response: { 200: BusinessHoursViewSchema },
    },
  }, async (request) => {
    const account = await registered(request.params.id);
    const checked = validateBusinessHours(request.body);
    if (!checked.ok) throw invalidInput(checked.issue.field, checked.issue.reason);
    return businessHoursView(await businessHours.set(account._id, checked.schedule));
  });

  app.get('/api/admin/accounts/:id/business-hours', {
    ...guarded,
    schema: { summary: 'An account\'s business hours; 404 when it has none (it measures wall-clock time)', security, params: accountParams, response: { 200: BusinessHoursViewSchema } },
  }, async (request) => {
    const account = await registered(request.params.id);
    const doc = await businessHours.get(account._id);
    if (!doc) throw new ApiError('NOT_FOUND', `id: account ${account._id} has no business hours`);
    return businessHoursView(doc);
  });

  app.delete('/api/admin/accounts/:id/business-hours', {
    ...guarded,
    schema: {
      summary: 'Remove an account\'s business hours (idempotent): back to wall-clock time',
      security,
      params: accountParams,
      response: { 200: Type.Object({ accountId: Type.String(), removed: Type.Boolean({ description: 'whether it had a schedule' }) }) },
    },
  }, async (request) => {
    const account = await registered(request.params.id);
    return { accountId: account._id, removed: await businessHours.remove(account._id) };
  });

  app.put('/api/admin/accounts/:id/banned-phrases', {
    ...guarded,
    schema: {
      summary: 'Set an account\'s banned phrases (replaces the list; [] clears it): from now on, each direct reply received is flagged `banned-phrase` for the phrases it contains, counted per chatter in GET /api/conversion and listed per session in its analysis. Replies received before keep the flags they got',
      security,
      params: accountParams,
      body: Type.Object({
        phrases: Type.Array(Type.String({ maxLength: MAX_PHRASE * 4 }), { maxItems: MAX_PHRASES, description: `at most ${MAX_PHRASES}; each matched ignoring case and runs of white space, on word edges; 2–${MAX_PHRASE} characters` }),
      }, { additionalProperties: false }),
      response: { 200: BannedPhrasesViewSchema },
    },
  }, async (request) => {
    const account = await registered(request.params.id);
    const checked = checkPhrases(request.body.phrases);
    if (!checked.ok) throw invalidInput(checked.field, checked.reason);
    return bannedPhrasesView(await bannedPhrases.set(account._id, checked.phrases, actorOf(request.principal)));
  });

  app.get('/api/admin/accounts/:id/banned-phrases', {
    ...guarded,
    schema: { summary: 'An account\'s banned phrases in force now, and the lists before them (who set each, and from when)', security, params: accountParams, response: { 200: BannedPhrasesViewSchema } },
  }, async (request) => {
    const account = await registered(request.params.id);
    return bannedPhrasesView((await bannedPhrases.get(account._id)) ?? { _id: account._id, versions: [] });
  });

  // A JSON null is a body the schema lets in (the whole body is optional): the same as none.
  const startJob = async (kind: BackfillKind, body: { accountId?: string; since?: string } | null | undefined) => {
    const since = body?.since ? Date.parse(body.since) : Date.now() - DEFAULT_BACKFILL_DAYS * 86_400_000;
    if (!Number.isFinite(since) || since < EARLIEST_TIME_MS) throw invalidInput('since', 'must not be before 2000-01-01');
    if (since > Date.now()) throw invalidInput('since', 'must not be in the future');
    // Ask the platform first: a missing or wrong key, or a platform that is down, is answered
    // now and leaves no job behind.
    const remote = await opts.client.accounts().catch(fromPlatform);
    const known = new Set(remote.map((r) => idString(r.id)).filter((x): x is string => x !== undefined));
    let accountIds: string[];
    if (body?.accountId) {
      if (!known.has(body.accountId)) throw new ApiError('NOT_FOUND', `accountId: ${body.accountId} is not an account of this platform API key`);
      accountIds = [body.accountId];
    } else {
      accountIds = remote.filter((r) => r.is_authenticated === true).map((r) => idString(r.id)).filter((x): x is string => x !== undefined);
    }
    try {
      return jobView(await opts.backfill.start(kind, accountIds, since));
    } catch (err) {
      if (err instanceof BackfillConflict) throw new ApiError('CONFLICT', err.message);
      throw err;
    }
  };
  const backfillBody = Type.Optional(Type.Object({
    accountId: Type.Optional(Type.String({ pattern: ACCOUNT_ID, description: 'one account (default: every authenticated account of the key)' })),
    since: Type.Optional(Type.String({ format: 'date-time', description: `from this time (default: ${DEFAULT_BACKFILL_DAYS} days ago)` })),
  }, { additionalProperties: false }));

  app.post('/api/admin/backfill', {
    ...guarded,
    schema: { summary: 'Pull chats and messages (with their transactions, in time order) from the platform into inbound; 202 with a job id (needs PLATFORMAPI_KEY)', security, body: backfillBody, response: { 202: BackfillJobViewSchema } },
  }, async (request, reply) => reply.status(202).send(await startJob('backfill', request.body)));

  app.post('/api/admin/backfill-transactions', {
    ...guarded,
    schema: { summary: 'Pull tips, pay-per-view purchases and subscriptions from the platform into inbound; 202 with a job id (needs PLATFORMAPI_KEY)', security, body: backfillBody, response: { 202: BackfillJobViewSchema } },
  }, async (request, reply) => reply.status(202).send(await startJob('backfill-transactions', request.body)));

  app.get('/api/admin/backfill', {
    ...guarded,
    schema: { summary: 'Recent backfill jobs, newest first', security, querystring: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }) }, { additionalProperties: false }), response: { 200: BackfillJobListSchema } },
  }, async (request) => {
    const jobs = await opts.backfill.list(request.query.limit);
    return { items: jobs.map(jobView), count: jobs.length };
  });

  app.get('/api/admin/backfill/:id', {
    ...guarded,
    schema: { summary: 'Progress and errors of one backfill job', security, params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) }), response: { 200: BackfillJobViewSchema } },
  }, async (request) => {
    const job = await opts.backfill.get(request.params.id);
    if (!job) throw new ApiError('NOT_FOUND', `id: no backfill job ${request.params.id}`);
    return jobView(job);
  });
};
