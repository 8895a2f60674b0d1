// The store contract on the embedded store (the Mongo-wire run is in mongo-store.int.test.ts).
import { EmbeddedStore } from '../../src/adapters/store/embedded-store.js';
import { storeContract } from '../contract/store-contract.js';
import { tempDir } from '../support/temp-dirs.js';

storeContract('embedded', async () => new EmbeddedStore(tempDir('convops-store-')), { atomicBulkWrites: true });
