// How many runs a property test makes, and a failure's replay: PROPERTY_RUNS overrides the
// count; PROPERTY_SEED and PROPERTY_PATH (as fast-check prints them) replay a failure.
import type fc from 'fast-check';

export const propertyRuns = <T>(numRuns: number): fc.Parameters<T> => ({
  numRuns: Number(process.env.PROPERTY_RUNS ?? numRuns),
  ...(process.env.PROPERTY_SEED ? { seed: Number(process.env.PROPERTY_SEED), path: process.env.PROPERTY_PATH } : {}),
});
