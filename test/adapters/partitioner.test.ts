// Our partitioner must agree with Kafka's Java producer, key by key.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { partitionForKey } from '../../src/adapters/log/partitioner.js';
import { ensureJars } from '../infra/servers.js';

describe('partitionForKey', () => {
  it('matches org.apache.kafka.common.utils.Utils.murmur2 for chat keys', () => {
    const keys = [
      'acct_01000000000000000000000000000000:1000005',
      'acct_02000000000000000000000000000000:1000003',
      'acct_1:98765432109876543210',
      'acct_1:_account',
      'x', 'ab', 'abc', 'abcd', 'ünïcødé:42', '',
      ...Array.from({ length: 40 }, (_, i) => `acct_${i % 3}:${100000 + i * 7919}`),
    ];
    const lib = ensureJars('kafka');
    for (const partitions of [1, 4, 12, 64]) {
      const out = execFileSync('java', ['-cp', `${lib}/*`, join(import.meta.dirname, '../infra/JavaPartitions.java'), String(partitions)], { input: keys.join('\n') + '\n' }).toString();
      const java = out.trim().split('\n').map(Number);
      expect(keys.map((k) => partitionForKey(k, partitions))).toEqual(java);
    }
  });
});
