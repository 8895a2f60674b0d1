// How durable Kafka topics are: what convops asks for when it creates them, and how topics
// that already exist compare. Pure functions; the Kafka adapter does the I/O.
//
// The producer writes with acks=all, which waits only for the replicas currently in sync. With
// min.insync.replicas=1 (the broker default) the leader alone satisfies it, so a record that was
// acknowledged is lost with that one broker's disk. Replication 3 with min.insync.replicas 2 keeps
// every acknowledged record on two brokers and still takes writes while one broker is down.
import { ConfigError } from '../../config.js';

/** The settings as configured; null means "the safe default the cluster can hold". */
export interface DurabilitySettings {
  readonly replicationFactor: number | null;
  readonly minInsyncReplicas: number | null;
}

export interface Durability {
  readonly replicationFactor: number;
  readonly minInsyncReplicas: number;
}

export const RECOMMENDED: Durability = { replicationFactor: 3, minInsyncReplicas: 2 };

const RF_VAR = 'KAFKA_REPLICATION_FACTOR';
const MIN_VAR = 'KAFKA_MIN_INSYNC_REPLICAS';

/**
 * The durability topics are created with: explicit settings as they are; unset ones as
 * 3 / 2, lowered to what a cluster of `brokerCount` brokers can hold.
 */
export function resolveDurability(s: DurabilitySettings, brokerCount: number): Durability {
  const replicationFactor = s.replicationFactor ?? Math.max(1, Math.min(RECOMMENDED.replicationFactor, brokerCount));
  const minInsyncReplicas = s.minInsyncReplicas ?? Math.min(RECOMMENDED.minInsyncReplicas, replicationFactor);
  return { replicationFactor, minInsyncReplicas };
}

/**
 * Why topics cannot be created with this durability on a cluster of `brokerCount` brokers
 * (an explicit setting larger than the cluster, or min.insync.replicas above the replication
 * factor, which would refuse every write), or null when they can.
 */
export function durabilityMisfit(s: DurabilitySettings, d: Durability, brokerCount: number): ConfigError | null {
  const brokers = `${brokerCount} broker${brokerCount === 1 ? '' : 's'}`;
  if (s.replicationFactor !== null && s.replicationFactor > brokerCount) {
    return new ConfigError(RF_VAR, `is ${s.replicationFactor} but the Kafka cluster has ${brokers}; a topic cannot have more replicas than brokers (unset it to use ${Math.min(RECOMMENDED.replicationFactor, brokerCount)})`);
  }
  if (s.minInsyncReplicas !== null && s.minInsyncReplicas > brokerCount) {
    return new ConfigError(MIN_VAR, `is ${s.minInsyncReplicas} but the Kafka cluster has ${brokers}; no write could ever be acknowledged (unset it to use ${Math.min(RECOMMENDED.minInsyncReplicas, d.replicationFactor)})`);
  }
  if (d.minInsyncReplicas > d.replicationFactor) {
    const source = s.replicationFactor === null ? `the default of ${RF_VAR} on this cluster` : RF_VAR;
    return new ConfigError(MIN_VAR, `is ${d.minInsyncReplicas} but topics get ${d.replicationFactor} replicas (${source}); no write could ever be acknowledged: set ${RF_VAR} to at least ${d.minInsyncReplicas}`);
  }
  return null;
}

/** A plain-words warning when topics convops creates would be less durable than 3 / 2, else null. */
export function weakDurabilityWarning(d: Durability, brokerCount: number): string | null {
  if (d.replicationFactor >= RECOMMENDED.replicationFactor && d.minInsyncReplicas >= RECOMMENDED.minInsyncReplicas) return null;
  const what = `Kafka topics convops creates get ${d.replicationFactor} replica${d.replicationFactor === 1 ? '' : 's'} and min.insync.replicas=${d.minInsyncReplicas} (the cluster has ${brokerCount} broker${brokerCount === 1 ? '' : 's'})`;
  const risk = d.minInsyncReplicas < 2
    ? 'an acknowledged record may be stored on one broker only and is lost if that broker\'s disk is'
    : 'writes stop whenever one broker is down';
  return `${what}: ${risk}. For production use 3 brokers, or set ${RF_VAR}=3 and ${MIN_VAR}=2`;
}

/** A topic as it exists: the fewest replicas any of its partitions has, and its effective min.insync.replicas. */
export interface TopicDurability {
  readonly topic: string;
  readonly replicas: number;
  readonly minInsyncReplicas: number;
}

export interface DurabilityShortfall extends TopicDurability {
  readonly wanted: Durability;
  readonly message: string;
}

/** How an existing topic falls short of the wanted durability, or null when it is as durable or more. */
export function compareDurability(actual: TopicDurability, wanted: Durability): DurabilityShortfall | null {
  const parts: string[] = [];
  if (actual.replicas < wanted.replicationFactor) {
    parts.push(`${actual.replicas} replica${actual.replicas === 1 ? '' : 's'} per partition where ${RF_VAR} asks for ${wanted.replicationFactor}`);
  }
  if (actual.minInsyncReplicas < wanted.minInsyncReplicas) {
    parts.push(`min.insync.replicas=${actual.minInsyncReplicas} where ${MIN_VAR} asks for ${wanted.minInsyncReplicas}`);
  }
  if (parts.length === 0) return null;
  return {
    ...actual,
    wanted,
    message: `topic '${actual.topic}' is less durable than the settings: ${parts.join(', ')}. `
      + 'convops does not change existing topics; raise them with kafka-configs / kafka-reassign-partitions',
  };
}
