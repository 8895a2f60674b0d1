// What the global setup hands to every test file through inject().
import type { ProvidedContext as _Provided } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    kafkaBrokers: string;
    mongoUrl: string;
    /** The built service's entry module (./service-build.ts). */
    serviceEntry: string;
  }
}
