// The log on Apache Kafka through kafkajs 2.2.4.
import kafkajs, { Kafka, logLevel, Partitioners, type Admin, type logCreator, type Producer, type Consumer as KConsumer, type IHeaders } from 'kafkajs';
import type {
  AppendRecord, AppendResult, ConsumeOptions, Consumer, GroupPosition, Log, LogRecord, TopicSpec,
} from './log.js';
import { TopicNotFoundError } from './log.js';
import {
  compareDurability, durabilityMisfit, resolveDurability, weakDurabilityWarning,
  type Durability, type DurabilityShortfall, type DurabilitySettings, type TopicDurability,
} from './durability.js';
import type { ConfigError } from '../../config.js';
import { partitionForKey } from './partitioner.js';
import type { Logger } from '../../support/logger.js';

export interface KafkaLogOptions {
  readonly brokers: readonly string[];
  readonly clientId?: string;
  readonly logger?: Logger;
  /** How soon the group notices a consumer that died without leaving. */
  readonly sessionTimeoutMs?: number;
  /**
   * Replication and min.insync.replicas of the topics this log creates (KAFKA_REPLICATION_FACTOR,
   * KAFKA_MIN_INSYNC_REPLICAS); unset or null: 3 and 2, lowered to what the cluster can hold.
   */
  readonly durability?: DurabilitySettings;
}

// kafkajs reports retried, transient failures (leader moves, coordinator loading) as ERROR;
// the adapter surfaces real failures itself, so these are warnings at most.
function kafkaLogs(logger: Logger): logCreator {
  const child = logger.child({ component: 'kafkajs' });
  return () => ({ level, log }) => {
    const { message, ...extra } = log;
    if (level <= logLevel.WARN) child.warn(extra, message);
    else if (level === logLevel.INFO) child.debug(extra, message);
    else child.trace(extra, message);
  };
}

const MAX_REQUEST_BYTES = 512 * 1024;

/** A batch handler's failure, marked retriable so kafkajs keeps retrying instead of stopping. */
class BatchFailed extends Error {
  readonly retriable = true;
  // Not `cause`: kafkajs judges a crash by the innermost cause, which would undo the marking.
  constructor(readonly reason: unknown) {
    super(reason instanceof Error ? reason.message : String(reason));
    this.name = 'BatchFailed';
  }
}

function sizeOf(r: AppendRecord): number {
  let n = Buffer.byteLength(r.key) + (typeof r.value === 'string' ? Buffer.byteLength(r.value) : r.value.length) + 64;
  for (const [k, v] of Object.entries(r.headers ?? {})) n += Buffer.byteLength(k) + Buffer.byteLength(v) + 8;
  return n;
}

/** Splits records, in order, into runs of at most `limit` bytes (a larger record goes alone). */
function chunksBySize(records: readonly AppendRecord[], limit: number): AppendRecord[][] {
  const chunks: AppendRecord[][] = [];
  let current: AppendRecord[] = [];
  let bytes = 0;
  for (const r of records) {
    const size = sizeOf(r);
    if (current.length > 0 && bytes + size > limit) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(r);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

function headersToStrings(headers: IHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!headers) return out;
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) continue;
    const first = Array.isArray(v) ? v[0] : v;
    if (first !== undefined) out[k] = first.toString();
  }
  return out;
}

// The log is the source of truth and replay starts at offset 0, so nothing may age out. The
// broker's default (7 days, judged by record timestamps) silently deleted acknowledged records.
const KEEP_FOREVER = [
  { name: 'retention.ms', value: '-1' },
  { name: 'retention.bytes', value: '-1' },
];

export class KafkaLog implements Log {
  readonly kind = 'kafka' as const;
  private readonly kafka: Kafka;
  private admin?: Admin;
  private producer?: Producer;
  private producerConnecting?: Promise<Producer>;
  private readonly partitionCounts = new Map<string, number>();
  private readonly consumers = new Set<KConsumer>();
  private resolved?: { readonly wanted: Durability; readonly misfit: ConfigError | null };

  constructor(private readonly options: KafkaLogOptions) {
    this.kafka = new Kafka({
      clientId: options.clientId ?? 'convops',
      brokers: [...options.brokers],
      logLevel: options.logger ? logLevel.INFO : logLevel.NOTHING,
      ...(options.logger ? { logCreator: kafkaLogs(options.logger) } : {}),
      retry: { initialRetryTime: 100, retries: 8 },
    });
  }

