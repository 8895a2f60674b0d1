// Vitest global setup: a real Kafka broker and a Mongo-wire server for the whole run,
// unless KAFKA_BROKERS / MONGO_URL point at existing ones.
import type { TestProject } from 'vitest/node';
import './provided.js';
import { startKafka, startMongo, type RunningServer } from './servers.js';
import { buildService } from './service-build.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started: RunningServer[] = [];
  const kafkaFromEnv = process.env.KAFKA_BROKERS;
  const mongoFromEnv = process.env.MONGO_URL;
  const [kafka, mongo, serviceEntry] = await Promise.all([
    kafkaFromEnv ? Promise.resolve(undefined) : startKafka(),
    mongoFromEnv ? Promise.resolve(undefined) : startMongo(),
    buildService(),
  ]);
  if (kafka) started.push(kafka);
  if (mongo) started.push(mongo);
  project.provide('kafkaBrokers', kafkaFromEnv ?? kafka?.url ?? '');
  project.provide('mongoUrl', mongoFromEnv ?? mongo?.url ?? '');
  project.provide('serviceEntry', serviceEntry);
  process.stderr.write(`[test-servers] kafka=${kafkaFromEnv ?? kafka?.url} mongo=${mongoFromEnv ?? mongo?.url}\n`);
  return async () => {
    await Promise.all(started.map((s) => s.stop()));
  };
}
