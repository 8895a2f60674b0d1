// A worker killed with -9 never leaves its consumer groups. A worker with a name of its own
// (KAFKA_MEMBER_NAME) removes the member its killed run left before it joins, instead of waiting
// out that member's session: here a child process joins a group as `convops-<name>` and is
// killed, and the member it left is removed; a member under another client id is not.
import { spawn } from 'node:child_process';
import { Kafka, logLevel } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { leavePredecessors } from '../../src/adapters/log/kafka/predecessor.js';
import { loadConfig } from '../../src/config.js';
import { kafkaBrokers } from '../support/test-servers.js';

/** A process that joins `groupId` as `clientId` with a 60 s session and prints its member id; the caller kills it. */
function member(brokers: string, topic: string, groupId: string, clientId: string): Promise<{ memberId: string; kill(): void }> {
  const script = `
    const { Kafka, logLevel } = require('kafkajs');
    const kafka = new Kafka({ clientId: ${JSON.stringify(clientId)}, brokers: ${JSON.stringify(brokers.split(','))}, logLevel: logLevel.NOTHING });
    const c = kafka.consumer({ groupId: ${JSON.stringify(groupId)}, sessionTimeout: 60000, rebalanceTimeout: 60000, heartbeatInterval: 3000 });
    c.on(c.events.GROUP_JOIN, (e) => console.log('MEMBER ' + e.payload.memberId));
    (async () => { await c.connect(); await c.subscribe({ topic: ${JSON.stringify(topic)}, fromBeginning: true }); await c.run({ eachMessage: async () => {} }); })();
  `;
  const child = spawn(process.execPath, ['-e', script], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /MEMBER (\S+)/.exec(out);
      if (m?.[1]) resolve({ memberId: m[1], kill: () => child.kill('SIGKILL') });
    });
    child.once('exit', (code) => reject(new Error(`member process exited (${code}) before joining`)));
  });
}

describe('a named worker\'s killed run', () => {
  it('is removed from the group before the worker joins again; members under other client ids stay', async () => {
    const brokers = await kafkaBrokers();
    const kafka = new Kafka({ clientId: 'convops-worker-a', brokers: brokers.split(','), logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    const topic = `predecessor-${Date.now()}`;
    const groupId = `${topic}-group`;
    try {
      await admin.createTopics({ topics: [{ topic, numPartitions: 2 }], waitForLeaders: true });
      const killed = await member(brokers, topic, groupId, 'convops-worker-a');
      killed.kill();
      const members = async () => (await admin.describeGroups([groupId])).groups[0]?.members.map((m) => m.memberId) ?? [];
      // Dead, and still a member: its session has 60 s to run.
      expect(await members()).toEqual([killed.memberId]);
      expect(await leavePredecessors(kafka, groupId, 'convops-worker-b')).toBe(0);
      expect(await members()).toEqual([killed.memberId]);
      expect(await leavePredecessors(kafka, groupId, 'convops-worker-a')).toBe(1);
      expect(await members()).toEqual([]);
    } finally {
      await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
      await admin.disconnect();
    }
  }, 60_000);
});

describe('KAFKA_MEMBER_NAME', () => {
  it('is optional, and refused naming it when it is not a plain name', () => {
    expect(loadConfig({}).kafkaMemberName).toBeNull();
    expect(loadConfig({ KAFKA_MEMBER_NAME: 'worker-1' }).kafkaMemberName).toBe('worker-1');
    expect(() => loadConfig({ KAFKA_MEMBER_NAME: 'two words' })).toThrow(/KAFKA_MEMBER_NAME/);
  });
});
