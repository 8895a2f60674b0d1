// Kafka's key hash (org.apache.kafka.common.utils.Utils.murmur2), bit for bit, so a key lands on
// the partition a Java producer would choose for it. Our own rather than kafkajs's (2.2.4):
// kafkajs multiplies BigInt-backed Longs without ever truncating them, so its hash grows a
// number as long as the key and takes time quadratic in the key's length (a 900,000-character
// key held the event loop for 96 s). Java's arithmetic is 32-bit and wraps; Math.imul and the
// bitwise operators wrap the same way, which keeps this linear and allocation-free.

const SEED = 0x9747b28c;
const M = 0x5bd1e995;
const R = 24;

/** The signed 32-bit value Java's `Utils.murmur2(byte[])` returns for the same bytes. */
export function murmur2(bytes: Uint8Array): number {
  const length = bytes.length;
  let h = SEED ^ length;
  const blocks = length & ~3;
  for (let i = 0; i < blocks; i += 4) {
    // Little-endian, as Java assembles each 4-byte block.
    let k = bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
    k = Math.imul(k, M);
    k ^= k >>> R;
    k = Math.imul(k, M);
    h = Math.imul(h, M) ^ k;
  }
  // The Java switch falls through on purpose: 3 trailing bytes mix in all three, and only
  // the last case multiplies. Zero trailing bytes skip the multiply altogether.
  switch (length & 3) {
    case 3:
      h ^= bytes[blocks + 2]! << 16;
      // falls through
    case 2:
      h ^= bytes[blocks + 1]! << 8;
      // falls through
    case 1:
      h ^= bytes[blocks]!;
      h = Math.imul(h, M);
  }
  h ^= h >>> 13;
  h = Math.imul(h, M);
  // `^` yields a signed 32-bit int, which is what Java returns.
  return h ^ (h >>> 15);
}

/**
 * Kafka's `Utils.toPositive`: clears the sign bit. Not Math.abs, which picks other partitions
 * for negative hashes than Java does.
 */
export function toPositive(n: number): number {
  return n & 0x7fffffff;
}

/** The partition Kafka's default (Java) partitioner gives a string key: its UTF-8 bytes, hashed. */
export function partitionForKey(key: string, partitionCount: number): number {
  return toPositive(murmur2(Buffer.from(key, 'utf8'))) % partitionCount;
}
