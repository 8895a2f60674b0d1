// Every accepted webhook changes the read models exactly once, while the processing side is
// killed with SIGKILL again and again; and replaying inbound from offset 0 into fresh state
// gives the same figures. Both are compared with the reference model's reading of the
// deliveries (each fact once, in time order), never with another run of the system.
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../src/app.js';
import { expectSameAsReference, referenceOf } from '../support/reference-check.js';
import { DEPLOYMENTS, deploymentEnv, removeDataDirs, startWithEnv } from '../support/deployments.js';
import { faultDeliveries, type Delivery } from '../support/fault-input.js';
import { postWebhook } from '../support/platform.js';
import { startWorkerProcess, type WorkerProcess } from '../support/service-process.js';

const KILLS = 5;

async function sendAll(url: string, deliveries: readonly Delivery[]): Promise<void> {
  for (const d of deliveries) {
    const res = await postWebhook(url, d.body, { key: d.key });
    if (res.status !== 200) throw new Error(`delivery ${d.key} got ${res.status}: ${JSON.stringify(res.body)}`);
  }
}

describe.each(DEPLOYMENTS)('exactly-once effects on %s', (kind) => {
  const running: RunningApp[] = [];
  let worker: WorkerProcess | undefined;
  afterAll(async () => {
    await worker?.stop();
    await Promise.all(running.map((a) => a.stop()));
    removeDataDirs();
  });

  it(`with ${KILLS}+ SIGKILLs of the processor and projector mid-ingest, every figure equals the reference model's, and so does a replay`, async () => {
    const { deliveries, duplicated, reordered } = faultDeliveries();
    expect(deliveries.length).toBeGreaterThanOrEqual(5000);
    expect(duplicated / deliveries.length).toBeGreaterThanOrEqual(0.10);
    expect(reordered / deliveries.length).toBeGreaterThanOrEqual(0.10);
    const ref = referenceOf(deliveries);
    expect(ref.messages.size).toBeGreaterThan(4000);

    // The API in this process keeps taking webhooks while the processing side, a separate
    // process, is killed at random moments and restarted.
    const env = deploymentEnv(kind, { KAFKA_SESSION_TIMEOUT_MS: '6000' });
    const api = await startWithEnv({ ...env, ROLES: 'api' });
    running.push(api);
    const workerEnv = { ...env, ROLES: 'processor,projector' };
    worker = await startWorkerProcess(workerEnv);
    let sending = true;
    let kills = 0;
    const killer = (async () => {
      while (sending || kills < KILLS) {
        await new Promise((r) => setTimeout(r, 300 + Math.floor(Math.random() * 1500)));
        await worker?.kill9();
        kills++;
        worker = await startWorkerProcess(workerEnv);
      }
    })();
    await sendAll(api.url ?? '', deliveries);
    sending = false;
    await killer;
    expect(kills).toBeGreaterThanOrEqual(KILLS);
    await expectSameAsReference(ref, api.url ?? '', api.store, env, 180_000, api.log);

    // Replay: everything re-derived from the inbound log, from offset 0, into fresh state.
    await worker.stop();
    worker = undefined;
    await api.stop();
    let replayEnv: Record<string, string>;
    if (kind === 'embedded') {
      const dir = mkdtempSync(join(tmpdir(), 'convops-replay-'));
      cpSync(join(env.DATA_DIR ?? '', 'log'), join(dir, 'log'), { recursive: true });
      replayEnv = { ...deploymentEnv(kind), DATA_DIR: dir, TOPIC_PREFIX: 'replay.', INBOUND_TOPIC: 'inbound' };
    } else {
      replayEnv = { ...deploymentEnv(kind), INBOUND_TOPIC: `${env.TOPIC_PREFIX ?? ''}inbound` };
    }
    const replay = await startWithEnv(replayEnv);
    running.push(replay);
    // The settling tick is in the inbound log already, so the replay settles the same way.
    await expectSameAsReference(ref, replay.url ?? '', replay.store, replayEnv, 180_000, replay.log);
  }, 600_000);
});
