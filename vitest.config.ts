import { defineConfig } from 'vitest/config';
import LongestFirst from './test/infra/sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/infra/global-setup.ts'],
    // Kafka group joins and broker round-trips take seconds on a 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Files share a worker's module cache instead of each importing the service again (about
    // 1.3 s a file, 90 s of the suite). Every file already owns its topics, database, data folder
    // and ports, and nothing registers global state at import (metrics live in each app's own
    // registry), so isolation bought nothing but the imports.
    isolate: false,
    // Two files at a time, longest first (test/infra/sequencer.ts): one file at a time leaves
    // most of a core idle while a file waits on restarts, group joins and timers. The two faults
    // this once met are fixed: a SIGKILLed API's free port taken by another file's app
    // (9cc2204) and an LMDB writer deadlock between stores or logs on one folder in one process
    // (dd6fda3, 5bcabc1). TEST_PARALLEL=0 runs one file at a time; TEST_WORKERS sets the count.
    fileParallelism: process.env.TEST_PARALLEL !== '0',
    maxWorkers: Number(process.env.TEST_WORKERS ?? 2),
    ...(process.env.TEST_PARALLEL !== '0' ? { sequence: { sequencer: LongestFirst } } : {}),
  },
});
