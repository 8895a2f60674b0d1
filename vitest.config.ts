import { defineConfig } from 'vitest/config';
import BesideLongFiles from './test/infra/sequencer.js';

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
    // Two files at a time by default (TEST_PARALLEL=0 runs one at a time; TEST_WORKERS sets the
    // count), in the order test/infra/sequencer.ts makes: one long scenario beside the short files.
    // Running two at a time found five faults, fixed: a SIGKILLed API's free port taken by another
    // file's app (9cc2204); an LMDB writer deadlock between stores or logs on one folder in one
    // process (dd6fda3, 5bcabc1); a replay start right after the last one ended refused (84e086f);
    // lmdb-js rolling back another process's commit when it opens an environment, which lost
    // acknowledged webhooks under worker restarts (acb30e7); and the MongoDB driver waiting for
    // ever on a write to a closing connection, which left the Mongo-wire outage scenario's client
    // or projector stuck after the server came back (scripts/patch-mongodb.mjs).
    fileParallelism: process.env.TEST_PARALLEL !== '0',
    maxWorkers: Number(process.env.TEST_WORKERS ?? 2),
    sequence: { sequencer: BesideLongFiles },
  },
});
