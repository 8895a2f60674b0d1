// Our partitioner must agree with Kafka's Java producer, key by key, and our murmur2 with the
// one kafkajs would have used, while taking time linear in the key's length (issue 27).
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import fc from 'fast-check';
import { Partitioners, type PartitionerArgs, type PartitionMetadata } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { javaCompatiblePartitioner } from '../../src/adapters/log/kafka/producer.js';
import { murmur2, partitionForKey, toPositive } from '../../src/adapters/log/murmur2.js';
import { partitionForKey as logPartitionForKey } from '../../src/adapters/log/partitioner.js';
import { ensureJars } from '../infra/servers.js';

// kafkajs's own hash, the one its DefaultPartitioner calls; quadratic, so only short keys.
const kafkajsMurmur2 = createRequire(import.meta.url)('kafkajs/src/producer/partitioners/default/murmur2.js') as (key: Buffer | string) => number;

const kafkaJars = await ensureJars('kafka');

/** Runs one of the Java helpers under test/infra with Kafka's jars, one input line per key. */
function java(helper: string, args: string[], lines: readonly string[]): string[] {
  const out = execFileSync('java', ['-cp', `${kafkaJars}/*`, join(import.meta.dirname, '../infra', helper), ...args], {
    input: lines.map((l) => l + '\n').join(''),
    maxBuffer: 64 * 1024 * 1024,
  }).toString();
  return out.trim().split('\n');
}

/** Deterministic PRNG (mulberry32), so the table is the same on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

const LENGTHS = [...Array.from({ length: 65 }, (_, i) => i), 1024, 64 * 1024];

// Code points from 1- to 4-byte UTF-8, but no line break (the Java side reads lines) and no
// lone surrogate (Java's encoder writes '?' for one where Node's writes U+FFFD).
const CODE_POINT_RANGES: [number, number][] = [
  [0x20, 0x7e], [0x00, 0x09], [0xa0, 0xff], [0x370, 0x4ff], [0x4e00, 0x9fff], [0xe000, 0xfffd], [0x1f300, 0x1faff], [0x10000, 0x10ffff],
];
function unicodeKey(next: () => number, codePoints: number): string {
  let s = '';
  for (let i = 0; i < codePoints; i++) {
    const [lo, hi] = CODE_POINT_RANGES[Math.floor(next() * CODE_POINT_RANGES.length)]!;
    s += String.fromCodePoint(lo + Math.floor(next() * (hi - lo + 1)));
  }
  return s;
}

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
    for (const partitions of [1, 4, 12, 64]) {
      const javaPartitions = java('JavaPartitions.java', [String(partitions)], keys).map(Number);
      expect(keys.map((k) => partitionForKey(k, partitions))).toEqual(javaPartitions);
      expect(keys.map((k) => logPartitionForKey(k, partitions))).toEqual(javaPartitions);
    }
  });
});

describe('murmur2', () => {
  it("equals Java's Utils.murmur2 for random bytes of every length 0..64, 1 KiB and 64 KiB", () => {
    const next = random(27);
    const keys = LENGTHS.map((n) => Buffer.from(Array.from({ length: n }, () => Math.floor(next() * 256))));
    // Bytes with the high bit set in every position of a block and of the tail, where a
    // sign-extension slip would show.
    for (let n = 0; n <= 8; n++) keys.push(Buffer.alloc(n, 0xff), Buffer.alloc(n, 0x80));
    const javaHashes = java('JavaMurmur2.java', ['hex'], keys.map((k) => k.toString('hex'))).map(Number);
    expect(keys.map((k) => murmur2(k))).toEqual(javaHashes);
  });

  it("equals Java's Utils.murmur2 over String.getBytes(UTF_8) for unicode keys of every length 0..64, 1 Ki and 64 Ki code points", () => {
    const next = random(2704);
    const keys = LENGTHS.map((n) => unicodeKey(next, n));
    const javaHashes = java('JavaMurmur2.java', ['utf8'], keys).map(Number);
    expect(keys.map((k) => murmur2(Buffer.from(k, 'utf8')))).toEqual(javaHashes);
    expect(keys.map((k) => partitionForKey(k, 12))).toEqual(javaHashes.map((h) => toPositive(h) % 12));
  });

  it("equals kafkajs's murmur2 for any key up to 300 characters or bytes", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 300 }),
          fc.string({ unit: 'grapheme', maxLength: 300 }),
          fc.string({ maxLength: 300 }),
          fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
        ),
        (key) => {
          const bytes = Buffer.isBuffer(key) ? key : Buffer.from(key);
          expect(murmur2(bytes)).toBe(kafkajsMurmur2(key));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('hashes a 1 MiB key to the value Java gives (linear: kafkajs would need minutes here)', () => {
    // From `java -cp '.cache/kafka-lib/*' test/infra/JavaMurmur2.java utf8` fed 'k' x 2^20 and
    // a newline. Written here rather than recomputed, so this stays a check of our hash alone.
    expect(murmur2(Buffer.from('k'.repeat(1 << 20)))).toBe(-1395022156);
    expect(partitionForKey('k'.repeat(1 << 20), 12)).toBe(toPositive(-1395022156) % 12);
  });
});

describe('the Kafka producer partitioner', () => {
  const metadata = (leaders: number[]): PartitionMetadata[] =>
    leaders.map((leader, partitionId) => ({ partitionId, leader, partitionErrorCode: 0, replicas: [], isr: [] }));

  it("chooses what kafkajs's DefaultPartitioner chooses for keyed records and named partitions", () => {
    const ours = javaCompatiblePartitioner();
    const theirs = Partitioners.DefaultPartitioner();
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: 'binary', maxLength: 100 }), fc.uint8Array({ maxLength: 100 }).map((a) => Buffer.from(a))),
        fc.option(fc.nat(7), { nil: undefined }),
        fc.array(fc.constantFrom(-1, 0, 1), { minLength: 1, maxLength: 8 }),
        (key, partition, leaders) => {
          const args: PartitionerArgs = { topic: 't', partitionMetadata: metadata(leaders), message: { key, value: null, partition } };
          expect(ours(args)).toBe(theirs(args));
        },
      ),
    );
  });

  it('sends keyless records round-robin over the partitions that have a leader, or over all when none has', () => {
    const ours = javaCompatiblePartitioner();
    const withLeaders = metadata([0, -1, 1, -1, 2]);
    const chosen = Array.from({ length: 30 }, () => ours({ topic: 't', partitionMetadata: withLeaders, message: { value: null } }));
    expect(new Set(chosen)).toEqual(new Set([0, 2, 4]));
    for (let i = 3; i < chosen.length; i++) expect(chosen[i]).toBe(chosen[i - 3]);

    const leaderless = metadata([-1, -1, -1, -1]);
    const fallback = Array.from({ length: 8 }, () => ours({ topic: 'u', partitionMetadata: leaderless, message: { key: null, value: null } }));
    expect(new Set(fallback)).toEqual(new Set([0, 1, 2, 3]));
  });
});
