// The log contract on the embedded log (the Kafka log's run is in kafka-log.int.test.ts).
import { EmbeddedLog } from '../../src/adapters/log/embedded-log.js';
import { logContract } from '../contract/log-contract.js';
import { tempDir } from '../support/temp-dirs.js';

logContract('embedded', async () => new EmbeddedLog(tempDir('convops-log-')));
