// Starts the test Kafka broker and Mongo-wire server and keeps them up until interrupted, so
// several targeted test runs can share them: export the printed KAFKA_BROKERS and MONGO_URL.
import { startKafka, startMongo } from './servers.js';

const [kafka, mongo] = await Promise.all([startKafka(), startMongo()]);
process.stdout.write(`export KAFKA_BROKERS=${kafka.url} MONGO_URL=${mongo.url}\n`);
const stop = (): void => {
  void Promise.all([kafka.stop(), mongo.stop()]).then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
setInterval(() => undefined, 1 << 30);
