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
    // Two files at a time: most of the slow files wait on processes, brokers and clocks rather
    // than the CPU, and every file has its own topics, database or data folder. The longest run
    // first so the two lanes end together (test/infra/sequencer.ts).
    fileParallelism: true,
    maxWorkers: Number(process.env.TEST_WORKERS ?? 2),
    sequence: { sequencer: LongestFirst },
  },
});
