// Each role runs as its own process and is SIGKILLed at random moments, again and again,
// while the platform keeps delivering (and redelivering whatever got no 2xx). And on Kafka,
// two processors share the partitions until one dies and the other takes them over.
// Afterwards every delivery is in the read models exactly once: the canonical hash equals
// a clean run's, and nobody restarted anything but the killed process.
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, describe, expect, it } from 'vitest';
import { createStore } from '../../src/adapters/index.js';
import type { DocumentStore } from '../../src/adapters/store/store.js';
import { loadConfig } from '../../src/config.js';
import { topology } from '../../src/topology.js';
import { freePort } from '../infra/servers.js';
import { expectSameAsReference, referenceOf } from '../support/reference-check.js';
import { DEPLOYMENTS, deploymentEnv, removeDataDirs, startWithEnv, type Deployment } from '../support/deployments.js';
import { faultDeliveries } from '../support/fault-input.js';
import { deliverAll } from '../support/sender.js';
import { startServiceProcess, startWorkerProcess, type ServiceProcess, type WorkerProcess } from '../support/service-process.js';
import { eventually } from '../support/wait.js';

const KILLS_PER_ROLE = 2;
const KILLS = 3 * KILLS_PER_ROLE;
const { deliveries } = faultDeliveries(2000, 11);

// What every figure must come to: the reference model's reading of the deliveries.
const ref = referenceOf(deliveries);

const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c().catch(() => undefined);
  removeDataDirs();
});

function expectReferenceFigures(env: Record<string, string>, url: string, store: DocumentStore): Promise<void> {
  return expectSameAsReference(ref, url, store, env);
}

type Role = 'api' | 'processor' | 'projector';
type Running = ServiceProcess | WorkerProcess;

describe.each(DEPLOYMENTS)('SIGKILLed processes on %s', (kind) => {

  it(`api, processor and projector each killed ${KILLS_PER_ROLE}+ times mid-ingest: nothing lost, nothing counted twice`, async () => {
    const env = deploymentEnv(kind, { KAFKA_SESSION_TIMEOUT_MS: '6000' });
    const port = await freePort();
    const start: Record<Role, () => Promise<Running>> = {
      api: () => startServiceProcess({ ...env, ROLES: 'api' }, port),
      processor: () => startWorkerProcess({ ...env, ROLES: 'processor' }),
      projector: () => startWorkerProcess({ ...env, ROLES: 'projector' }),
    };
    const procs: Record<Role, Running> = { api: await start.api(), processor: await start.processor(), projector: await start.projector() };
    cleanup.push(async () => { for (const p of Object.values(procs)) await p.stop(); });
    const store = await createStore(loadConfig(env));
    cleanup.push(() => store.close());
    const url = `http://127.0.0.1:${port}`;

    let sending = true;
    const kills: Record<Role, number> = { api: 0, processor: 0, projector: 0 };
    let killed = 0;
    const killer = (async () => {
      const roles: Role[] = ['api', 'processor', 'projector'];
      for (let i = 0; sending; i++) {
        await new Promise((r) => setTimeout(r, 300 + Math.floor(Math.random() * 1200)));
        // Every role in turn, in a random order each round.
        if (i % roles.length === 0) roles.sort(() => Math.random() - 0.5);
        const role = roles[i % roles.length] as Role;
        await procs[role].kill9();
        kills[role]++;
        killed++;
        procs[role] = await start[role]();
      }
    })();
    // Paced (about 60 deliveries a second), and once a share of the deliveries is in the sender
    // also waits for the next kill, so the kills are spread over the ingest however slow
    // restarts are. Each round of three kills takes every role once.
    const stats = await deliverAll(() => url, deliveries, {
      onAccepted: async (n) => {
        await new Promise((r) => setTimeout(r, 12));
        while (killed < KILLS && n > ((killed + 1) * deliveries.length) / (KILLS + 1)) await new Promise((r) => setTimeout(r, 50));
      },
    });
    sending = false;
    await killer;

    expect(stats.accepted).toBe(deliveries.length);
    for (const role of ['api', 'processor', 'projector'] as const) expect(kills[role], `${role} kills during ingest`).toBeGreaterThanOrEqual(KILLS_PER_ROLE);
    // The API died under the sender: it saw refused connections and delivered again.
    expect(stats.statuses.get(0) ?? 0).toBeGreaterThan(0);
    await expectReferenceFigures(env, url, store);
  }, 600_000);
});

describe('a processor rebalance on kafka+mongo', () => {
  const kind: Deployment = 'kafka+mongo';
  // One kill and one takeover: half the deliveries of the kill scenario above do it.
  const { deliveries } = faultDeliveries(1000, 13);
  const ref = referenceOf(deliveries);

  it('two processors share the partitions; one is SIGKILLed and the other takes over', async () => {
    const env = deploymentEnv(kind, { KAFKA_SESSION_TIMEOUT_MS: '6000' });
    const api = await startWithEnv({ ...env, ROLES: 'api' });
    cleanup.push(() => api.stop());
    const first = await startWorkerProcess({ ...env, ROLES: 'processor' });
    const second = await startWorkerProcess({ ...env, ROLES: 'processor' });
    const projector = await startWorkerProcess({ ...env, ROLES: 'projector' });
    cleanup.push(async () => { await first.stop(); await second.stop(); await projector.stop(); });

    const config = loadConfig(env);
    const group = topology(config.topicPrefix).processorGroup;
    const admin = new Kafka({ clientId: 'fault-test', brokers: [...(config.kafkaBrokers ?? [])], logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    cleanup.push(() => admin.disconnect());
    const members = async (): Promise<number> => (await admin.describeGroups([group])).groups[0]?.members.length ?? 0;

    let killedAt = -1;
    let membersBeforeKill = 0;
    // Four chats at a time: the kill lands mid-ingest wherever the other lanes are.
    const stats = await deliverAll(() => api.url ?? '', deliveries, {
      lanes: 4,
      onAccepted: async (n) => {
        if (n !== Math.floor(deliveries.length / 3)) return;
        membersBeforeKill = await eventually(async () => ((await members()) === 2 ? 2 : undefined), 30_000, 'both processors in the group');
        await first.kill9();
        killedAt = n;
      },
    });
    expect(stats.accepted).toBe(deliveries.length);
    expect(membersBeforeKill).toBe(2);
    expect(killedAt).toBeGreaterThan(0);
    await expectSameAsReference(ref, api.url ?? '', api.store, env, 240_000, api.log);
    expect(await members()).toBe(1);
  }, 600_000);
});
