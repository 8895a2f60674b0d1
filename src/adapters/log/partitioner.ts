// Java-compatible partitioning (murmur2 of the key bytes), so a chat lands on the same
// partition whether a Java producer, kafkajs or the embedded log wrote it.
import { Partitioners } from 'kafkajs';

const javaCompatible = Partitioners.JavaCompatiblePartitioner();
const metadataCache = new Map<number, { partitionId: number; leader: number }[]>();

function metadataFor(count: number): { partitionId: number; leader: number }[] {
  let meta = metadataCache.get(count);
  if (!meta) {
    meta = Array.from({ length: count }, (_, partitionId) => ({ partitionId, leader: 0 }));
    metadataCache.set(count, meta);
  }
  return meta;
}

export function partitionForKey(key: string, partitionCount: number): number {
  return javaCompatible({
    topic: '',
    partitionMetadata: metadataFor(partitionCount) as never,
    message: { key, value: null },
  });
}
