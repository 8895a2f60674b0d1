// The real Fastify app over the real embedded store and log in a temporary folder, with the
// processor, projector and intelligence running in-process, but no port: route tests call it
// through Fastify's inject(). With `driven`, no consumer runs: the same stages are driven by
// hand (stage-driver.ts) when a test asks for the pipeline to settle, so a route test gets the
// pipeline's read models without its loops, polls and waits. All knowledge of how the service is wired for a test lives here,
// so that when the composition root changes only this file follows it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions } from 'fastify';
import type { Log } from '../../src/adapters/log/log.js';
import type { DocumentStore } from '../../src/adapters/store/store.js';
import { loadConfig, type Config } from '../../src/config.js';
import { signBody } from '../../src/ingest/signature.js';
import { assemble, failpointsFrom } from '../../src/composition.js';
import { buildServer } from '../../src/http/server.js';
import type { Metrics } from '../../src/observability/metrics.js';
import type { PipelineControl } from '../../src/pipeline-control.js';
import { createLogger } from '../../src/support/logger.js';
import { tickRecords } from '../../src/processor/ticker.js';
import { topology } from '../../src/topology.js';
import { ContractCheck } from './contract-check.js';
import { lapsedSwept, settledHash } from './read-models.js';
import { kafkaBrokers, mongoUrl, unitTier } from './test-servers.js';
import { uniqueName } from './wait.js';
import { StageDriver } from './stage-driver.js';
import { buildStages } from '../../src/pipeline-stages.js';
import { SetAsideTally } from '../../src/pipeline/set-aside.js';

export interface Answer<T = unknown> {
  readonly status: number;
  readonly headers: Record<string, string | string[] | number | undefined>;
  /** Parsed JSON when the answer is JSON, else the text. */
  readonly body: T;
  readonly text: string;
}

