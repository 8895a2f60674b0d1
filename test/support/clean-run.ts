// The reference a fault test compares against: the same deliveries through one process that
// nothing disturbs.
import { expect } from 'vitest';
import type { DocumentStore } from '../../src/adapters/store/store.js';
import { deploymentEnv, startWithEnv, type Deployment } from './deployments.js';
import type { Delivery } from './fault-input.js';
import { differences, readModelDocs, settledHash } from './read-models.js';
import { deliverAll } from './sender.js';

export interface Snapshot {
  readonly hash: string;
  readonly docs: Record<string, unknown[]>;
}

export async function cleanRun(kind: Deployment, deliveries: readonly Delivery[]): Promise<Snapshot> {
  const app = await startWithEnv(deploymentEnv(kind));
  try {
    await deliverAll(() => app.url ?? '', deliveries);
    return { hash: await settledHash(app.url ?? '', app.store), docs: await readModelDocs(app.store) };
  } finally {
    await app.stop();
  }
}

/** Once the pipeline has settled, the read models equal the reference's; on a mismatch, the differing documents are printed first. */
export async function expectSameAsClean(reference: Snapshot, url: string, store: DocumentStore, timeoutMs = 240_000): Promise<void> {
  const hash = await settledHash(url, store, timeoutMs);
  if (hash !== reference.hash) console.error(differences(reference.docs, await readModelDocs(store)).join('\n'));
  expect(hash).toBe(reference.hash);
}
