// The reference a fault test compares against: the same deliveries through one process that
// nothing disturbs.
import { deploymentEnv, startWithEnv, type Deployment } from './deployments.js';
import type { Delivery } from './fault-input.js';
import { readModelDocs, settledHash } from './read-models.js';
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
