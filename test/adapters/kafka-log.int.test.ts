// The log contract on the test Kafka, and how convops creates its topics there.
import { describe, expect, it } from 'vitest';
import { ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import { KafkaLog } from '../../src/adapters/log/kafka-log.js';
import { logContract } from '../contract/log-contract.js';
import { kafkaBrokers } from '../support/test-servers.js';

logContract('kafka', async () => new KafkaLog({ brokers: (await kafkaBrokers()).split(',') }));

describe('kafka topics', () => {
  it('are created to keep records forever, whatever their timestamps', async () => {
    const brokers = (await kafkaBrokers()).split(',');
    const log = new KafkaLog({ brokers });
    const name = `retention-${Date.now()}`;
    await log.createTopics([{ name, partitions: 2 }]);
    const admin = new Kafka({ brokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      const described = await admin.describeConfigs({
        includeSynonyms: false,
        resources: [{ type: ConfigResourceTypes.TOPIC, name, configNames: ['retention.ms', 'retention.bytes'] }],
      });
      const entries = Object.fromEntries(described.resources[0]!.configEntries.map((e) => [e.configName, e.configValue]));
      expect(entries).toEqual({ 'retention.ms': '-1', 'retention.bytes': '-1' });
    } finally {
      await admin.disconnect();
      await log.close();
    }
  });
});
