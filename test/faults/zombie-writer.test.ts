// A zombie writer: a processor paused (SIGSTOP: a long GC, a hung store call) mid-ingest
// until the group gives its partitions to another processor, which goes on processing; then
// resumed. Whatever it was in the middle of must not land over the newer work: chat states
// and read models are written conditionally on what they were read at, and a processor
// checks it still owns its partition before it writes. Afterwards every figure equals the
// reference model's. Kafka only: the embedded log has no group rebalancing between processes.
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { topology } from '../../src/topology.js';
import { expectSameAsReference, referenceOf } from '../support/reference-check.js';
import { deploymentEnv, startWithEnv } from '../support/deployments.js';
import { faultDeliveries } from '../support/fault-input.js';
import { deliverAll } from '../support/sender.js';
import { startWorkerProcess } from '../support/service-process.js';
import { eventually } from '../support/wait.js';
import { tempDir } from '../support/temp-dirs.js';

// Thirds of 500: each third reaches every one of the 300 chats, so the zombie holds work on every partition.
const { deliveries } = faultDeliveries(1500, 31);
const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c().catch(() => undefined);
});

describe('a zombie processor on kafka+mongo', () => {
  it('paused until its partitions move, then resumed: its stale batch does not land, and every figure equals the reference', async () => {
    const env = await deploymentEnv('kafka+mongo', { KAFKA_SESSION_TIMEOUT_MS: '6000' });
    const logDir = tempDir('convops-zombie-');
    const api = await startWithEnv({ ...env, ROLES: 'api,projector' });
    cleanup.push(() => api.stop());
    const zombieLog = join(logDir, 'zombie.log');
    appendFileSync(zombieLog, '');
    process.env.CONVOPS_TEST_WORKER_LOG = zombieLog;
    // Each of its batches hangs before writing (as on a stuck store call), longer than the
    // group's session timeout: while it hangs, and while it is stopped, the group moves on.
    const zombie = await startWorkerProcess({ ...env, ROLES: 'processor', CONVOPS_FAILPOINT_STALL_BEFORE_WRITE_MS: '15000' });
    delete process.env.CONVOPS_TEST_WORKER_LOG;
    let survivor = await startWorkerProcess({ ...env, ROLES: 'processor' });
    cleanup.push(async () => {
      zombie.child.kill('SIGCONT');
      await zombie.stop();
      await survivor.stop();
    });

    const config = loadConfig(env);
    const group = topology(config.topicPrefix).processorGroup;
    const admin = new Kafka({ clientId: 'zombie-test', brokers: [...(config.kafkaBrokers ?? [])], logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    cleanup.push(() => admin.disconnect());
    const members = async (): Promise<number> => (await admin.describeGroups([group])).groups[0]?.members.length ?? 0;

    const third = Math.floor(deliveries.length / 3);
    const send = (list: typeof deliveries) => deliverAll(() => api.url ?? '', list, { lanes: 4 });
    const first = await send(deliveries.slice(0, third));
    await eventually(async () => ((await members()) === 2 ? true : undefined), 30_000, 'both processors in the group');
    // It has been inside a batch since its partitions' first records: stop it there.
    zombie.child.kill('SIGSTOP');
    const pausedAt = Date.now();
    // Deliver more while it is stopped: the group evicts it, the survivor takes its
    // partitions and moves their chats on.
    await send(deliveries.slice(third, 2 * third));
    await eventually(async () => ((await members()) === 1 ? true : undefined), 60_000, 'the group to evict the paused processor');
    await new Promise((r) => setTimeout(r, 2_000));
    const pausedFor = Date.now() - pausedAt;
    zombie.child.kill('SIGCONT');
    // The resumed processor does try to write its stale batch, and is refused.
    await eventually(async () => (readFileSync(zombieLog, 'utf8').includes('fenced') ? true : undefined), 60_000, 'the zombie to be fenced');
    // Its part is played: it is killed (its failpoint would stall every later round 15 s, and a
    // rebalance waits for a member's round). Then the survivor is restarted, so it reads chat
    // states from the store instead of its cache: a stale state put back by the zombie would
    // now be taken as the truth, and the last third would show it.
    await zombie.kill9();
    await survivor.stop();
    survivor = await startWorkerProcess({ ...env, ROLES: 'processor' });
    // The second third goes again (the platform redelivering is harmless), then the last.
    const rest = await send(deliveries.slice(third));
    expect(first.accepted + rest.accepted).toBe(deliveries.length);
    // It was stopped until the group had evicted it (the eviction wait above would have failed otherwise).
    expect(pausedFor).toBeGreaterThan(0);
    await expectSameAsReference(referenceOf(deliveries), api.url ?? '', api.store, env, 240_000, api.log);
  }, 600_000);
});
