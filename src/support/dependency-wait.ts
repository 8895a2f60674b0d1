// Start-up that waits for the store and the broker instead of exiting: each is tried until it
// answers, with exponential backoff and jitter, while the process serves its probes (liveness
// up, readiness "not ready" naming what it waits for). What cannot get better by waiting (a
// malformed URL, refused credentials, topics that do not fit the settings) still ends the start.
import type { Logger } from './logger.js';

export interface BackoffSettings {
  /** Delay before the second attempt (STARTUP_RETRY_INITIAL_MS). */
  readonly initialMs: number;
  /** Longest delay between attempts (STARTUP_RETRY_MAX_MS). */
  readonly maxMs: number;
}

/**
 * The delay after failed attempt `attempt` (1-based): initialMs doubled each attempt, capped
 * at maxMs, then a random half of it taken off ("equal jitter"), so many processes restarted
 * together do not knock on a recovering server in step, and no delay is shorter than half.
 */
export function backoffDelay(attempt: number, settings: BackoffSettings, random: () => number = Math.random): number {
  const ceiling = Math.min(settings.maxMs, settings.initialMs * 2 ** Math.min(Math.max(attempt - 1, 0), 30));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** The start was called off (SIGTERM, SIGINT) while it waited; nothing is left running. */
export class StartupAbortedError extends Error {
  constructor() {
    super('start-up called off while waiting for dependencies');
    this.name = 'StartupAbortedError';
  }
}

/** How a failed attempt is taken: `retry` for "cannot reach now", `fatal` for "will not work however long we wait". */
export type Verdict = 'retry' | 'fatal';

export type DependencyName = 'store' | 'log' | 'consumers';

interface WaitState {
  readonly since: number;
  attempt: number;
  lastError: string | null;
  nextRetryAt: number | null;
}

/** What the process is waiting for right now, for readiness and logs. */
export class StartupProgress {
  private readonly waits = new Map<DependencyName, WaitState>();
  private readonly targets = new Map<DependencyName, string>();

  constructor(private readonly now: () => number = Date.now) {}

  begin(dep: DependencyName, target: string): void {
    this.targets.set(dep, target);
    this.waits.set(dep, { since: this.now(), attempt: 1, lastError: null, nextRetryAt: null });
  }

  failed(dep: DependencyName, attempt: number, error: string, retryInMs: number): void {
    const w = this.waits.get(dep);
    if (!w) return;
    w.attempt = attempt;
    w.lastError = error;
    w.nextRetryAt = this.now() + retryInMs;
  }

  retrying(dep: DependencyName, attempt: number): void {
    const w = this.waits.get(dep);
    if (!w) return;
    w.attempt = attempt;
    w.nextRetryAt = null;
  }

  done(dep: DependencyName): void {
    this.waits.delete(dep);
  }

  /** One reason per dependency still awaited, in words an operator can act on. */
  reasons(): string[] {
    const out: string[] = [];
    const now = this.now();
    for (const [dep, w] of this.waits) {
      const target = this.targets.get(dep) ?? dep;
      const waited = `${Math.round((now - w.since) / 1000)} s`;
      const what = dep === 'consumers' ? 'starting the consumers' : `waiting for ${target}`;
      const step = w.nextRetryAt !== null
        ? `attempt ${w.attempt} failed, next in ${(Math.max(0, w.nextRetryAt - now) / 1000).toFixed(1)} s`
        : `attempt ${w.attempt} under way`;
      out.push(`${dep}: ${what} (${step}, waiting ${waited})${w.lastError ? `: ${w.lastError}` : ''}`);
    }
    return out;
  }
}

export interface WaitOptions<T> {
  readonly dependency: DependencyName;
  /** Where, for the logs and readiness: "MongoDB at 127.0.0.1:27017", without credentials. */
  readonly target: string;
  readonly attempt: () => Promise<T>;
  readonly classify: (err: unknown) => Verdict;
  readonly backoff: BackoffSettings;
  readonly logger: Logger;
  readonly progress: StartupProgress;
  readonly signal?: AbortSignal | undefined;
  /** Undoes what a failed attempt left behind (a half-connected client); runs before the next one. */
  readonly cleanup?: () => Promise<void>;
  readonly random?: () => number;
}

/**
 * `attempt()` until it resolves; a failure `classify` calls fatal is thrown as is. An abort
 * ends the wait at once (an attempt still running is left to finish or fail on its own).
 */
export async function waitForDependency<T>(o: WaitOptions<T>): Promise<T> {
  const started = Date.now();
  o.progress.begin(o.dependency, o.target);
  for (let attempt = 1; ; attempt++) {
    if (o.signal?.aborted) throw new StartupAbortedError();
    o.progress.retrying(o.dependency, attempt);
    let err: unknown;
    try {
      const value = await abortable(o.attempt(), o.signal);
      o.progress.done(o.dependency);
      if (attempt > 1) o.logger.info({ dependency: o.dependency, target: o.target, attempts: attempt, waitedMs: Date.now() - started }, `${o.dependency} reachable; start-up goes on`);
      return value;
    } catch (e) {
      if (e instanceof StartupAbortedError) throw e;
      err = e;
    }
    if (o.classify(err) === 'fatal') {
      o.progress.done(o.dependency);
      throw err;
    }
    await o.cleanup?.().catch(() => undefined);
    const delayMs = backoffDelay(attempt, o.backoff, o.random);
    const message = err instanceof Error ? err.message : String(err);
    o.progress.failed(o.dependency, attempt, message, delayMs);
    o.logger.warn({ dependency: o.dependency, target: o.target, attempt, nextRetryMs: delayMs, waitedMs: Date.now() - started, reason: message },
      `waiting for the ${o.dependency === 'log' ? 'log (broker)' : o.dependency}: attempt ${attempt} failed, next in ${(delayMs / 1000).toFixed(1)} s`);
    await sleep(delayMs, o.signal);
  }
}

function abortable<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p;
  if (signal.aborted) {
    p.catch(() => undefined);
    return Promise.reject(new StartupAbortedError());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new StartupAbortedError());
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => { signal.removeEventListener('abort', onAbort); resolve(v); },
      (e: unknown) => { signal.removeEventListener('abort', onAbort); reject(e as Error); },
    );
  });
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.reject(new StartupAbortedError());
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new StartupAbortedError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Kafka failures that waiting cannot cure: refused credentials or permissions. Everything else from kafkajs is "not reachable yet". */
export function classifyKafkaStart(err: unknown): Verdict {
  if (!(err instanceof Error)) return 'fatal';
  if (!err.name.startsWith('KafkaJS')) return 'fatal';
  if (err.name === 'KafkaJSSASLAuthenticationError') return 'fatal';
  const type = (err as { type?: unknown }).type;
  if (typeof type === 'string' && /AUTHORIZATION_FAILED|SASL_AUTHENTICATION_FAILED|UNSUPPORTED_SASL/.test(type)) return 'fatal';
  return 'retry';
}

/** The hosts of a Mongo URL, without user, password or options: safe for logs. */
export function mongoTarget(url: string): string {
  const m = /^mongodb(\+srv)?:\/\/(?:[^@/]*@)?([^/?]*)/.exec(url);
  return `MongoDB at ${m?.[2] || 'MONGO_URL'}`;
}
