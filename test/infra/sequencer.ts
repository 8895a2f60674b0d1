// Files run two at a time, so the order decides the wall time: started last, a three-minute
// file keeps one worker busy while the other idles. Longest first (the classic greedy for
// balancing two lanes), from the durations of a measured run; a fresh clone has no vitest cache
// to sort by, which is why the durations live here. A file not listed counts as short.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Seconds each slow file took in a serial run on the 2-core CI machine (rounded). */
const MEASURED_SEC: Readonly<Record<string, number>> = {
  'test/faults/process-kills.test.ts': 200,
  'test/e2e/backfill.test.ts': 135,
  'test/faults/outages.test.ts': 77,
  'test/e2e/exactly-once.test.ts': 70,
  'test/e2e/replay.test.ts': 54,
  'test/faults/zombie-writer.test.ts': 42,
  'test/admin-state/replay-start.test.ts': 25,
  'test/admin-state/backfill-claims.test.ts': 22,
  'test/adapters/kafka-rounds.test.ts': 21,
  'test/admin-state/replay-stuck.test.ts': 17,
  'test/http/demo.test.ts': 17,
  'test/http/webhook-fuzz.test.ts': 16,
  'test/http/webhook.test.ts': 16,
  'test/security/regex-linear.test.ts': 15,
  'test/faults/openapi-fuzz.test.ts': 15,
  'test/http/reads-windows.test.ts': 14,
  'test/startup/startup-waits.test.ts': 12,
  'test/e2e/pages.test.ts': 12,
  'test/adapters/partitioner.test.ts': 10,
  'test/e2e/operations.test.ts': 9,
};

export default class LongestFirst extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const weight = (f: TestSpecification): number => MEASURED_SEC[f.moduleId.slice(root.length + 1)] ?? 0;
    return Promise.resolve([...files].sort((a, b) => weight(b) - weight(a) || a.moduleId.localeCompare(b.moduleId)));
  }
}
