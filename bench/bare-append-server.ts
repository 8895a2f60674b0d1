// The ingest limit: a route that only appends the raw body to the same log, through the same
// batching, with none of the webhook's work (no signature, no parsing, no routing). The ingest
// benchmark runs it as its own process and compares the real webhook route against it.
//   node --import tsx bench/bare-append-server.ts   (env: PORT, and DATA_DIR or KAFKA_BROKERS)
import Fastify from 'fastify';
import { createLog } from '../src/adapters/index.js';
import { loadConfig } from '../src/config.js';
import { BatchingAppender } from '../src/ingest/batching-appender.js';
import { createLogger } from '../src/support/logger.js';
import { topology } from '../src/topology.js';

const config = loadConfig();
const logger = createLogger('warn');
const log = createLog(config, logger);
const inbound = topology(`${config.topicPrefix}bare.`).inbound;
await log.createTopics([{ name: inbound, partitions: config.inboundPartitions }]);
const appender = new BatchingAppender(log, inbound, { timeoutMs: config.appendTimeoutMs, lingerMs: config.appendLingerMs });

const app = Fastify({ bodyLimit: config.bodyLimitBytes });
app.removeAllContentTypeParsers();
app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => { done(null, body); });
let n = 0;
app.post('/append', async (request, reply) => {
  const key = request.headers['x-ofapi-idempotency-key'];
  await appender.append({ key: typeof key === 'string' ? key : String(n++), value: request.body as Buffer });
  return reply.status(200).send({ accepted: true });
});
await app.listen({ port: config.port, host: '127.0.0.1' });
const stop = async (): Promise<void> => {
  await app.close();
  await log.close();
  process.exit(0);
};
process.once('SIGTERM', () => void stop());
process.once('SIGINT', () => void stop());
