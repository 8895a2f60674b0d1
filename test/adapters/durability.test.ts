// The pure side of Kafka durability: what topics are created with, and how existing ones compare.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.js';
import {
  compareDurability, durabilityMisfit, resolveDurability, weakDurabilityWarning,
} from '../../src/adapters/log/durability.js';

const unset = { replicationFactor: null, minInsyncReplicas: null };

describe('resolveDurability', () => {
  it('defaults to 3 replicas and min.insync.replicas 2, lowered to the brokers the cluster has', () => {
    expect(resolveDurability(unset, 5)).toEqual({ replicationFactor: 3, minInsyncReplicas: 2 });
    expect(resolveDurability(unset, 3)).toEqual({ replicationFactor: 3, minInsyncReplicas: 2 });
    expect(resolveDurability(unset, 2)).toEqual({ replicationFactor: 2, minInsyncReplicas: 2 });
    expect(resolveDurability(unset, 1)).toEqual({ replicationFactor: 1, minInsyncReplicas: 1 });
  });

  it('takes explicit settings as they are, and lowers the min.insync default to the replication factor', () => {
    expect(resolveDurability({ replicationFactor: 5, minInsyncReplicas: 3 }, 5)).toEqual({ replicationFactor: 5, minInsyncReplicas: 3 });
    expect(resolveDurability({ replicationFactor: 1, minInsyncReplicas: null }, 3)).toEqual({ replicationFactor: 1, minInsyncReplicas: 1 });
    expect(resolveDurability({ replicationFactor: null, minInsyncReplicas: 1 }, 3)).toEqual({ replicationFactor: 3, minInsyncReplicas: 1 });
  });
});

describe('durabilityMisfit', () => {
  const misfit = (s: { replicationFactor: number | null; minInsyncReplicas: number | null }, brokers: number) =>
    durabilityMisfit(s, resolveDurability(s, brokers), brokers);

  it('refuses an explicit replication factor larger than the cluster, naming the variable', () => {
    const err = misfit({ replicationFactor: 2, minInsyncReplicas: null }, 1);
    expect(err).toBeInstanceOf(ConfigError);
    expect(err?.variable).toBe('KAFKA_REPLICATION_FACTOR');
    expect(err?.message).toMatch(/KAFKA_REPLICATION_FACTOR is 2 but the Kafka cluster has 1 broker;/);
  });

  it('refuses an explicit min.insync.replicas larger than the cluster or the replication factor', () => {
    expect(misfit({ replicationFactor: null, minInsyncReplicas: 2 }, 1)?.variable).toBe('KAFKA_MIN_INSYNC_REPLICAS');
    const aboveDefault = misfit({ replicationFactor: null, minInsyncReplicas: 4 }, 5);
    expect(aboveDefault?.variable).toBe('KAFKA_MIN_INSYNC_REPLICAS');
    expect(aboveDefault?.message).toContain('set KAFKA_REPLICATION_FACTOR to at least 4');
  });

  it('accepts the defaults on any cluster and explicit settings the cluster can hold', () => {
    for (const brokers of [1, 2, 3, 7]) expect(misfit(unset, brokers)).toBeNull();
    expect(misfit({ replicationFactor: 3, minInsyncReplicas: 2 }, 3)).toBeNull();
  });
});

describe('weakDurabilityWarning', () => {
  it('says in plain words what is at risk below 3 / 2', () => {
    expect(weakDurabilityWarning({ replicationFactor: 1, minInsyncReplicas: 1 }, 1))
      .toMatch(/^Kafka topics convops creates get 1 replica and min.insync.replicas=1 \(the cluster has 1 broker\): an acknowledged record may be stored on one broker only/);
    expect(weakDurabilityWarning({ replicationFactor: 2, minInsyncReplicas: 2 }, 2)).toMatch(/writes stop whenever one broker is down/);
    expect(weakDurabilityWarning({ replicationFactor: 3, minInsyncReplicas: 1 }, 3)).toMatch(/one broker only/);
  });

  it('is silent at 3 / 2 and above', () => {
    expect(weakDurabilityWarning({ replicationFactor: 3, minInsyncReplicas: 2 }, 3)).toBeNull();
    expect(weakDurabilityWarning({ replicationFactor: 5, minInsyncReplicas: 3 }, 5)).toBeNull();
  });
});

describe('compareDurability', () => {
  const wanted = { replicationFactor: 3, minInsyncReplicas: 2 };

  it('names the topic, its replica count and the setting when it has fewer replicas', () => {
    const s = compareDurability({ topic: 'p.inbound', replicas: 1, minInsyncReplicas: 2 }, wanted);
    expect(s?.message).toBe("topic 'p.inbound' is less durable than the settings: 1 replica per partition where KAFKA_REPLICATION_FACTOR asks for 3. "
      + 'convops does not change existing topics; raise them with kafka-configs / kafka-reassign-partitions');
    expect(s).toMatchObject({ topic: 'p.inbound', replicas: 1, minInsyncReplicas: 2, wanted });
  });

  it('names the topic, its min.insync.replicas and the setting when that is lower', () => {
    const s = compareDurability({ topic: 'p.session-events', replicas: 3, minInsyncReplicas: 1 }, wanted);
    expect(s?.message).toContain("topic 'p.session-events' is less durable than the settings: min.insync.replicas=1 where KAFKA_MIN_INSYNC_REPLICAS asks for 2.");
    expect(s?.message).not.toContain('KAFKA_REPLICATION_FACTOR');
  });

  it('names both when both are weaker', () => {
    const s = compareDurability({ topic: 't', replicas: 2, minInsyncReplicas: 1 }, wanted);
    expect(s?.message).toContain('2 replicas per partition where KAFKA_REPLICATION_FACTOR asks for 3, min.insync.replicas=1 where KAFKA_MIN_INSYNC_REPLICAS asks for 2');
  });

  it('is silent when the topic is as durable as the settings', () => {
    expect(compareDurability({ topic: 't', replicas: 3, minInsyncReplicas: 2 }, wanted)).toBeNull();
  });

  it('is silent when the topic is more durable than the settings', () => {
    expect(compareDurability({ topic: 't', replicas: 5, minInsyncReplicas: 3 }, wanted)).toBeNull();
    expect(compareDurability({ topic: 't', replicas: 1, minInsyncReplicas: 1 }, { replicationFactor: 1, minInsyncReplicas: 1 })).toBeNull();
  });
});
