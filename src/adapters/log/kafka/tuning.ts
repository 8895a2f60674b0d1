// How the Kafka adapter trades latency for work, in one place. The defaults are what
// bench/kafka-path.ts measured best on the reference machine (2 cores, the broker on the same
// machine, two stages shaped like the processor and the projector at 1,000 records/s, the
// first stage's rounds taking 50 ms as a store write would); docs/benchmarks.md has the table.
// Append → second stage with these defaults: p50 93 ms, p99 136 ms (50 ms of it the work).
// kafkajs has no producer linger: a send goes out at once, and batching is the caller's (the
// webhook route's appender keeps one send in flight and sends what arrived meanwhile as the
// next; a consumer round appends all its events in one send), which batches by load without
// adding a fixed wait.

export interface KafkaTuning {
  /**
   * How long the broker may hold a fetch that finds no new records. With minBytes 1 a fetch
   * returns as soon as one record is there, so this bounds only the idle polling: it costs
   * latency only when a record lands just after an empty fetch was answered. Measured: 10 ms,
   * 100 ms and 500 ms all gave p50 87-93 ms (noise); 100 keeps an idle consumer's polling
   * cheap while bounding how long a stopping consumer waits on its last fetch.
   */
  readonly fetchWaitMs: number;
  /** Partition batches of one fetch that kafkajs hands out at once (they become one round). */
  readonly partitionWorkers: number;
  /** Compress produce requests (gzip); off by default. */
  readonly compress: boolean;
}

export const DEFAULT_KAFKA_TUNING: KafkaTuning = {
  fetchWaitMs: 100,
  // More than any topic here has partitions (INBOUND_PARTITIONS defaults to 12); idle workers
  // cost nothing. At 4 (kafkajs's suggestion) a 12-partition fetch takes three rounds, one
  // after the other: p50 204 ms, p99 348 ms against 93 and 136 at 64.
  partitionWorkers: 64,
  // Records are small JSON (a few hundred bytes) on a broker next door: gzip buys bandwidth
  // nobody is short of with the CPU everybody is. With it: p50 198 ms, p99 380 ms, and the
  // stages' process used 0.78 of a core against 0.40.
  compress: false,
};
