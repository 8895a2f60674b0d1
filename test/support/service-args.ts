// How a test starts the service as a process: the build of this run's sources
// (../infra/service-build.ts, made on the run's first ask), with its source maps for stack traces.
import { serviceEntry } from './test-servers.js';

export async function serviceArgs(): Promise<string[]> {
  return ['--enable-source-maps', await serviceEntry()];
}
