// Runs a benchmark on the embedded default (a fresh data folder) and on Kafka + mongo-java-server
// provisioned like the tests, each unless `only` names the other.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startKafka, startMongo, type RunningServer } from '../test/infra/servers.js';

export async function onDeployments(
  only: string | undefined,
  /** `servers`: the broker's and the database's processes, for benchmarks that account CPU. */
  run: (name: string, env: Record<string, string>, servers: Readonly<Record<string, number | undefined>>) => Promise<void>,
  mongoHeapMb?: number,
): Promise<void> {
  if (only !== 'kafka') {
    const dir = mkdtempSync(join(tmpdir(), 'convops-bench-'));
    try {
      await run('embedded', { DATA_DIR: dir }, {});
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (only !== 'embedded') {
    const servers: RunningServer[] = [];
    try {
      const [kafka, mongo] = await Promise.all([startKafka(), startMongo(mongoHeapMb)]);
      servers.push(kafka, mongo);
      await run('kafka+mongo', { KAFKA_BROKERS: kafka.url, MONGO_URL: mongo.url, MONGO_DB: 'bench' }, { kafka: kafka.pid, mongo: mongo.pid });
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
    }
  }
}