  private async getAdmin(): Promise<Admin> {
    if (!this.admin) {
      const admin = this.kafka.admin();
      await admin.connect();
      this.admin = admin;
    }
    return this.admin;
  }

  private getProducer(): Promise<Producer> {
    if (this.producer) return Promise.resolve(this.producer);
    this.producerConnecting ??= (async () => {
      const producer = this.kafka.producer({
        createPartitioner: Partitioners.DefaultPartitioner,
        allowAutoTopicCreation: false,
        // Not the kafkajs idempotent producer (experimental in 2.2.4): a retried send may
        // duplicate a record, which the session machine drops by its idempotency key.
      });
      await producer.connect();
      this.producer = producer;
      return producer;
    })().catch((err: unknown) => {
      this.producerConnecting = undefined;
      throw err;
    });
    return this.producerConnecting;
  }

  async createTopics(topics: readonly TopicSpec[]): Promise<void> {
    const admin = await this.getAdmin();
    const { wanted, misfit } = await this.resolveDurability(admin);
    const existing = new Set(await admin.listTopics());
    const missing = topics.filter((t) => !existing.has(t.name));
    if (missing.length > 0) {
      // Only creating needs the brokers: topics that exist keep working with a broker down.
      if (misfit) throw misfit;
      await admin.createTopics({
        waitForLeaders: true,
        topics: missing.map((t) => ({
          topic: t.name,
          numPartitions: t.partitions,
          replicationFactor: wanted.replicationFactor,
          // A topic-level setting, so acks=all means this many copies whatever the broker default.
          configEntries: [...KEEP_FOREVER, { name: 'min.insync.replicas', value: String(wanted.minInsyncReplicas) }],
        })),
      }).catch((err: unknown) => {
        // A concurrent creator won the race; the topic exists, which is all we need.
        if (!(err instanceof Error && /already exists/i.test(err.message))) throw err;
      });
    }
    const kept = topics.filter((t) => existing.has(t.name)).map((t) => t.name);
    if (kept.length > 0) {
      await this.warnOnFiniteRetention(admin, kept);
      await this.checkDurability(kept, wanted);
    }
  }

  /** The durability topics get on this cluster, from the settings and the brokers it has now; warns once when weak. */
  private async resolveDurability(admin: Admin): Promise<NonNullable<KafkaLog['resolved']>> {
    if (this.resolved) return this.resolved;
    const settings = this.options.durability ?? { replicationFactor: null, minInsyncReplicas: null };
    const brokerCount = (await admin.describeCluster()).brokers.length;
    const wanted = resolveDurability(settings, brokerCount);
    const misfit = durabilityMisfit(settings, wanted, brokerCount);
    const weak = misfit ? null : weakDurabilityWarning(wanted, brokerCount);
    if (weak) this.options.logger?.warn({ brokers: brokerCount, ...wanted }, weak);
    this.resolved = { wanted, misfit };
    return this.resolved;
  }

  /**
   * Warns about each existing topic with fewer replicas or a lower effective min.insync.replicas
   * than `wanted`, naming it; returns what it found. Never fails: convops runs on weaker topics.
   */
  async checkDurability(topics: readonly string[], wanted: Durability): Promise<DurabilityShortfall[]> {
    let actual: TopicDurability[];
    try {
      actual = await this.describeDurability(await this.getAdmin(), topics);
    } catch (err) {
      this.options.logger?.warn({ err, topics }, 'could not read the replication of existing topics; their durability is unchecked');
      return [];
    }
    const shortfalls = actual.map((a) => compareDurability(a, wanted)).filter((s) => s !== null);
    for (const s of shortfalls) {
      this.options.logger?.warn({
        topic: s.topic, replicas: s.replicas, minInsyncReplicas: s.minInsyncReplicas,
        wantedReplicationFactor: s.wanted.replicationFactor, wantedMinInsyncReplicas: s.wanted.minInsyncReplicas,
      }, s.message);
    }
    return shortfalls;
  }

