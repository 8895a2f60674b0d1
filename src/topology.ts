// Names of the topics and consumer groups. A prefix lets several deployments (or test runs)
// share one broker without seeing each other's records.
import type { Log } from './adapters/log/log.js';

export interface Topology {
  readonly inbound: string;
  readonly sessionEvents: string;
  readonly processorGroup: string;
  readonly projectorGroup: string;
  /** Intelligence reads session-events after the projector, under its own group. */
  readonly intelligenceGroup: string;
}

/**
 * `inbound` may be named outright: re-deriving everything from an existing inbound log into
 * fresh session-events, groups and read models uses a new prefix with the old inbound.
 */
export function topology(prefix = '', inbound?: string): Topology {
  return {
    inbound: inbound ?? `${prefix}inbound`,
    sessionEvents: `${prefix}session-events`,
    processorGroup: `${prefix}sessions`,
    projectorGroup: `${prefix}projections`,
    intelligenceGroup: `${prefix}projections-intelligence`,
  };
}

/** The topics as they exist cannot work with these settings; the message names the settings to change. */
export class TopologyError extends Error {
  constructor(readonly settings: readonly string[], message: string) {
    super(`invalid topology: ${message}`);
    this.name = 'TopologyError';
  }
}

export interface TopologySettings {
  readonly topicPrefix: string;
  readonly inboundTopic: string | null;
  readonly inboundPartitions: number;
}

/**
 * Per-account totals keep one row per account and inbound partition, and skip events at or
 * below the last inbound offset the row applied. That holds only while each inbound
 * partition's events arrive in order on one session-events partition, that is while the two
 * topics have as many partitions; otherwise events overtaken on another partition are skipped
 * and the totals undercount without any error. INBOUND_PARTITIONS applies only
 * to topics convops creates, so topics that already existed (made by hand, under an earlier
 * setting, or an INBOUND_TOPIC of another prefix) can disagree: refuse to start then.
 */
export async function checkPartitions(log: Pick<Log, 'partitionCount'>, t: Topology, s: TopologySettings): Promise<void> {
  const [inbound, events] = await Promise.all([log.partitionCount(t.inbound), log.partitionCount(t.sessionEvents)]);
  if (inbound === events) return;
  const inboundSetting = s.inboundTopic !== null ? ' (INBOUND_TOPIC)' : '';
  throw new TopologyError(
    s.inboundTopic !== null ? ['INBOUND_PARTITIONS', 'INBOUND_TOPIC', 'TOPIC_PREFIX'] : ['INBOUND_PARTITIONS', 'TOPIC_PREFIX'],
    `session-events topic '${t.sessionEvents}' has ${events} partitions but inbound '${t.inbound}'${inboundSetting} has ${inbound}; `
    + `they must match or per-account totals undercount. INBOUND_PARTITIONS (${s.inboundPartitions}) applies only to topics convops creates: `
    + `set INBOUND_PARTITIONS=${inbound} and a TOPIC_PREFIX (now '${s.topicPrefix}') whose session-events topic does not exist yet, `
    + `with INBOUND_TOPIC=${t.inbound} to keep reading this inbound log`,
  );
}
