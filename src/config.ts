import { isTimeZone } from './domain/zoned-time.js';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { trimTrailingSlashes } from './support/url.js';
import { Temporal } from 'temporal-polyfill';

// Configuration comes only from environment variables, validated at start with a message
// that names the variable at fault.
export type Role = 'api' | 'processor' | 'projector' | 'intelligence';

/** DEMO_SECRET unset: the secret the shipped demo records are signed with (refused outside development). */
export const DEFAULT_DEMO_SECRET = 'convops-demo-secret';

/**
 * KAFKA_ROUND_MAX_RECORDS and KAFKA_ROUND_MAX_MS unset (see docs/benchmarks.md for the measure);
 * the Kafka log's rounds (adapters/log/kafka/rounds.ts) fall back to them too.
 */
export const DEFAULT_ROUND_LIMITS = { maxRecords: 2000, maxMs: 2000 } as const;
const ALL_ROLES: readonly Role[] = ['api', 'processor', 'projector', 'intelligence'];

export interface Config {
  readonly port: number;
  /** Metrics and probes of a process without the API role (9464, Prometheus exporters' usual port). */
  readonly opsPort: number;
  /** How long a stop may take (stop intake, drain appends, stop consumers, close) before the process exits anyway. */
  readonly shutdownTimeoutMs: number;
  /** Start-up waits for an unreachable store or broker: first delay between tries, and the longest (exponential with jitter in between). */
  readonly startupRetryInitialMs: number;
  readonly startupRetryMaxMs: number;
  readonly host: string;
  readonly dataDir: string;
  /** Where POST /api/admin/backup writes (embedded deployments). */
  readonly backupDir: string;
  readonly kafkaBrokers: readonly string[] | null;
  readonly mongoUrl: string | null;
  readonly mongoDb: string;
  /**
   * Whether the projector keeps a digest of every event id and sets aside an id that comes back
   * with other content (EVENT_DIGESTS: on, off, auto = on with MongoDB, off on the embedded
   * store, whose acknowledged writes are not lost, so ids are never issued twice).
   */
  readonly eventDigests: boolean;
  /** How long an event id's digest is kept (EVENT_DIGESTS_KEEP_DAYS): ./projector/event-digests.ts says why that is enough. */
  readonly eventDigestsKeepDays: number;
  readonly roles: ReadonlySet<Role>;
  readonly webhookSecret: string | null;
  /** The secret being replaced, accepted beside webhookSecret until `untilMs` (a rotation's overlap). */
  readonly webhookPreviousSecret: { readonly secret: string; readonly untilMs: number } | null;
  readonly adminToken: string | null;
  readonly connectorToken: string | null;
  readonly demoSecret: string;
  readonly sessionIdleSec: number;
  /** How long a fan's unanswered wait keeps its session open (0: until a reply or a forced close). */
  readonly unansweredCloseSec: number;
  /** The converter model's lookback (machines/credit-models.ts). */
  readonly attributionLookbackSec: number;
  /** A chatter clocked in is clocked out automatically after this long without a reply of theirs on the account. */
  readonly clockIdleSec: number;
  /** A planned shift whose chatter has not clocked in this long after its start is a no-show. */
  readonly shiftNoShowGraceSec: number;
  /** Fans waiting on an account with nobody clocked in this long raise `coverage.gap`. */
  readonly coverageGapSec: number;
  /** How far behind a chat's latest record a record may arrive and still be placed exactly (less than the idle gap). */
  readonly allowedLatenessSec: number;
  /** Fault injection for tests: the processor waits this long between computing a batch and writing it (a hung store call). */
  readonly failpointStallBeforeWriteMs: number;
  readonly tickIntervalSec: number;
  readonly inboundPartitions: number;
  readonly topicPrefix: string;
  readonly inboundTopic: string | null;
  readonly kafkaSessionTimeoutMs: number;
  /** KAFKA_MEMBER_NAME: this worker's own name, kept across its restarts (adapters/log/kafka/predecessor.ts); null: none. */
  readonly kafkaMemberName: string | null;
  /** Records one consumer round takes at most (a fetch holds more when catching up; it is handled in rounds). */
  readonly kafkaRoundMaxRecords: number;
  /** What one consumer round should take at most: rounds are sized from the time per record measured; at most half the session timeout. */
  readonly kafkaRoundMaxMs: number;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** `auto`: readable lines on a terminal, JSON otherwise (a collector, a file, a pipe). */
  readonly logFormat: 'auto' | 'pretty' | 'json';
  readonly bodyLimitBytes: number;
  /** How long a request may take, from its first byte to the answer (slow clients are cut off). */
  readonly requestTimeoutMs: number;
  /** How long ingest waits for the log to take a record before answering 503. */
  readonly appendTimeoutMs: number;
  /** How long the first webhook of a quiet moment waits for others to share its log write (group commit). */
  readonly appendLingerMs: number;
  /** The embedded log's consumers: a pause after a small round that followed another (EmbeddedLog). */
  readonly roundLingerMs: number;
  readonly platformApiKey: string | null;
  readonly platformApiBaseUrl: string;
  readonly platformRateWindowSec: number;
  readonly backfillStaleSec: number;
  /** First-response SLA threshold used where a request does not name one. */
  readonly slaThresholdSec: number;
  /** IANA zone of the agency's day: where /api/stats' "today" and date-only report bounds start. */
  readonly reportTimezone: string;
  /** Live routes (stats, floor): identical answers within this many ms share one computation (0: none). */
  readonly liveCacheMs: number;
  readonly model: {
    readonly baseUrl: string | null;
    readonly apiKey: string | null;
    readonly name: string | null;
    readonly timeoutMs: number;
    readonly maxRetries: number;
    readonly concurrency: number;
  };
  readonly floorRateLimit: { readonly max: number; readonly windowSec: number };
  /** Whether reads need an access key (`required`) or are open to whoever reaches the port (`open`). */
  readonly readAuth: 'open' | 'required';
  /** Fastify's trustProxy: whether (or which) forwarded addresses count as the client's. */
  readonly trustProxy: boolean | number | readonly string[];
  /** Requests per window per key (or per client address without one): `max` for most routes, `reportMax` for the aggregate reports. */
  readonly rateLimit: { readonly max: number; readonly reportMax: number; readonly windowSec: number };
  /** Refused requests (a wrong credential, a bad webhook signature) per client address per rate-limit window before it gets 429 unread. */
  readonly refusalLimit: number;
  /** NODE_ENV, so demo ingest can tell development (unset, development, test) from the rest. */
  readonly environment: string;
  /** Largest response body an outbound call (platform API, model provider) reads. */
  readonly outboundMaxResponseBytes: number;
  /** Replication of the topics convops creates; null: 3, or the number of brokers when fewer. */
  readonly kafkaReplicationFactor: number | null;
  /** min.insync.replicas of the topics convops creates; null: 2, or the replication factor when lower. */
  readonly kafkaMinInsyncReplicas: number | null;
  readonly alertSweepSec: number;
  readonly vipSpendCents: number;
  readonly alertHooks: {
    /** Hooks may point at private, loopback and link-local addresses (a receiver inside the agency's network). */
    readonly allowPrivate: boolean;
    /** The delay before a failed delivery's second attempt; it doubles from there. */
    readonly retryBaseMs: number;
    /** A delivery is tried again for at least this long before it fails for good and disables its hook. */
    readonly retryWindowSec: number;
  };
}