  private async describeDurability(admin: Admin, topics: readonly string[]): Promise<TopicDurability[]> {
    const meta = await admin.fetchTopicMetadata({ topics: [...topics] });
    const described = await admin.describeConfigs({
      includeSynonyms: false,
      resources: topics.map((name) => ({ type: kafkajs.ConfigResourceTypes.TOPIC, name, configNames: ['min.insync.replicas'] })),
    });
    const topicMinIsr = new Map<string, number>();
    for (const r of described.resources) {
      const value = r.configEntries.find((e) => e.configName === 'min.insync.replicas')?.configValue;
      if (value !== undefined && value !== null && value !== '') topicMinIsr.set(r.resourceName, Number(value));
    }
    // Kafka reports the effective value (the broker's when the topic sets none); ask a broker only if it did not.
    let brokerDefault: number | undefined;
    const fallback = async (): Promise<number> => {
      if (brokerDefault !== undefined) return brokerDefault;
      const cluster = await admin.describeCluster();
      const node = cluster.brokers[0]?.nodeId;
      const broker = node === undefined ? undefined : await admin.describeConfigs({
        includeSynonyms: false,
        resources: [{ type: kafkajs.ConfigResourceTypes.BROKER, name: String(node), configNames: ['min.insync.replicas'] }],
      });
      const value = broker?.resources[0]?.configEntries.find((e) => e.configName === 'min.insync.replicas')?.configValue;
      brokerDefault = value ? Number(value) : 1;
      return brokerDefault;
    };
    const out: TopicDurability[] = [];
    for (const t of meta.topics) {
      if (t.partitions.length === 0) continue;
      out.push({
        topic: t.name,
        replicas: Math.min(...t.partitions.map((p) => p.replicas.length)),
        minInsyncReplicas: topicMinIsr.get(t.name) ?? await fallback(),
      });
    }
    return out;
  }

  /** Topics made by someone else keep their settings; say so when they would age records out. */
  private async warnOnFiniteRetention(admin: Admin, names: readonly string[]): Promise<void> {
    const described = await admin.describeConfigs({
      includeSynonyms: false,
      resources: names.map((name) => ({ type: kafkajs.ConfigResourceTypes.TOPIC, name, configNames: ['retention.ms'] })),
    }).catch(() => undefined);
    for (const r of described?.resources ?? []) {
      const retention = r.configEntries.find((e) => e.configName === 'retention.ms')?.configValue;
      if (retention !== undefined && retention !== '-1') {
        this.options.logger?.warn({ topic: r.resourceName, retentionMs: retention },
          'topic deletes old records; replay from offset 0 needs retention.ms=-1');
      }
    }
  }

  async partitionCount(topic: string): Promise<number> {
    const cached = this.partitionCounts.get(topic);
    if (cached !== undefined) return cached;
    const admin = await this.getAdmin();
    const meta = await admin.fetchTopicMetadata({ topics: [topic] }).catch(() => undefined);
    const count = meta?.topics[0]?.partitions.length ?? 0;
    if (count === 0) throw new TopicNotFoundError(topic);
    this.partitionCounts.set(topic, count);
    return count;
  }

  async append(topic: string, records: readonly AppendRecord[]): Promise<AppendResult[]> {
    if (records.length === 0) return [];
    const producer = await this.getProducer();
    const count = await this.partitionCount(topic);
    const results: AppendResult[] = [];
    // The broker refuses a produce request over message.max.bytes (1 MiB by default), so large
    // appends go out as several requests, in order.
    for (const chunk of chunksBySize(records, MAX_REQUEST_BYTES)) {
      const partitions = chunk.map((r) => r.partition ?? partitionForKey(r.key, count));
      const metadata = await producer.send({
        topic,
        acks: -1,
        messages: chunk.map((r, i) => ({
          key: r.key,
          value: r.value,
          partition: partitions[i],
          headers: r.headers ? { ...r.headers } : undefined,
          timestamp: r.timestamp !== undefined ? String(r.timestamp) : undefined,
        })),
      });
      // One send yields one base offset per partition; records of a partition are consecutive in input order.
      const next = new Map<number, number>();
      for (const m of metadata) next.set(m.partition, Number(m.baseOffset ?? m.offset ?? 0));
      for (const partition of partitions) {
        const offset = next.get(partition) ?? 0;
        next.set(partition, offset + 1);
        results.push({ partition, offset });
      }
    }
    return results;
  }