/** An answer read as it comes: for event streams, which never end (inject() alone waits for the end). */
export interface OpenStream {
  readonly status: number;
  readonly headers: Record<string, string | string[] | number | undefined>;
  /** Reads on until `pattern` matches the body so far; fails if the answer ends or `timeoutMs` passes first. */
  until(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** The whole body of an answer that ends. */
  text(timeoutMs?: number): Promise<string>;
  /** Hangs up: the server sees the connection close, as when a browser leaves. */
  close(): void;
}

export interface CallOptions {
  readonly headers?: Record<string, string>;
  /** Sent as JSON unless a string (sent as is, with a JSON content type unless one is given). */
  readonly body?: unknown;
  /** `Authorization: Bearer <token>`. */
  readonly token?: string;
}

export interface Harness {
  readonly app: FastifyInstance;
  readonly store: DocumentStore;
  readonly log: Log;
  readonly config: Config;
  readonly pipeline: PipelineControl;
  readonly metrics: Metrics;
  inject: FastifyInstance['inject'];
  /** One request through inject(), its answer parsed. */
  call<T = any>(method: string, path: string, options?: CallOptions): Promise<Answer<T>>;
  /** fetch() against the app, through inject(): for tests written against fetch's Response (no streaming). */
  fetch(path: string, init?: { method?: string; headers?: Record<string, string>; body?: string | Uint8Array }): Promise<Response>;
  /**
   * One request through inject() that comes back as soon as the status and headers are written
   * (light-my-request's payloadAsStream), its body read as it comes: for the floor's event stream.
   */
  stream(path: string, options?: CallOptions & { readonly method?: string }): Promise<OpenStream>;
  /** Posts a webhook as the platform does: raw body, idempotency key, signed when a secret is given. */
  webhook(raw: string, options?: { secret?: string; signature?: string; key?: string }): Promise<Answer<any>>;
  /**
   * Delivers webhooks as the platform does: one after another, each again after a 503 (the log
   * did not store it in time on a busy machine) until it is stored; any other refusal fails.
   */
  deliver(deliveries: readonly { key: string; body: string }[], options?: { secret?: string }): Promise<void>;
  /**
   * Waits until processor and projector have consumed everything appended, and the read models
   * hold still; driven, runs the stages over everything appended.
   */
  settled(timeoutMs?: number): Promise<void>;
  /** Appends a clock tick at `at` to every inbound partition, as the ticker does: chats idle by `at` less the lateness close. */
  tick(at: number): Promise<void>;
  /** Closes the app, the roles, the log and the store, and removes the folder. */
  stop(): Promise<void>;
}

/**
 * Settings for a test app: ticks off (platform sample times lie months back, so any tick would
 * close their sessions), rate limits and the live routes' shared answers off (tests poll far
 * faster than a person and read right after a change; test/http/rate-limits.test.ts turns them
 * on). Anything in `env` wins.
 */
export const TEST_ENV: Readonly<Record<string, string>> = {
  LOG_LEVEL: 'error', INBOUND_PARTITIONS: '4', TICK_INTERVAL_SEC: '0',
  RATE_LIMIT_MAX: '10000000', REPORT_RATE_LIMIT_MAX: '10000000', REFUSAL_LIMIT_MAX: '10000000', LIVE_CACHE_MS: '0',
};

/**
 * Settings that put the store on the test Mongo-wire server (a database of its own) while the
 * log stays embedded: for routes whose queries the store runs, so they are read by MongoDB too.
 */
export async function mongoStoreEnv(): Promise<Record<string, string>> {
  return { MONGO_URL: await mongoUrl(), MONGO_DB: uniqueName('convops_inject').replace(/-/g, '_') };
}

/**
 * Settings that put the log on the test Kafka (topics of their own) and the store on the test
 * Mongo-wire server (a database of its own): the kafka+mongo deployment, still without a port.
 */
export async function kafkaMongoEnv(): Promise<Record<string, string>> {
  return { ...await mongoStoreEnv(), KAFKA_BROKERS: await kafkaBrokers(), TOPIC_PREFIX: `${uniqueName('inject')}.` };
}

/** The stores a route test runs on: the Mongo-wire one too, except in the unit tier (no Java). */
export const STORE_KINDS: readonly ('embedded' | 'mongo')[] = unitTier() ? ['embedded'] : ['embedded', 'mongo'];

export interface HarnessOptions {
  /**
   * No consumer runs (the API role only); settled() drives the processor, projector and
   * intelligence stages over what the log holds. For route tests, which need the read models
   * and not the running pipeline (its purge, replay and reset are refused: no roles run them).
   */
  readonly driven?: boolean;
}

export async function startHarness(env: Record<string, string> = {}, options: HarnessOptions = {}): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'convops-inject-'));
  const wanted = loadConfig({ ...TEST_ENV, DATA_DIR: dir, ...env });
  // Driven, the process runs the API only; the stages the settings name are driven by hand.
  const config = options.driven ? { ...wanted, roles: new Set(['api'] as const) } : wanted;
  const logger = createLogger(config.logLevel);
  const assembled = await assemble(config, logger, failpointsFrom(env));
  const { services } = assembled;
  const { log, store, pipeline, metrics } = services;
  const built = options.driven
    ? buildStages({
      config: wanted, log, store, topology: services.topology, logger,
      intelligence: services.intelligence.intelligence, setAsideTally: new SetAsideTally(), failpoints: failpointsFrom(env),
    })
    : null;
  const driver = built ? new StageDriver(log, [built.processor, built.projector, built.intelligence].filter((s) => s !== null)) : null;
  const app = await buildServer(services);
  const contract = new ContractCheck(app);
  await app.ready();

  const requestOf = (options: CallOptions): { headers: Record<string, string>; payload: string | undefined } => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    let payload: string | undefined;
    if (options.body !== undefined) {
      payload = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    return { headers, payload };
  };

  const call = async <T>(method: string, path: string, options: CallOptions = {}): Promise<Answer<T>> => {
    const { headers, payload } = requestOf(options);
    const res = await app.inject({ method: method as InjectOptions['method'], url: path, headers, payload });
    contract.assertKept();
    const text = res.body;
    const json = /^application\/(?:[\w.-]+\+)?json\b/.test(String(res.headers['content-type'] ?? '')) && text.length > 0;
    return { status: res.statusCode, headers: res.headers, body: (json ? JSON.parse(text) : text) as T, text };
  };

  const fetchVia = async (path: string, init: { method?: string; headers?: Record<string, string>; body?: string | Uint8Array } = {}): Promise<Response> => {
    const payload = init.body instanceof Uint8Array ? Buffer.from(init.body.buffer, init.body.byteOffset, init.body.byteLength) : init.body;
    const res = await app.inject({ method: (init.method ?? 'GET') as InjectOptions['method'], url: path, headers: init.headers, payload });
    const headers = new Headers();
    for (const [k, v] of Object.entries(res.headers)) for (const one of Array.isArray(v) ? v : v === undefined ? [] : [String(v)]) headers.append(k, one);
    const empty = res.statusCode === 204 || res.statusCode === 304 || init.method === 'HEAD';
    return new Response(empty ? null : new Uint8Array(res.rawPayload), { status: res.statusCode, headers });
  };

  const stream = async (path: string, options: CallOptions & { readonly method?: string } = {}): Promise<OpenStream> => {
    const { headers, payload } = requestOf(options);
    const res = await app.inject({ method: (options.method ?? 'GET') as InjectOptions['method'], url: path, headers, payload, payloadAsStream: true });
    const body = res.stream();
    const decoder = new TextDecoder();
    let text = '';
    let ended = false;
    let failed: unknown = null;
    const waiting = new Set<() => void>();
    const wake = (): void => { for (const w of [...waiting]) w(); };
    body.on('data', (chunk: Buffer) => { text += decoder.decode(chunk, { stream: true }); wake(); });
    body.on('end', () => { text += decoder.decode(); ended = true; wake(); });
    body.on('error', (err) => { failed = err; ended = true; wake(); });
    /** Resolves when more of the body comes, it ends, or the deadline passes. */
    const change = (deadline: number) => new Promise<void>((resolve) => {
      const done = (): void => { clearTimeout(timer); waiting.delete(done); resolve(); };
      const timer = setTimeout(done, Math.max(0, deadline - Date.now()));
      waiting.add(done);
    });
    const until = async (pattern: RegExp, timeoutMs = 10_000): Promise<RegExpExecArray> => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const m = pattern.exec(text);
        if (m) return m;
        if (ended) throw new Error(`${path}: the answer ended before ${String(pattern)}${failed ? ` (${String(failed)})` : ''}: ${text.slice(0, 500)}`);
        if (Date.now() >= deadline) throw new Error(`${path}: no ${String(pattern)} within ${timeoutMs} ms: ${text.slice(0, 500)}`);
        await change(deadline);
      }
    };
    return {
      status: res.statusCode,
      headers: res.headers,
      until,
      async text(timeoutMs = 10_000) {
        const deadline = Date.now() + timeoutMs;
        while (!ended) {
          if (Date.now() >= deadline) throw new Error(`${path}: the answer did not end within ${timeoutMs} ms: ${text.slice(0, 500)}`);
          await change(deadline);
        }
        if (failed) throw new Error(`${path}: the answer failed: ${String(failed)}`);
        return text;
      },
      close() {
        body.destroy();
        // The stand-in response emits 'close', which the route takes as the caller leaving.
        res.raw.res.destroy();
      },
    };
  };

  const webhook = (raw: string, options: { secret?: string; signature?: string; key?: string } = {}): Promise<Answer<any>> => {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'OnlyFansAPI.com/Webhook-Client' };
    const signature = options.signature ?? (options.secret ? signBody(options.secret, raw) : undefined);
    if (signature) headers.signature = signature;
    if (options.key) headers['x-ofapi-idempotency-key'] = options.key;
    return call('POST', '/webhooks/platform', { headers, body: raw });
  };

  const deliver = async (deliveries: readonly { key: string; body: string }[], options: { secret?: string } = {}): Promise<void> => {
    for (const d of deliveries) {
      for (let tries = 1; ; tries++) {
        const res = await webhook(d.body, { key: d.key, secret: options.secret });
        if (res.status === 200) break;
        if (res.status !== 503 || tries === 20) throw new Error(`delivery ${d.key}: ${res.status} ${res.text}`);
        await new Promise((r) => setTimeout(r, 100 * tries));
      }
    }
  };

  let stopped: Promise<void> | null = null;
  return {
    app, store, log, config, pipeline, metrics,
    inject: app.inject.bind(app) as FastifyInstance['inject'],
    call,
    fetch: fetchVia,
    stream,
    webhook,
    deliver,
    async tick(at: number) {
      const inbound = topology(config.topicPrefix, config.inboundTopic ?? undefined).inbound;
      await log.append(inbound, tickRecords(await log.partitionCount(inbound), at));
    },
    async settled(timeoutMs = 60_000) {
      if (driver) return driver.drive();
      await settledHash(async () => (await call('GET', '/api/health')).body, store, timeoutMs, 50);
      // The projector also closes what lapsed, between its rounds (embedded store only).
      if (store.kind === 'embedded' && config.roles.has('projector')) await lapsedSwept(store, timeoutMs);
    },
    stop() {
      stopped ??= (async () => {
        try {
          await app.close();
          await built?.intelligence?.stop();
          await assembled.stop();
          rmSync(dir, { recursive: true, force: true });
        } finally {
          // Answers to app.inject() called directly are held to the contract here, even when closing failed.
          contract.assertKept();
        }
      })();
      return stopped;
    },
  };
}
