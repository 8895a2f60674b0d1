// Runs a session processor over what `inbound` holds until it has seen `total` records, for the
// processor benchmarks: how long that took and what it counted.
import type { Log } from '../src/adapters/log/log.js';
import type { DocumentStore } from '../src/adapters/store/store.js';
import { SessionProcessor, type ProcessorCounters } from '../src/processor/session-processor.js';
import type { Logger } from '../src/support/logger.js';
import type { Topology } from '../src/topology.js';

export async function drainProcessor(log: Log, store: DocumentStore, topo: Topology, logger: Logger, total: number): Promise<{ seconds: number; counters: ProcessorCounters }> {
  const processor = new SessionProcessor({ log, store, topology: topo, idleMs: 1_800_000, lateMs: 120_000, logger });
  const started = performance.now();
  await processor.start();
  const seen = (): number => processor.counters.recordsApplied + processor.counters.recordsDuplicate + processor.counters.recordsSkippedAsApplied;
  while (seen() < total) await new Promise((r) => setTimeout(r, 50));
  const seconds = (performance.now() - started) / 1000;
  await processor.stop();
  return { seconds, counters: { ...processor.counters } };
}
