// Java-compatible partitioning (murmur2 of the key bytes), so a chat lands on the same
// partition whether a Java producer, kafkajs or the embedded log wrote it. The embedded log
// calls this inside its write transaction, so it must stay linear in the key's length: hence
// our own murmur2, not kafkajs's.
export { partitionForKey } from './murmur2.js';
