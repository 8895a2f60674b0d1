// Kafka durability on a real broker: topics convops creates carry the replication and the
// topic-level min.insync.replicas of the settings (resolved against the cluster), a setting
// the cluster cannot hold stops the start naming the variable, and existing topics that are
// less durable than wanted are named in a warning. The test broker is a single one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import kafkajs, { Kafka, logLevel, type Admin } from 'kafkajs';
import { createLog } from '../../src/adapters/index.js';
import { KafkaLog } from '../../src/adapters/log/kafka-log.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { topology } from '../../src/topology.js';
import { deploymentEnv, startWithEnv } from '../support/deployments.js';
import { uniqueName } from '../support/wait.js';
import { capturedLogger } from '../support/captured-log.js';
import { kafkaBrokers } from '../support/test-servers.js';

let brokers = '';
const created: string[] = [];
let admin: Admin;

beforeAll(async () => {
  brokers = await kafkaBrokers();
  admin = new Kafka({ brokers: brokers.split(','), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  // Everything below assumes the single test broker; say so plainly when that changes.
  expect((await admin.describeCluster()).brokers).toHaveLength(1);
});

afterAll(async () => {
  await admin.deleteTopics({ topics: created }).catch(() => undefined);
  await admin.disconnect();
});

async function minInsyncEntry(topic: string) {
  const d = await admin.describeConfigs({
    includeSynonyms: false,
    resources: [{ type: kafkajs.ConfigResourceTypes.TOPIC, name: topic, configNames: ['min.insync.replicas'] }],
  });
  return d.resources[0]?.configEntries.find((e) => e.configName === 'min.insync.replicas');
}

async function replicaCounts(topic: string): Promise<number[]> {
  const meta = await admin.fetchTopicMetadata({ topics: [topic] });
  return meta.topics[0]!.partitions.map((p) => p.replicas.length);
}

function envFor(extra: Record<string, string> = {}): Record<string, string> {
  return { KAFKA_BROKERS: brokers, TOPIC_PREFIX: `${uniqueName('durability')}.`, ...extra };
}

describe('kafka durability', () => {
  it('creates convops topics with a topic-level min.insync.replicas and the replication one broker allows, warning once', async () => {
    const env = envFor();
    const t = topology(env.TOPIC_PREFIX);
    const specs = [{ name: t.inbound, partitions: 2 }, { name: t.sessionEvents, partitions: 2 }];
    created.push(t.inbound, t.sessionEvents);
    const { logger, warnings } = capturedLogger('warn');
    const log = createLog(loadConfig(env), logger);
    try {
      await log.createTopics(specs);
      await log.createTopics(specs); // a second start-up step, now over existing topics
    } finally {
      await log.close();
    }
    for (const topic of [t.inbound, t.sessionEvents]) {
      const entry = await minInsyncEntry(topic);
      expect(entry).toMatchObject({ configValue: '1', configSource: kafkajs.ConfigSource.TOPIC_CONFIG });
      expect(await replicaCounts(topic)).toEqual([1, 1]);
    }
    // The plain-words warning about one broker, once; the topics match the settings, so nothing about them.
    expect(warnings().map((w) => w.msg)).toEqual([
      expect.stringMatching(/^Kafka topics convops creates get 1 replica and min.insync.replicas=1 \(the cluster has 1 broker\): an acknowledged record may be stored on one broker only/),
    ]);
  });

  it('refuses KAFKA_REPLICATION_FACTOR=2 on a one-broker cluster, naming the variable, and creates nothing', async () => {
    const env = envFor({ KAFKA_REPLICATION_FACTOR: '2' });
    const t = topology(env.TOPIC_PREFIX);
    const log = createLog(loadConfig(env), capturedLogger('warn').logger);
    try {
      const err = await log.createTopics([{ name: t.inbound, partitions: 1 }]).then(() => null, (e: unknown) => e);
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).variable).toBe('KAFKA_REPLICATION_FACTOR');
      expect((err as ConfigError).message).toMatch(/^invalid configuration: KAFKA_REPLICATION_FACTOR is 2 but the Kafka cluster has 1 broker;/);
    } finally {
      await log.close();
    }
    expect(await admin.listTopics()).not.toContain(t.inbound);
  });

  it('refuses KAFKA_MIN_INSYNC_REPLICAS=2 on a one-broker cluster, naming the variable', async () => {
    const env = envFor({ KAFKA_MIN_INSYNC_REPLICAS: '2' });
    const log = createLog(loadConfig(env), capturedLogger('warn').logger);
    try {
      await expect(log.createTopics([{ name: topology(env.TOPIC_PREFIX).inbound, partitions: 1 }]))
        .rejects.toMatchObject({ variable: 'KAFKA_MIN_INSYNC_REPLICAS' });
    } finally {
      await log.close();
    }
  });

  it('stops the service start with that error', async () => {
    const env = await deploymentEnv('kafka+mongo', { KAFKA_REPLICATION_FACTOR: '2' });
    await expect(startWithEnv(env)).rejects.toThrow(/KAFKA_REPLICATION_FACTOR is 2 but the Kafka cluster has 1 broker/);
  });

  it('warns about existing topics less durable than wanted, naming each, its values and the settings', async () => {
    const prefix = `${uniqueName('durability')}.`;
    const t = topology(prefix);
    created.push(t.inbound, t.sessionEvents);
    // As an operator or an older convops made them: one without min.insync.replicas, one with a low one.
    await admin.createTopics({
      waitForLeaders: true,
      topics: [
        { topic: t.inbound, numPartitions: 2, replicationFactor: 1 },
        { topic: t.sessionEvents, numPartitions: 2, replicationFactor: 1, configEntries: [{ name: 'min.insync.replicas', value: '1' }] },
      ],
    });
    expect((await minInsyncEntry(t.inbound))?.configSource).not.toBe(kafkajs.ConfigSource.TOPIC_CONFIG);

    const { logger, warnings } = capturedLogger('warn');
    const log = new KafkaLog({ brokers: brokers.split(','), logger });
    try {
      // One broker cannot hold more than 1 / 1, so start-up itself finds nothing weaker to name.
      await log.createTopics([{ name: t.inbound, partitions: 2 }, { name: t.sessionEvents, partitions: 2 }]);
      expect(warnings().filter((w) => 'wantedReplicationFactor' in w)).toEqual([]);
      // The check start-up runs, against what a three-broker cluster would be asked for.
      const found = await log.checkDurability([t.inbound, t.sessionEvents], { replicationFactor: 3, minInsyncReplicas: 2 });
      expect(found.map((f) => f.topic).sort()).toEqual([t.inbound, t.sessionEvents].sort());
    } finally {
      await log.close();
    }
    const named = warnings().filter((w) => 'wantedReplicationFactor' in w);
    expect(named).toHaveLength(2);
    for (const topic of [t.inbound, t.sessionEvents]) {
      const w = named.find((l) => l.topic === topic);
      expect(w).toMatchObject({ replicas: 1, minInsyncReplicas: 1, wantedReplicationFactor: 3, wantedMinInsyncReplicas: 2 });
      expect(w?.msg).toBe(`topic '${topic}' is less durable than the settings: 1 replica per partition where KAFKA_REPLICATION_FACTOR asks for 3, `
        + 'min.insync.replicas=1 where KAFKA_MIN_INSYNC_REPLICAS asks for 2. convops does not change existing topics; raise them with kafka-configs / kafka-reassign-partitions');
    }
  });
});
