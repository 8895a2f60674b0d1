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

/** Seconds each slow file took two at a time on the 2-core CI machine (3addb18, rounded; the kill scenario after it stopped at its six kills). */
const MEASURED_SEC: Readonly<Record<string, number>> = {
  'test/faults/process-kills.test.ts': 160,
  'test/e2e/backfill.test.ts': 119,
  'test/e2e/replay.test.ts': 96,
  'test/e2e/exactly-once.test.ts': 93,
  'test/faults/outages.test.ts': 90,
  'test/faults/zombie-writer.test.ts': 35,
  'test/http/demo.test.ts': 41,
  'test/admin-state/replay-start.test.ts': 40,
  'test/admin-state/backfill-claims.test.ts': 38,
  'test/admin-state/replay-stuck.test.ts': 31,
  'test/http/webhook-fuzz.test.ts': 24,
  'test/http/hostile-input.test.ts': 23,
  'test/adapters/kafka-rounds.test.ts': 22,
  'test/faults/openapi-fuzz.test.ts': 22,
  'test/http/webhook.test.ts': 21,
  'test/security/regex-linear.test.ts': 20,
  'test/adapters/partitioner.test.ts': 14,
  'test/startup/startup-waits.test.ts': 14,
  'test/e2e/pages.test.ts': 12,
  'test/http/reads-windows.test.ts': 11,
  'test/e2e/operations.test.ts': 9,
  'test/adapters/mongo-stall.test.ts': 11,
};

/** The long scenarios (processes killed, brokers stopped, histories backfilled): at most one of them runs at a time. */
const LONG_FILES: ReadonlySet<string> = new Set([
  'test/faults/process-kills.test.ts', 'test/e2e/backfill.test.ts', 'test/e2e/replay.test.ts',
  'test/e2e/exactly-once.test.ts', 'test/faults/outages.test.ts', 'test/faults/zombie-writer.test.ts',
]);
/** What a file not listed is taken to last. */
const SHORT_SEC = 1.5;

/** The order in which two workers, taking the next file whenever one frees, keep one long file beside the short ones. */
export function besideOrder<T>(files: readonly T[], seconds: (f: T) => number, isLong: (f: T) => boolean): T[] {
  const byLength = [...files].sort((a, b) => seconds(b) - seconds(a));
  const long = byLength.filter((f) => isLong(f));
  const short = byLength.filter((f) => !isLong(f));
  const order: T[] = [];
  // Two lanes, each free at its time; the long lane is the one that ran the last long file.
  const free = [0, 0];
  let longLane = 0;
  while (long.length > 0 || short.length > 0) {
    const lane = (free[0] ?? 0) <= (free[1] ?? 0) ? 0 : 1;
    const next = (lane === longLane && long.length > 0) || short.length === 0 ? long.shift() : short.shift();
    if (next === undefined) break;
    if (isLong(next)) longLane = lane;
    order.push(next);
    free[lane] = (free[lane] ?? 0) + seconds(next);
  }
  return order;
}

export default class BesideLongFiles extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const name = (f: TestSpecification): string => f.moduleId.slice(root.length + 1);
    const seconds = (f: TestSpecification): number => MEASURED_SEC[name(f)] ?? SHORT_SEC;
    return Promise.resolve(besideOrder([...files].sort((a, b) => a.moduleId.localeCompare(b.moduleId)), seconds, (f) => LONG_FILES.has(name(f))));
  }
}
