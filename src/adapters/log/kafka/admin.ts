// Topics and offsets on Kafka: creating topics with the durability the cluster can hold (and
// saying so when existing ones are weaker), partition counts, and consumer-group positions.
import kafkajs, { type Admin, type Kafka } from 'kafkajs';
import type { GroupPosition, TopicSpec } from '../log.js';
import { TopicNotFoundError } from '../log.js';
import {
  compareDurability, durabilityMisfit, resolveDurability, weakDurabilityWarning,
  type Durability, type DurabilityShortfall, type DurabilitySettings, type TopicDurability,
} from '../durability.js';
import type { ConfigError } from '../../../config.js';
import type { Logger } from '../../../support/logger.js';

// The log is the source of truth and replay starts at offset 0, so nothing may age out. The
// broker's default (7 days, judged by record timestamps) silently deleted acknowledged records.
/** kafkajs's offset for "the first record a partition holds". */
const EARLIEST_OFFSET = '-2';
/** How long the repositioning member's fetch waits with nothing to fetch (see commitGroupOffsets). */
const SEEK_FETCH_WAIT_MS = 100;

const KEEP_FOREVER = [
  { name: 'retention.ms', value: '-1' },
  { name: 'retention.bytes', value: '-1' },
];

export class KafkaAdmin {
  private admin?: Admin;
  private readonly partitionCounts = new Map<string, number>();
  private resolved?: { readonly wanted: Durability; readonly misfit: ConfigError | null };

  constructor(
    private readonly kafka: Kafka,
    private readonly options: { readonly logger?: Logger; readonly durability?: DurabilitySettings },
  ) {}

  private async getAdmin(): Promise<Admin> {
    if (!this.admin) {
      const admin = this.kafka.admin();
      await admin.connect();
      this.admin = admin;
    }
    return this.admin;
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
  private async resolveDurability(admin: Admin): Promise<NonNullable<KafkaAdmin['resolved']>> {
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

  async setGroupPosition(groupId: string, topic: string, position: GroupPosition): Promise<void> {
    const admin = await this.getAdmin();
    let partitions: { partition: number; offset: string }[];
    if (position.kind === 'earliest') {
      partitions = (await admin.fetchTopicOffsets(topic)).map((p) => ({ partition: p.partition, offset: EARLIEST_OFFSET }));
    } else if (position.kind === 'offsets') {
      partitions = Object.entries(position.offsets).map(([p, o]) => ({ partition: Number(p), offset: String(o) }));
    } else {
      const byTime = await admin.fetchTopicOffsetsByTimestamp(topic, position.timestamp);
      partitions = byTime.map((p) => ({ partition: p.partition, offset: p.offset }));
    }
    if (partitions.length === 0) throw new TopicNotFoundError(topic);
    await this.commitGroupOffsets(groupId, topic, partitions);
  }

  /**
   * What kafkajs's admin.setOffsets does (a member joins the idle group, seeks every partition
   * with its fetching paused, and leaves once the seeks are committed), with a short fetch wait:
   * kafkajs's own member waits its default 5 s on a fetch with every partition paused before it
   * can leave, which every replay paid.
   */
  private async commitGroupOffsets(groupId: string, topic: string, partitions: readonly { partition: number; offset: string }[]): Promise<void> {
    const consumer = this.kafka.consumer({ groupId, allowAutoTopicCreation: false, maxWaitTimeInMs: SEEK_FETCH_WAIT_MS });
    try {
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      const { state } = await consumer.describeGroup();
      if (state !== 'Empty' && state !== 'Dead') throw new Error(`consumer group ${groupId} must have no running members to be repositioned, current state: ${state}`);
      await new Promise<void>((resolve, reject) => {
        // The first fetch after the join comes after the seeks were committed.
        consumer.on(consumer.events.FETCH, () => { consumer.stop().then(resolve, reject); });
        consumer.run({ eachBatchAutoResolve: false, eachBatch: async () => undefined }).catch(reject);
        consumer.pause([{ topic }]);
        for (const p of partitions) consumer.seek({ topic, partition: p.partition, offset: p.offset });
      });
    } finally {
      await consumer.disconnect().catch(() => undefined);
    }
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

  /** The offsets a partition holds now: the first one kept (`low`) and the next one to be written (`high`). */
  async partitionRange(topic: string, partition: number): Promise<{ low: number; high: number } | null> {
    const admin = await this.getAdmin();
    const p = (await admin.fetchTopicOffsets(topic)).find((o) => o.partition === partition);
    return p ? { low: Number(p.low), high: Number(p.high) } : null;
  }

  /** Removes consumer groups (a reader's throwaway group); never fails. */
  async deleteGroups(groupIds: readonly string[]): Promise<void> {
    const admin = await this.getAdmin();
    await admin.deleteGroups([...groupIds]).catch(() => undefined);
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
    await this.admin?.disconnect().catch(() => undefined);
    this.admin = undefined;
  }
}