export class ConfigError extends Error {
  constructor(readonly variable: string, reason: string) {
    super(`invalid configuration: ${variable} ${reason}`);
    this.name = 'ConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

/** A refused value as an error shows it: quoted, and cut short (an environment variable can hold megabytes). */
function shown(raw: string): string {
  return raw.length <= 120 ? `"${raw}"` : `"${raw.slice(0, 120)}…" (${raw.length} characters)`;
}

function str(env: Env, name: string): string | null {
  const v = env[name]?.trim();
  return v ? v : null;
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = str(env, name);
  if (raw === null) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be an integer, got ${shown(raw)}`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`);
  return n;
}

function memberName(env: Env): string | null {
  const raw = str(env, 'KAFKA_MEMBER_NAME');
  if (raw !== null && !/^[A-Za-z0-9._-]{1,100}$/.test(raw)) throw new ConfigError('KAFKA_MEMBER_NAME', `must be 1 to 100 letters, digits, dots, dashes or underscores, got ${shown(raw)}`);
  return raw;
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = str(env, name);
  if (raw === null) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got ${shown(raw)}`);
  return raw as T;
}

function timeZone(env: Env, name: string): string {
  const raw = str(env, name) ?? 'UTC';
  if (!isTimeZone(raw)) throw new ConfigError(name, `must be an IANA time zone name such as UTC or Europe/Berlin, got ${shown(raw)}`);
  return raw;
}

function token(env: Env, name: string): string | null {
  const t = str(env, name);
  if (t !== null && t.length < 16) throw new ConfigError(name, 'must be at least 16 characters');
  return t;
}

/** A rotation's overlap is for the switch at the platform and its retries: bounded, so an old secret cannot stay valid by oversight. */
export const MAX_SECRET_OVERLAP_DAYS = 30;

function previousWebhookSecret(env: Env): { secret: string; untilMs: number } | null {
  const secret = str(env, 'PLATFORMAPI_WEBHOOK_SECRET_PREVIOUS');
  const until = str(env, 'PLATFORMAPI_WEBHOOK_SECRET_PREVIOUS_UNTIL');
  if (secret === null) {
    if (until !== null) throw new ConfigError('PLATFORMAPI_WEBHOOK_SECRET_PREVIOUS_UNTIL', 'is set without PLATFORMAPI_WEBHOOK_SECRET_PREVIOUS');
    return null;
  }
  const current = str(env, 'PLATFORMAPI_WEBHOOK_SECRET');
  if (current === null) throw new ConfigError('PLATFORMAPI_WEBHOOK_SECRET_PREVIOUS', 'needs PLATFORMAPI_WEBHOOK_SECRET (the new secret) set beside it');
  if (current === secret) throw new ConfigError('PLATFORMAPI_WEBHOOK_SECRET_PREVIOUS', 'is the same as PLATFORMAPI_WEBHOOK_SECRET: set it to the secret being replaced');
  if (until === null) throw new ConfigError('PLATFORMAPI_WEBHOOK_SECRET_PREVIOUS_UNTIL', 'must be set with PLATFORMAPI_WEBHOOK_SECRET_PREVIOUS: the instant the previous secret stops being accepted, such as 2026-12-01T12:00:00Z');
  // An instant with its zone (Temporal refuses a day that does not exist rather than rolling it
  // over): the same setting means the same moment on every machine.
  let untilMs: number;
  try {
    untilMs = Temporal.Instant.from(until).epochMilliseconds;
  } catch {
    throw new ConfigError('PLATFORMAPI_WEBHOOK_SECRET_PREVIOUS_UNTIL', `must be an ISO 8601 instant with a zone, such as 2026-12-01T12:00:00Z, got ${shown(until)}`);
  }
  if (untilMs > Date.now() + MAX_SECRET_OVERLAP_DAYS * 86_400_000) {
    throw new ConfigError('PLATFORMAPI_WEBHOOK_SECRET_PREVIOUS_UNTIL', `must be at most ${MAX_SECRET_OVERLAP_DAYS} days from now (an overlap covers the switch at the platform and its retries), got ${until}`);
  }
  return { secret, untilMs };
}

function topicName(env: Env, name: string): string | null {
  const t = str(env, name);
  if (t !== null && !/^[A-Za-z0-9._-]{1,200}$/.test(t)) throw new ConfigError(name, 'may only contain letters, digits, dot, underscore and dash');
  return t;
}

function httpUrl(env: Env, name: string, fallback: string): string {
  const raw = str(env, name) ?? fallback;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be an http(s) URL, got ${shown(raw)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(name, `must be an http(s) URL, got ${shown(raw)}`);
  return trimTrailingSlashes(raw);
}

/** false (default), true, a hop count, or a comma-separated list of proxy addresses or CIDRs. */
function trustProxy(env: Env): boolean | number | readonly string[] {
  const raw = str(env, 'TRUST_PROXY');
  if (raw === null || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d{1,2}$/.test(raw)) return Number(raw);
  const parts = raw.split(',').map((p) => p.trim()).filter(Boolean);
  const valid = (p: string): boolean => {
    const [address = '', bits, ...rest] = p.split('/');
    return rest.length === 0 && isIP(address) !== 0 && (bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (isIP(address) === 4 ? 32 : 128)));
  };
  if (parts.length === 0 || !parts.every(valid)) {
    throw new ConfigError('TRUST_PROXY', `must be false, true, a hop count or a comma-separated list of proxy addresses/CIDRs, got ${shown(raw)}`);
  }
  return parts;
}

function optionalInt(env: Env, name: string, min: number, max: number): number | null {
  return str(env, name) === null ? null : int(env, name, 0, min, max);
}

function prefix(env: Env): string {
  const p = str(env, 'TOPIC_PREFIX') ?? '';
  if (!/^[A-Za-z0-9._-]{0,100}$/.test(p)) throw new ConfigError('TOPIC_PREFIX', 'may only contain letters, digits, dot, underscore and dash');
  // It prefixes the store's collections too, and MongoDB keeps these names for itself.
  if (p.startsWith('system.')) throw new ConfigError('TOPIC_PREFIX', 'may not start with "system." (MongoDB reserves those collection names)');
  return p;
}

function kafkaMinInsync(env: Env): number | null {
  const min = optionalInt(env, 'KAFKA_MIN_INSYNC_REPLICAS', 1, 32);
  const rf = optionalInt(env, 'KAFKA_REPLICATION_FACTOR', 1, 32);
  if (min !== null && rf !== null && min > rf) throw new ConfigError('KAFKA_MIN_INSYNC_REPLICAS', `must be at most KAFKA_REPLICATION_FACTOR (${rf}), got ${min}`);
  return min;
}

/**
 * A round longer than the rebalance allows (twice the session timeout) would miss every
 * rebalance; at most half the session timeout leaves room for the round under way, its commit
 * and the rejoin.
 */
function roundMaxMs(env: Env, sessionTimeoutMs: number): number {
  const limit = Math.floor(sessionTimeoutMs / 2);
  const ms = int(env, 'KAFKA_ROUND_MAX_MS', Math.min(DEFAULT_ROUND_LIMITS.maxMs, limit), 100, 150_000);
  if (ms > limit) throw new ConfigError('KAFKA_ROUND_MAX_MS', `must be at most half of KAFKA_SESSION_TIMEOUT_MS (${limit}), got ${ms}`);
  return ms;
}

export function loadConfig(env: Env = process.env): Config {
  const brokers = str(env, 'KAFKA_BROKERS');
  const kafkaBrokers = brokers ? brokers.split(',').map((b) => b.trim()).filter(Boolean) : null;
  if (kafkaBrokers?.some((b) => !/^[^\s:]+:\d{1,5}$/.test(b))) {
    throw new ConfigError('KAFKA_BROKERS', `must be a comma-separated list of host:port, got ${shown(brokers ?? '')}`);
  }
  const mongoUrl = str(env, 'MONGO_URL');
  if (mongoUrl && !/^mongodb(\+srv)?:\/\//.test(mongoUrl)) {
    throw new ConfigError('MONGO_URL', 'must start with mongodb:// or mongodb+srv://');
  }
  const startupRetryInitialMs = int(env, 'STARTUP_RETRY_INITIAL_MS', 500, 10, 600_000);
  const startupRetryMaxMs = int(env, 'STARTUP_RETRY_MAX_MS', 30_000, 10, 3_600_000);
  if (startupRetryMaxMs < startupRetryInitialMs) throw new ConfigError('STARTUP_RETRY_MAX_MS', `must be at least STARTUP_RETRY_INITIAL_MS (${startupRetryInitialMs})`);
  const rolesRaw = str(env, 'ROLES');
  const roles = new Set<Role>();
  for (const r of (rolesRaw ?? ALL_ROLES.join(',')).split(',').map((s) => s.trim()).filter(Boolean)) {
    if (!(ALL_ROLES as readonly string[]).includes(r)) throw new ConfigError('ROLES', `must list roles among ${ALL_ROLES.join(', ')}, got ${shown(r)}`);
    roles.add(r as Role);
  }
  if (roles.size === 0) throw new ConfigError('ROLES', 'must name at least one role');
  const adminToken = token(env, 'ADMIN_TOKEN');
  const kafkaSessionTimeoutMs = int(env, 'KAFKA_SESSION_TIMEOUT_MS', 30_000, 6_000, 300_000);
  const sessionIdleSec = int(env, 'SESSION_IDLE_SEC', 1800, 1, 30 * 86400);
  // Shorter than the idle gap, so a record within it can never bridge two sessions.
  const allowedLatenessSec = int(env, 'ALLOWED_LATENESS_SEC', Math.min(120, Math.floor(sessionIdleSec / 2)), 0, 7 * 86400);
  if (allowedLatenessSec >= sessionIdleSec) throw new ConfigError('ALLOWED_LATENESS_SEC', `must be less than SESSION_IDLE_SEC (${sessionIdleSec})`);
  // Without a secret anyone who reaches the port can post webhooks: forged revenue, and
  // forged message ids that make the real ones look like duplicates. Fine on a laptop only.
  if (str(env, 'NODE_ENV') === 'production' && roles.has('api') && str(env, 'PLATFORMAPI_WEBHOOK_SECRET') === null) {
    throw new ConfigError('PLATFORMAPI_WEBHOOK_SECRET', 'must be set when NODE_ENV=production and this process serves the API (unsigned webhooks would let anyone write messages and revenue)');
  }
  return {
    port: int(env, 'PORT', 3000, 0, 65535),
    opsPort: int(env, 'OPS_PORT', 9464, 0, 65535),
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', 25_000, 1000, 600_000),
    startupRetryInitialMs,
    startupRetryMaxMs,
    // Loopback unless asked: a fresh start has open reads and unsigned webhooks (the image and compose set HOST).
    host: str(env, 'HOST') ?? '127.0.0.1',
    dataDir: str(env, 'DATA_DIR') ?? './data',
    backupDir: str(env, 'BACKUP_DIR') ?? join(str(env, 'DATA_DIR') ?? './data', 'backups'),
    kafkaBrokers,
    mongoUrl,
    mongoDb: str(env, 'MONGO_DB') ?? 'convops',
    roles,
    webhookSecret: str(env, 'PLATFORMAPI_WEBHOOK_SECRET'),
    webhookPreviousSecret: previousWebhookSecret(env),
    adminToken,
    connectorToken: token(env, 'CONNECTOR_TOKEN'),
    demoSecret: str(env, 'DEMO_SECRET') ?? DEFAULT_DEMO_SECRET,
    sessionIdleSec,
    // A day: a fan unanswered overnight is still in the inbox in the morning; at most a year.
    unansweredCloseSec: int(env, 'UNANSWERED_CLOSE_SEC', 86_400, 0, 365 * 86_400),
    attributionLookbackSec: int(env, 'ATTRIBUTION_LOOKBACK_SEC', 86_400, 60, 30 * 86_400),
    clockIdleSec: int(env, 'CLOCK_IDLE_SEC', 1800, 60, 86_400),
    shiftNoShowGraceSec: int(env, 'SHIFT_NO_SHOW_GRACE_SEC', 600, 0, 86_400),
    coverageGapSec: int(env, 'COVERAGE_GAP_SEC', 300, 0, 86_400),
    allowedLatenessSec,
    failpointStallBeforeWriteMs: int(env, 'CONVOPS_FAILPOINT_STALL_BEFORE_WRITE_MS', 0, 0, 600_000),
    tickIntervalSec: int(env, 'TICK_INTERVAL_SEC', 30, 0, 86400),
    inboundPartitions: int(env, 'INBOUND_PARTITIONS', 12, 1, 1024),
    topicPrefix: prefix(env),
    inboundTopic: topicName(env, 'INBOUND_TOPIC'),
    kafkaSessionTimeoutMs,
    kafkaMemberName: memberName(env),
    kafkaRoundMaxRecords: int(env, 'KAFKA_ROUND_MAX_RECORDS', DEFAULT_ROUND_LIMITS.maxRecords, 1, 1_000_000),
    kafkaRoundMaxMs: roundMaxMs(env, kafkaSessionTimeoutMs),
    logLevel: oneOf(env, 'LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
    logFormat: oneOf(env, 'LOG_FORMAT', ['auto', 'pretty', 'json'] as const, 'auto'),
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 1_048_576, 1024, 64 * 1_048_576),
    requestTimeoutMs: int(env, 'REQUEST_TIMEOUT_MS', 30_000, 1000, 600_000),
    appendTimeoutMs: int(env, 'APPEND_TIMEOUT_MS', 5_000, 100, 120_000),
    appendLingerMs: int(env, 'APPEND_LINGER_MS', 2, 0, 50),
    roundLingerMs: int(env, 'ROUND_LINGER_MS', 5, 0, 50),
    platformApiKey: str(env, 'PLATFORMAPI_KEY'),
    platformApiBaseUrl: httpUrl(env, 'PLATFORMAPI_BASE_URL', 'https://app.onlyfansapi.com'),
    platformRateWindowSec: int(env, 'PLATFORMAPI_RATE_WINDOW_SEC', 60, 1, 3600),
    backfillStaleSec: int(env, 'BACKFILL_STALE_SEC', 30, 1, 3600),
    slaThresholdSec: int(env, 'SLA_THRESHOLD_SEC', 300, 1, 86400),
    reportTimezone: timeZone(env, 'REPORT_TIMEZONE'),
    liveCacheMs: int(env, 'LIVE_CACHE_MS', 1000, 0, 60_000),
    model: {
      baseUrl: str(env, 'MODEL_BASE_URL') === null ? null : httpUrl(env, 'MODEL_BASE_URL', ''),
      apiKey: str(env, 'MODEL_API_KEY'),
      name: str(env, 'MODEL_NAME'),
      timeoutMs: int(env, 'MODEL_TIMEOUT_MS', 15_000, 100, 300_000),
      maxRetries: int(env, 'MODEL_MAX_RETRIES', 2, 0, 10),
      concurrency: int(env, 'MODEL_CONCURRENCY', 2, 1, 64),
    },
    floorRateLimit: { max: int(env, 'FLOOR_RATE_LIMIT_MAX', 60, 1, 1_000_000), windowSec: int(env, 'FLOOR_RATE_LIMIT_WINDOW_SEC', 60, 1, 86400) },
    readAuth: oneOf(env, 'READ_AUTH', ['open', 'required'] as const, 'open'),
    eventDigests: ((mode) => mode === 'on' || (mode === 'auto' && mongoUrl !== null))(oneOf(env, 'EVENT_DIGESTS', ['auto', 'on', 'off'] as const, 'auto')),
    eventDigestsKeepDays: int(env, 'EVENT_DIGESTS_KEEP_DAYS', 30, 1, 3650),
    trustProxy: trustProxy(env),
    rateLimit: {
      max: int(env, 'RATE_LIMIT_MAX', 600, 1, 10_000_000),
      reportMax: int(env, 'REPORT_RATE_LIMIT_MAX', 120, 1, 10_000_000),
      windowSec: int(env, 'RATE_LIMIT_WINDOW_SEC', 60, 1, 86400),
    },
    refusalLimit: int(env, 'REFUSAL_LIMIT_MAX', 60, 1, 10_000_000),
    environment: str(env, 'NODE_ENV') ?? 'development',
    outboundMaxResponseBytes: int(env, 'OUTBOUND_MAX_RESPONSE_BYTES', 16 * 1_048_576, 1024, 1024 * 1_048_576),
    kafkaReplicationFactor: optionalInt(env, 'KAFKA_REPLICATION_FACTOR', 1, 32),
    kafkaMinInsyncReplicas: kafkaMinInsync(env),
    alertSweepSec: int(env, 'ALERT_SWEEP_SEC', 30, 0, 86400),
    vipSpendCents: int(env, 'VIP_SPEND_DOLLARS', 100, 0, 10_000_000) * 100,
    alertHooks: {
      allowPrivate: oneOf(env, 'ALERT_HOOK_ALLOW_PRIVATE', ['true', 'false'] as const, 'false') === 'true',
      retryBaseMs: int(env, 'ALERT_HOOK_RETRY_BASE_MS', 5_000, 10, 600_000),
      retryWindowSec: int(env, 'ALERT_HOOK_RETRY_WINDOW_SEC', 3_600, 3_600, 7 * 86_400),
    },
  };
}
