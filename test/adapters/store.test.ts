import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { EmbeddedStore } from '../../src/adapters/store/embedded-store.js';
import { MongoStore } from '../../src/adapters/store/mongo-store.js';
import { storeContract } from '../contract/store-contract.js';
import { uniqueName } from '../support/wait.js';

// MongoDB runs a bulkWriteMany one collection at a time, without a transaction (see StoreCapabilities).
storeContract('mongodb wire', () => MongoStore.connect(inject('mongoUrl'), uniqueName('convops_test')), { atomicBulkWrites: false });
storeContract('embedded', async () => new EmbeddedStore(mkdtempSync(join(tmpdir(), 'convops-store-'))), { atomicBulkWrites: true });
