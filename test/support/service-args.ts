// How a test starts the service as a process: the build the global setup made of this run's
// sources (../infra/service-build.ts), with its source maps for stack traces.
import { inject } from 'vitest';

export function serviceArgs(): string[] {
  return ['--enable-source-maps', inject('serviceEntry')];
}
