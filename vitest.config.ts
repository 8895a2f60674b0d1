import { defineConfig } from 'vitest/config';

// The suite in tiers, chosen by where a file lives and how it is named:
//   unit:         every other test file: pure tests (machines, domain, rounds, folds, views) and
//                 route tests through Fastify's inject() over the embedded store. No Java, no
//                 child process, no port. Files that run on both deployments or both stores run
//                 the embedded one only here (test/support/test-servers.ts `unitTier()`).
//   integration:  `*.int.test.ts`: needs the test Kafka, the Mongo-wire server, child processes
//                 or the browser, or drives the whole in-process pipeline under load (fuzzing
//                 through it, demo seeding, replays, backfills).
//   scenarios:    test/e2e/ and test/faults/: the whole service under traffic, kills, outages,
//                 backfills and replays.
// `npm run test:unit` runs the unit tier alone (CONVOPS_TEST_TIER=unit); `npm test` runs all.
//
// `npm test` (scripts/run-tests.ts) runs the two projects as two lanes of one file each, the
// scenarios one after another beside the rest. Test servers start on a file's first ask
// (test/infra/provisioner.ts).
const SCENARIOS = ['test/e2e/**/*.test.ts', 'test/faults/**/*.test.ts'];
const unitOnly = process.env.CONVOPS_TEST_TIER === 'unit';

const shared = {
  globalSetup: ['test/infra/global-setup.ts'],
  // Kafka group joins and broker round-trips take seconds on a 2-core machine.
  testTimeout: 60_000,
  hookTimeout: 120_000,
  pool: 'forks' as const,
  // Files share a worker's module cache instead of each importing the service again (about
  // 1.3 s a file, 90 s of the suite). Every file owns its topics, database, data folder and
  // ports, and nothing registers global state at import (metrics live in each app's own
  // registry), so isolation bought nothing but the imports.
  isolate: false,
  // Removes the temporary folders each file made (test/support/temp-dirs.ts).
  setupFiles: ['test/infra/remove-temp-dirs.ts'],
};

export default defineConfig({
  test: unitOnly
    ? { ...shared, include: ['test/**/*.test.ts'], exclude: [...SCENARIOS, '**/*.int.test.ts'], maxWorkers: 2 }
    : {
      ...shared,
      // scripts/run-tests.ts runs each project as a lane of one worker (a project takes the root's count).
      maxWorkers: Number(process.env.CONVOPS_TEST_WORKERS ?? 2),
      projects: [
        { extends: true, test: { name: 'unit+integration', include: ['test/**/*.test.ts'], exclude: SCENARIOS } },
        { extends: true, test: { name: 'scenarios', include: SCENARIOS } },
      ],
    },
});
