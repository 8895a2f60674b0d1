// The retry helper start-up waits with: backoff bounds, retry versus fatal, abort, what
// readiness says meanwhile; and how the Mongo adapter's connect sorts its failures.
import { describe, expect, it } from 'vitest';
import { MongoStore } from '../../src/adapters/store/mongo-store.js';
import { StoreUnavailableError } from '../../src/adapters/store/store.js';
import { ConfigError } from '../../src/config.js';
import {
  backoffDelay, classifyKafkaStart, mongoTarget, StartupAbortedError, StartupProgress, waitForDependency,
} from '../../src/support/dependency-wait.js';
import { createLogger } from '../../src/support/logger.js';
import { freePort } from '../infra/servers.js';

const logger = createLogger('silent');

describe('backoffDelay', () => {
  const settings = { initialMs: 500, maxMs: 30_000 };

  it('doubles from the first delay, between half and all of it, and stops growing at the cap', () => {
    expect(backoffDelay(1, settings, () => 1)).toBe(500);
    expect(backoffDelay(1, settings, () => 0)).toBe(250);
    expect(backoffDelay(2, settings, () => 1)).toBe(1000);
    expect(backoffDelay(4, settings, () => 1)).toBe(4000);
    expect(backoffDelay(7, settings, () => 1)).toBe(30_000);
    expect(backoffDelay(1000, settings, () => 1)).toBe(30_000);
    expect(backoffDelay(1000, settings, () => 0)).toBe(15_000);
  });

  it('spreads processes that fail together', () => {
    const delays = new Set(Array.from({ length: 50 }, () => backoffDelay(5, settings)));
    expect(delays.size).toBeGreaterThan(10);
    for (const d of delays) {
      expect(d).toBeGreaterThanOrEqual(4000);
      expect(d).toBeLessThanOrEqual(8000);
    }
  });
});

describe('waitForDependency', () => {
  const fast = { initialMs: 10, maxMs: 40 };

  it('tries again until the dependency answers, saying meanwhile what it waits for', async () => {
    const progress = new StartupProgress();
    const seen: string[][] = [];
    let calls = 0;
    const value = await waitForDependency({
      dependency: 'store', target: 'MongoDB at db:27017', backoff: fast, logger, progress,
      attempt: async () => {
        calls++;
        seen.push(progress.reasons());
        if (calls < 4) throw new StoreUnavailableError('connect ECONNREFUSED');
        return 'connected';
      },
      classify: (err) => (err instanceof StoreUnavailableError ? 'retry' : 'fatal'),
    });
    expect(value).toBe('connected');
    expect(calls).toBe(4);
    expect(seen[0]?.[0]).toMatch(/^store: waiting for MongoDB at db:27017 \(attempt 1 under way/);
    expect(seen[3]?.[0]).toMatch(/^store: waiting for MongoDB at db:27017 \(attempt 4 under way.*ECONNREFUSED/);
    expect(progress.reasons()).toEqual([]);
  });

  it('gives up at once on a failure that waiting cannot cure', async () => {
    let calls = 0;
    const progress = new StartupProgress();
    await expect(waitForDependency({
      dependency: 'store', target: 'x', backoff: fast, logger, progress,
      attempt: async () => { calls++; throw new ConfigError('MONGO_URL', 'cannot be used'); },
      classify: (err) => (err instanceof StoreUnavailableError ? 'retry' : 'fatal'),
    })).rejects.toBeInstanceOf(ConfigError);
    expect(calls).toBe(1);
    expect(progress.reasons()).toEqual([]);
  });

  it('ends at once when called off, during an attempt or between two', async () => {
    const between = new AbortController();
    const progress = new StartupProgress();
    const waiting = waitForDependency({
      dependency: 'log', target: 'Kafka at k:9092', backoff: { initialMs: 60_000, maxMs: 60_000 }, logger, progress, signal: between.signal,
      attempt: async () => { throw Object.assign(new Error('Connection error'), { name: 'KafkaJSConnectionError' }); },
      classify: classifyKafkaStart,
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(progress.reasons()[0]).toMatch(/^log: waiting for Kafka at k:9092 \(attempt 1 failed, next in \d+\.\d s.*Connection error/);
    const t0 = Date.now();
    between.abort();
    await expect(waiting).rejects.toBeInstanceOf(StartupAbortedError);
    expect(Date.now() - t0).toBeLessThan(100);

    const during = new AbortController();
    const hung = waitForDependency({
      dependency: 'store', target: 'x', backoff: fast, logger, progress: new StartupProgress(), signal: during.signal,
      attempt: () => new Promise<never>(() => undefined),
      classify: () => 'retry',
    });
    during.abort();
    await expect(hung).rejects.toBeInstanceOf(StartupAbortedError);
  });
});

describe('what start-up retries', () => {
  it('Kafka: unreachable is retried; refused credentials and non-Kafka failures are not', () => {
    const kafkaError = (name: string, extra: Record<string, unknown> = {}) => Object.assign(new Error(name), { name, ...extra });
    expect(classifyKafkaStart(kafkaError('KafkaJSConnectionError'))).toBe('retry');
    expect(classifyKafkaStart(kafkaError('KafkaJSNumberOfRetriesExceeded'))).toBe('retry');
    expect(classifyKafkaStart(kafkaError('KafkaJSProtocolError', { type: 'LEADER_NOT_AVAILABLE' }))).toBe('retry');
    expect(classifyKafkaStart(kafkaError('KafkaJSSASLAuthenticationError'))).toBe('fatal');
    expect(classifyKafkaStart(kafkaError('KafkaJSProtocolError', { type: 'TOPIC_AUTHORIZATION_FAILED' }))).toBe('fatal');
    expect(classifyKafkaStart(new ConfigError('KAFKA_REPLICATION_FACTOR', 'too high'))).toBe('fatal');
  });

  it('Mongo URLs are named without their credentials', () => {
    expect(mongoTarget('mongodb://user:secret@db1:27017,db2:27017/convops?replicaSet=rs0')).toBe('MongoDB at db1:27017,db2:27017');
    expect(mongoTarget('mongodb+srv://u:p@cluster.example.net/')).toBe('MongoDB at cluster.example.net');
  });

  it('MongoStore.connect: nothing listening is "unavailable"; a malformed URL is a configuration error', async () => {
    const port = await freePort();
    const t0 = Date.now();
    await expect(MongoStore.connect(`mongodb://127.0.0.1:${port}/?serverSelectionTimeoutMS=200`, 'x')).rejects.toBeInstanceOf(StoreUnavailableError);
    // MONGO_URL's own serverSelectionTimeoutMS bounds a try (5 s otherwise).
    expect(Date.now() - t0).toBeLessThan(3000);
    const bad = MongoStore.connect(`mongodb://127.0.0.1:${port}/?serverSelectionTimeoutMS=soon`, 'x');
    await expect(bad).rejects.toBeInstanceOf(ConfigError);
    await expect(bad).rejects.toThrow(/MONGO_URL/);
  });
});
