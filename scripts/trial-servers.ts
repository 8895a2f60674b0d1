// A Kafka broker and a MongoDB-compatible server for trying the distributed layout on a machine
// without Docker: the test servers (test/infra/servers.ts: Apache Kafka in KRaft mode and
// mongo-java-server, fetched by Maven once per machine), on ports you choose, with their data
// kept in a folder across restarts. A trial, not a deployment: docs/operations.md says what it
// lacks.
//   npm run trial:servers -- [--kafka-port 9092] [--mongo-port 27017] [--dir ./trial-data]
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startKafka, startMongo } from '../test/infra/servers.js';

const { values } = parseArgs({
  options: {
    'kafka-port': { type: 'string', default: '9092' },
    'mongo-port': { type: 'string', default: '27017' },
    dir: { type: 'string', default: './trial-data' },
    'mongo-heap-mb': { type: 'string', default: '1024' },
  },
});

function port(name: 'kafka-port' | 'mongo-port'): number {
  const raw = values[name];
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 65535) {
    process.stderr.write(`--${name}: must be a port number (1-65535), got "${raw}"\n`);
    process.exit(2);
  }
  return Number(raw);
}

const kafkaPort = port('kafka-port');
const mongoPort = port('mongo-port');
const heapMb = Number(values['mongo-heap-mb']);
const dir = resolve(values.dir);
process.stderr.write(`starting Kafka on 127.0.0.1:${kafkaPort} and the MongoDB-compatible server on 127.0.0.1:${mongoPort}, data in ${dir} (the first start fetches their jars with Maven)...\n`);
const [kafka, mongo] = await Promise.all([
  startKafka({ port: kafkaPort, dir: resolve(dir, 'kafka') }),
  startMongo(heapMb, true, mongoPort, resolve(dir, 'mongo')),
]);
process.stdout.write([
  'ready. In other terminals, in this folder:',
  `  KAFKA_BROKERS=${kafka.url} MONGO_URL=${mongo.url} ROLES=api ADMIN_TOKEN=choose-a-long-secret-token npm start`,
  `  KAFKA_BROKERS=${kafka.url} MONGO_URL=${mongo.url} ROLES=processor,projector,intelligence OPS_PORT=9465 npm start`,
  'Ctrl-C stops both servers; their data stays in the folder for the next start.',
  '',
].join('\n'));
const stop = (): void => {
  void Promise.all([kafka.stop(), mongo.stop()]).then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
setInterval(() => undefined, 1 << 30);
