// The log on Apache Kafka through kafkajs 2.2.4: the Log contract over three parts, split the
// way kafkajs splits its client (kafka/admin.ts: topics, durability and offsets;
// kafka/producer.ts: appends; kafka/consumer.ts: consumer groups).
import { Kafka, logLevel, type Consumer as KConsumer } from 'kafkajs';
import type {
  AppendRecord, AppendResult, ConsumeOptions, ConsumeRoundsOptions, Consumer, GroupPosition, Log, LogRecord, RangeRead, TopicSpec,
} from './log.js';
import { perBatch } from './log.js';
import type { Durability, DurabilityShortfall, DurabilitySettings } from './durability.js';
import type { Logger } from '../../support/logger.js';
import { KafkaAdmin } from './kafka/admin.js';
import { consumeKafka } from './kafka/consumer.js';
import { kafkaLogs } from './kafka/logging.js';
import { KafkaAppender } from './kafka/producer.js';
import { readKafkaRange, readKafkaRecord } from './kafka/reader.js';
import { DEFAULT_KAFKA_TUNING, type KafkaTuning } from './kafka/tuning.js';
import type { RoundLimits } from './kafka/rounds.js';
import { DEFAULT_ROUND_LIMITS } from '../../config.js';

export interface KafkaLogOptions {
  readonly brokers: readonly string[];
  readonly clientId?: string;
  /** This worker's own name (KAFKA_MEMBER_NAME): clients join as `convops-<name>` and remove their previous run's members first (kafka/predecessor.ts). */
  readonly memberName?: string;
  readonly logger?: Logger;
  /** How soon the group notices a consumer that died without leaving. */
  readonly sessionTimeoutMs?: number;
  /**
   * Replication and min.insync.replicas of the topics this log creates (KAFKA_REPLICATION_FACTOR,
   * KAFKA_MIN_INSYNC_REPLICAS); unset or null: 3 and 2, lowered to what the cluster can hold.
   */
  readonly durability?: DurabilitySettings;
  /** Records and time one round may take (KAFKA_ROUND_MAX_RECORDS, KAFKA_ROUND_MAX_MS); unset: the defaults of kafka/rounds.ts. */
  readonly rounds?: Partial<RoundLimits>;
  /** Fetch wait, partition workers, compression (kafka/tuning.ts); benchmarks vary them. */
  readonly tuning?: Partial<KafkaTuning>;
}

export class KafkaLog implements Log {
  readonly kind = 'kafka' as const;
  private readonly kafka: Kafka;
  private readonly admin: KafkaAdmin;
  private readonly appender: KafkaAppender;
  private readonly consumers = new Set<KConsumer>();
  private readonly tuning: KafkaTuning;

  private get clientId(): string {
    return this.options.memberName !== undefined ? `convops-${this.options.memberName}` : this.options.clientId ?? 'convops';
  }

  constructor(private readonly options: KafkaLogOptions) {
    this.tuning = { ...DEFAULT_KAFKA_TUNING, ...options.tuning };
    this.kafka = new Kafka({
      clientId: this.clientId,
      brokers: [...options.brokers],
      logLevel: options.logger ? logLevel.INFO : logLevel.NOTHING,
      ...(options.logger ? { logCreator: kafkaLogs(options.logger) } : {}),
      retry: { initialRetryTime: 100, retries: 8 },
    });
    this.admin = new KafkaAdmin(this.kafka, {
      ...(options.logger ? { logger: options.logger } : {}),
      ...(options.durability ? { durability: options.durability } : {}),
    });
    this.appender = new KafkaAppender(this.kafka, this.tuning.compress);
  }

  createTopics(topics: readonly TopicSpec[]): Promise<void> {
    return this.admin.createTopics(topics);
  }

  /** Warns about each existing topic weaker than `wanted`, naming it; returns what it found. */
  checkDurability(topics: readonly string[], wanted: Durability): Promise<DurabilityShortfall[]> {
    return this.admin.checkDurability(topics, wanted);
  }

  partitionCount(topic: string): Promise<number> {
    return this.admin.partitionCount(topic);
  }

  async append(topic: string, records: readonly AppendRecord[]): Promise<AppendResult[]> {
    if (records.length === 0) return [];
    return this.appender.append(topic, await this.admin.partitionCount(topic), records);
  }

  consume(options: ConsumeOptions): Promise<Consumer> {
    return this.consumeRounds(perBatch(options));
  }

  consumeRounds(options: ConsumeRoundsOptions): Promise<Consumer> {
    return consumeKafka(this.kafka, options, {
      ...(this.options.logger ? { logger: this.options.logger } : {}),
      sessionTimeoutMs: this.options.sessionTimeoutMs ?? 30_000,
      ...(this.options.memberName !== undefined ? { predecessorsOf: this.clientId } : {}),
      running: this.consumers,
      tuning: this.tuning,
      rounds: { ...DEFAULT_ROUND_LIMITS, ...this.options.rounds },
    });
  }

  setGroupPosition(groupId: string, topic: string, position: GroupPosition): Promise<void> {
    return this.admin.setGroupPosition(groupId, topic, position);
  }

  committedOffsets(groupId: string, topic: string): Promise<Record<number, number>> {
    return this.admin.committedOffsets(groupId, topic);
  }

  endOffsets(topic: string): Promise<Record<number, number>> {
    return this.admin.endOffsets(topic);
  }

  readRecord(topic: string, partition: number, offset: number): Promise<LogRecord | null> {
    return readKafkaRecord(this.kafka, this.admin, topic, partition, offset);
  }

  readRange(topic: string, partition: number, from: number, to: number, keep?: (r: LogRecord) => boolean): Promise<RangeRead> {
    return readKafkaRange(this.kafka, this.admin, topic, partition, from, to, keep);
  }

  ping(): Promise<boolean> {
    return this.admin.ping();
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.consumers].map((c) => c.disconnect()));
    this.consumers.clear();
    await this.appender.close();
    await this.admin.close();
  }
}
