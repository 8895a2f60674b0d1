// Dead code check, run by `npm run lint` and by `npm test` (scripts/run-tests.ts): an export that
// nothing imports, an unused file, or a dependency nothing uses fails it. Exports that only their
// own module uses are not reported (ignoreExportsUsedInFile): an export too many is no dead code.
// A test that imports an export keeps it: tests are entries.
import type { KnipConfig } from 'knip';

const config: KnipConfig = {
  // Where the code starts. knip's vitest and eslint plugins find vitest.config.ts with the global
  // setup it names (test/infra/global-setup.ts), and eslint.config.js, and know that their
  // default exports are read by the tools. Most of the rest are found again through
  // package.json's scripts or the vitest config; they are named here so the list reads as the
  // project's entry points. A pattern that matches no file is a hint, and hints fail the check
  // (treatConfigHintsAsErrors), so the list cannot go stale.
  entry: [
    // The service (`npm start` runs its build, dist/src/main.js).
    'src/main.ts',
    // The test files (vitest.config.ts names its global and setup files).
    'test/**/*.test.ts',
    // `npm run test:servers`.
    'test/infra/servers-cli.ts',
    // Each is run by hand (node --import tsx bench/NAME.ts; `npm run bench:ingest`); the few
    // helpers among them are checked like the rest (includeEntryExports).
    'bench/*.ts',
    // `npm test`, `npm run chart`, the postinstall scripts and the ones run by hand.
    'scripts/*.{ts,mjs}',
    // Run by hand against a service, and by test/http/example-client.test.ts.
    'examples/inbox-client.ts',
    // The pages' scripts, loaded by web/console.html and web/floor.html.
    'web/console.js',
    'web/floor.js',
  ],
  ignoreExportsUsedInFile: true,
  // Entry files' exports count too: a bench helper's or a script's export nobody imports is dead.
  includeEntryExports: true,
  ignoreIssues: {
    // Generated from docs/openapi.json by scripts/openapi.ts (a test keeps it current): it
    // declares every type of the document, used or not.
    'examples/convops-api.d.ts': ['types'],
  },
  ignoreDependencies: [
    // Run by its path, node_modules/@redocly/cli/bin/cli.js, from scripts/run-tests.ts.
    '@redocly/cli',
    // The headers scripts/build-lmdb.mjs compiles lmdb-js's addon against at install.
    'node-addon-api',
  ],
  // The JDK on the machine, not a package: the test Kafka broker and Mongo-wire server
  // (test/infra/servers.ts) and the partitioner's reference (test/adapters/partitioner.test.ts).
  ignoreBinaries: ['java'],
  treatConfigHintsAsErrors: true,
};

export default config;
