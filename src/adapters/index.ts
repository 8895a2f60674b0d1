// Chooses the adapters: Kafka and MongoDB when configured, the embedded ones otherwise.
import type { Config } from '../config.js';
import { EmbeddedLog } from './log/embedded-log.js';
import { KafkaLog } from './log/kafka-log.js';
import type { Log } from './log/log.js';
import { EmbeddedStore } from './store/embedded-store.js';
import { MongoStore } from './store/mongo-store.js';
import { withPrefix } from './store/prefixed-store.js';
import type { DocumentStore } from './store/store.js';
import type { Logger } from '../support/logger.js';

export function createLog(config: Config, logger: Logger): Log {
  if (!config.kafkaBrokers) return new EmbeddedLog(config.dataDir, { roundLingerMs: config.roundLingerMs });
  return new KafkaLog({
    brokers: config.kafkaBrokers,
    logger,
    ...(config.kafkaMemberName !== null ? { memberName: config.kafkaMemberName } : {}),
    sessionTimeoutMs: config.kafkaSessionTimeoutMs,
    rounds: { maxRecords: config.kafkaRoundMaxRecords, maxMs: config.kafkaRoundMaxMs },
    durability: { replicationFactor: config.kafkaReplicationFactor, minInsyncReplicas: config.kafkaMinInsyncReplicas },
  });
}

/** The store as this deployment sees it: collections named under its TOPIC_PREFIX, like its topics. */
export async function createStore(config: Config, logger?: Logger): Promise<DocumentStore> {
  const store = config.mongoUrl ? await MongoStore.connect(config.mongoUrl, config.mongoDb, logger) : new EmbeddedStore(config.dataDir);
  return withPrefix(store, config.topicPrefix);
}
