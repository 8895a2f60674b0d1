// What the global setup hands to every test file through inject().
import type { ProvidedContext as _Provided } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where test files ask for the test servers (./provisioner.ts; test/support/test-servers.ts asks). */
    provisioner: string;
    /** `unit` in `npm run test:unit` (no Java, no child processes), else `all`. */
    tier: 'unit' | 'all';
  }
}
