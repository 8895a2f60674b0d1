// The store contract on the test Mongo-wire server.
import { MongoStore } from '../../src/adapters/store/mongo-store.js';
import { storeContract } from '../contract/store-contract.js';
import { mongoUrl } from '../support/test-servers.js';
import { uniqueName } from '../support/wait.js';

// MongoDB runs a bulkWriteMany one collection at a time, without a transaction (see StoreCapabilities).
storeContract('mongodb wire', async () => MongoStore.connect(await mongoUrl(), uniqueName('convops_test')), { atomicBulkWrites: false });
