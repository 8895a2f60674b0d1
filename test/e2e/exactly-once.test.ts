// Every accepted webhook changes the read models exactly once, while the processing side is
// killed with SIGKILL again and again; and replaying inbound from offset 0 into fresh state
// gives the same figures. Both are compared with the reference model's reading of the
// deliveries (each fact once, in time order), never with another run of the system.
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../src/app.js';
import { expectSameAsReference, referenceOf } from '../support/reference-check.js';
import { DEPLOYMENTS, deploymentEnv, removeDataDirs, startWithEnv } from '../support/deployments.js';
import { faultDeliveries, type Delivery } from '../support/fault-input.js';
import { deliverAll } from '../support/sender.js';
import { startWorkerProcess, type WorkerProcess } from '../support/service-process.js';
import { auditAppends } from '../support/append-audit.js';
import { topology } from '../../src/topology.js';
import { tempDir } from '../support/temp-dirs.js';

const KILLS = 5;

/**
 * Every delivery, eight chats' at a time (each chat's in order); the API is never down here, so
 * every answer is a 200, or a 503 when the log was slow to take a record (delivered again, as
 * the platform does, and deduplicated). `killed` says how many kills have landed: sending holds
 * until the next one has once it is that far along, so the kills are spread over the ingest.
 */
async function sendAll(url: string, deliveries: readonly Delivery[], killed: () => number): Promise<void> {
  const stats = await deliverAll(() => url, deliveries, {
    lanes: 8,
    onAccepted: async (n) => {
      while (killed() < KILLS && n > ((killed() + 1) * deliveries.length) / (KILLS + 1)) await new Promise((r) => setTimeout(r, 50));
    },
  });
  expect([...stats.statuses.keys()].filter((s) => s !== 200 && s !== 503)).toEqual([]);
}

// The two deployments run at once: most of each run is waiting (restarts, group joins, the drain).
describe('exactly-once effects', () => {
  const running: RunningApp[] = [];
  const workers = new Set<WorkerProcess>();
  afterAll(async () => {
    for (const w of workers) await w.stop();
    await Promise.all(running.map((a) => a.stop()));
    removeDataDirs();
  });

  it.concurrent.each(DEPLOYMENTS)(`on %s: with ${KILLS}+ SIGKILLs of the processor and projector mid-ingest, every figure equals the reference model's, and so does a replay`, async (kind) => {
    const { deliveries, duplicated, reordered } = faultDeliveries();
    expect(deliveries.length).toBeGreaterThanOrEqual(5000);
    expect(duplicated / deliveries.length).toBeGreaterThanOrEqual(0.10);
    expect(reordered / deliveries.length).toBeGreaterThanOrEqual(0.10);
    const ref = referenceOf(deliveries);
    expect(ref.messages.size).toBeGreaterThan(4000);

    // The API in this process keeps taking webhooks while the processing side, a separate
    // process, is killed at random moments and restarted.
    const env = await deploymentEnv(kind, { KAFKA_SESSION_TIMEOUT_MS: '6000' });
    const api = await startWithEnv({ ...env, ROLES: 'api' });
    running.push(api);
    const audit = auditAppends(api.log, topology(env.TOPIC_PREFIX ?? '').inbound);
    const workerEnv = { ...env, ROLES: 'processor,projector' };
    let worker: WorkerProcess | undefined = await startWorkerProcess(workerEnv);
    workers.add(worker);
    let sending = true;
    let kills = 0;
    const killer = (async () => {
      while (sending || kills < KILLS) {
        await new Promise((r) => setTimeout(r, 300 + Math.floor(Math.random() * 1500)));
        await worker?.kill9();
        if (worker) workers.delete(worker);
        kills++;
        worker = await startWorkerProcess(workerEnv);
        workers.add(worker);
      }
    })();
    await sendAll(api.url ?? '', deliveries, () => kills);
    sending = false;
    await killer;
    expect(kills).toBeGreaterThanOrEqual(KILLS);
    // Every record the log acknowledged is where it said, as written (the door's half of exactly-once).
    expect(audit.count()).toBeGreaterThanOrEqual(deliveries.length);
    expect(await audit.problems()).toEqual([]);
    await expectSameAsReference(ref, api.url ?? '', api.store, env, 180_000, api.log);

    // Replay: everything re-derived from the inbound log, from offset 0, into fresh state.
    await worker.stop();
    workers.delete(worker);
    worker = undefined;
    await api.stop();
    let replayEnv: Record<string, string>;
    if (kind === 'embedded') {
      const dir = tempDir('convops-replay-');
      cpSync(join(env.DATA_DIR ?? '', 'log'), join(dir, 'log'), { recursive: true });
      replayEnv = { ...await deploymentEnv(kind), DATA_DIR: dir, TOPIC_PREFIX: 'replay.', INBOUND_TOPIC: 'inbound' };
    } else {
      replayEnv = { ...await deploymentEnv(kind), INBOUND_TOPIC: `${env.TOPIC_PREFIX ?? ''}inbound` };
    }
    const replay = await startWithEnv(replayEnv);
    running.push(replay);
    // The settling tick is in the inbound log already, so the replay settles the same way.
    await expectSameAsReference(ref, replay.url ?? '', replay.store, replayEnv, 180_000, replay.log);
  }, 600_000);
});
