// The benches time requests or calls in the process that seeded their data: the seeding's
// garbage, left for later collections, would put pauses no server has into their p99. One full
// collection before timing, whether or not node was started with --expose-gc.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}