  async consume(options: ConsumeOptions): Promise<Consumer> {
    let stopped = false;
    let current: KConsumer | undefined;
    let restartTimer: NodeJS.Timeout | undefined;
    const timeout = this.options.sessionTimeoutMs ?? 30_000;

    // A restart can fail too (the broker may still be down): keep trying, backing off, until
    // it works or the consumer is stopped. Giving up here once left a pipeline dead for good.
    const relaunch = (delayMs: number): void => {
      clearTimeout(restartTimer);
      restartTimer = setTimeout(() => {
        if (stopped) return;
        launch().catch((err: unknown) => {
          const next = Math.min(30_000, delayMs * 2);
          this.options.logger?.error({ err, groupId: options.groupId, retryInMs: next }, 'consumer restart failed; trying again');
          if (current) {
            this.consumers.delete(current);
            void current.disconnect().catch(() => undefined);
          }
          relaunch(next);
        });
      }, delayMs);
    };

    const launch = async (): Promise<void> => {
      const consumer = this.kafka.consumer({
        groupId: options.groupId,
        allowAutoTopicCreation: false,
        sessionTimeout: timeout,
        // A rebalance waits this long for members to rejoin; a member that died never will.
        rebalanceTimeout: 2 * timeout,
        heartbeatInterval: Math.max(500, Math.floor(timeout / 10)),
        maxWaitTimeInMs: 100,
        retry: { retries: 10 },
      });
      current = consumer;
      this.consumers.add(consumer);
      // kafkajs gives up for good on errors it deems non-retriable; the pipeline must not.
      consumer.on(consumer.events.CRASH, (event) => {
        if (event.payload.restart || stopped) return;
        this.options.logger?.error({ err: event.payload.error, groupId: options.groupId }, 'consumer crashed; starting it again');
        this.consumers.delete(consumer);
        relaunch(1000);
      });
      await consumer.connect();
      for (const topic of options.topics) {
        await consumer.subscribe({ topic, fromBeginning: options.fromBeginning ?? true });
      }
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: 4,
        eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
          if (!isRunning() || isStale() || batch.messages.length === 0) return;
          const records: LogRecord[] = batch.messages.map((m) => ({
            topic: batch.topic,
            partition: batch.partition,
            offset: Number(m.offset),
            key: m.key?.toString() ?? '',
            value: m.value ?? Buffer.alloc(0),
            headers: headersToStrings(m.headers),
            timestamp: Number(m.timestamp),
          }));
          const slice = { topic: batch.topic, partition: batch.partition, records, owned: () => isRunning() && !isStale() };
          try {
            await options.onBatch(slice);
          } catch (err) {
            options.onError?.(err, slice);
            // Retriable by construction: kafkajs re-fetches from the last committed offset after a backoff.
            throw new BatchFailed(err);
          }
          const last = records[records.length - 1];
          if (!last) return;
          resolveOffset(String(last.offset));
          await consumer.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: String(last.offset + 1) }]);
          await heartbeat();
        },
      });
    };

    await launch();
    return {
      stop: async () => {
        stopped = true;
        clearTimeout(restartTimer);
        if (current) {
          this.consumers.delete(current);
          await current.disconnect();
        }
      },
    };
  }

  async setGroupPosition(groupId: string, topic: string, position: GroupPosition): Promise<void> {
    const admin = await this.getAdmin();
    if (position.kind === 'earliest') {
      await admin.resetOffsets({ groupId, topic, earliest: true });
      return;
    }
    let partitions: { partition: number; offset: string }[];
    if (position.kind === 'offsets') {
      partitions = Object.entries(position.offsets).map(([p, o]) => ({ partition: Number(p), offset: String(o) }));
    } else {
      const byTime = await admin.fetchTopicOffsetsByTimestamp(topic, position.timestamp);
      partitions = byTime.map((p) => ({ partition: p.partition, offset: p.offset }));
    }
    await admin.setOffsets({ groupId, topic, partitions });
  }

  async committedOffsets(groupId: string, topic: string): Promise<Record<number, number>> {
    const admin = await this.getAdmin();
    const res = await admin.fetchOffsets({ groupId, topics: [topic] });
    const out: Record<number, number> = {};
    for (const p of res[0]?.partitions ?? []) {
      const o = Number(p.offset);
      if (o >= 0) out[p.partition] = o;
    }
    return out;
  }

  async endOffsets(topic: string): Promise<Record<number, number>> {
    const admin = await this.getAdmin();
    const res = await admin.fetchTopicOffsets(topic);
    const out: Record<number, number> = {};
    for (const p of res) out[p.partition] = Number(p.high);
    return out;
  }

  async ping(): Promise<boolean> {
    try {
      const admin = await this.getAdmin();
      const cluster = await admin.describeCluster();
      return cluster.brokers.length > 0;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.consumers].map((c) => c.disconnect()));
    this.consumers.clear();
    await this.producer?.disconnect().catch(() => undefined);
    await this.admin?.disconnect().catch(() => undefined);
    this.producer = undefined;
    this.producerConnecting = undefined;
    this.admin = undefined;
  }
}
