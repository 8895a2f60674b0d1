// Files run two at a time, so the order decides the wall time and the load. The long
// scenarios (processes killed, brokers stopped, histories backfilled) are mostly waiting for
// restarts, group joins and drains, while the short files are mostly CPU: the order puts one
// long scenario beside the short files at any time, never two long ones together (two at once
// each took about twice its serial time, and loaded the machine the kill scenarios measure).
// Vitest hands the next file in this order to whichever worker frees first, so the order is
// made by simulating that with durations from a measured run: one lane takes the long files in
// turn (longest first), the other the short ones, and either takes a short one when its own
// kind has run out. A fresh clone has no vitest cache to sort by, which is why the durations
// live here. A file not listed counts as short.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Seconds each slow file took in a serial run on the 2-core CI machine (rounded). */
const MEASURED_SEC: Readonly<Record<string, number>> = {
  'test/faults/process-kills.test.ts': 170,
  'test/e2e/backfill.test.ts': 99,
  'test/e2e/exactly-once.test.ts': 91,
  'test/e2e/replay.test.ts': 66,
  'test/faults/outages.test.ts': 64,
  'test/faults/zombie-writer.test.ts': 37,
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

/** Files this long or longer are the long scenarios: at most one of them runs at a time. */
const LONG_SEC = 30;
/** What a file not listed is taken to last. */
const SHORT_SEC = 1.5;

/** The order in which two workers, taking the next file whenever one frees, keep one long file beside the short ones. */
export function besideOrder<T>(files: readonly T[], seconds: (f: T) => number): T[] {
  const byLength = [...files].sort((a, b) => seconds(b) - seconds(a));
  const long = byLength.filter((f) => seconds(f) >= LONG_SEC);
  const short = byLength.filter((f) => seconds(f) < LONG_SEC);
  const order: T[] = [];
  // Two lanes, each free at its time; the long lane is the one that ran the last long file.
  const free = [0, 0];
  let longLane = 0;
  while (long.length > 0 || short.length > 0) {
    const lane = (free[0] ?? 0) <= (free[1] ?? 0) ? 0 : 1;
    const next = (lane === longLane && long.length > 0) || short.length === 0 ? long.shift() : short.shift();
    if (next === undefined) break;
    if (seconds(next) >= LONG_SEC) longLane = lane;
    order.push(next);
    free[lane] = (free[lane] ?? 0) + seconds(next);
  }
  return order;
}

export default class BesideLongFiles extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const seconds = (f: TestSpecification): number => MEASURED_SEC[f.moduleId.slice(root.length + 1)] ?? SHORT_SEC;
    return Promise.resolve(besideOrder([...files].sort((a, b) => a.moduleId.localeCompare(b.moduleId)), seconds));
  }
}
