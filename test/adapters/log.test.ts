import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { EmbeddedLog } from '../../src/adapters/log/embedded-log.js';
import { KafkaLog } from '../../src/adapters/log/kafka-log.js';
import { logContract } from '../contract/log-contract.js';

logContract('kafka', async () => new KafkaLog({ brokers: inject('kafkaBrokers').split(',') }));
logContract('embedded', async () => new EmbeddedLog(mkdtempSync(join(tmpdir(), 'convops-log-'))));
