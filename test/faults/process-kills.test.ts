// Each role runs as its own process and is SIGKILLed at random moments, again and again,
// while the platform keeps delivering (and redelivering whatever got no 2xx). And on Kafka,
// two processors share the partitions until one dies and the other takes them over.
// Afterwards every delivery is in the read models exactly once: the canonical hash equals
// a clean run's, and nobody restarted anything but the killed process.
//
// The three runs (the kill scenario on each deployment, and the rebalance) go at once: much of
// each is waiting (group joins with a 6 s session timeout, the drain, the paced sender). Process
// starts are CPU (about 4 CPU-s each, and a kill run restarts a process a dozen times or more),
// which bounds the gain on a busy 2-core machine. Each run owns its processes, API port, topics,
// database or data folder, and its own cleanup, which runs when that run ends (onTestFinished),
// so a run that is done stops loading the others.
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, describe, it, type TestContext } from 'vitest';
import { createStore } from '../../src/adapters/index.js';
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

// What every figure must come to: the reference model's reading of the deliveries (read only,
// so the runs can share it).
const ref = referenceOf(deliveries);

afterAll(() => removeDataDirs());

/** The run's own cleanup: every step registered is undone, last first, once the run ends, pass or fail. */
function cleanupOf(onTestFinished: TestContext['onTestFinished']): (step: () => Promise<void>) => void {
  const steps: (() => Promise<void>)[] = [];
  onTestFinished(async () => {
    for (const s of steps.reverse()) await s().catch(() => undefined);
  });
  return (step) => { steps.push(step); };
}

// An API port no other run of this file was given. The runs pick theirs at the same time, and a
// killed API's port stays free until it is back: picked again by another run, it would answer
// that run's deliveries there (or keep the restarted API from listening).
const portsGiven = new Set<number>();
async function ownPort(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (!portsGiven.has(port)) {
      portsGiven.add(port);
      return port;
    }
  }
}

type Role = 'api' | 'processor' | 'projector';
type Running = ServiceProcess | WorkerProcess;

describe('SIGKILLed processes', () => {

  it.concurrent.for(DEPLOYMENTS)(`on %s: api, processor and projector each killed ${KILLS_PER_ROLE}+ times mid-ingest: nothing lost, nothing counted twice`, { timeout: 600_000 }, async (kind, { expect, onTestFinished }) => {
    const cleanup = cleanupOf(onTestFinished);
    const env = await deploymentEnv(kind, { KAFKA_SESSION_TIMEOUT_MS: '6000' });
    const port = await ownPort();
    const start: Record<Role, () => Promise<Running>> = {
      api: () => startServiceProcess({ ...env, ROLES: 'api' }, port),
      processor: () => startWorkerProcess({ ...env, ROLES: 'processor' }),
      projector: () => startWorkerProcess({ ...env, ROLES: 'projector' }),
    };
    const procs: Partial<Record<Role, Running>> = {};
    cleanup(async () => { for (const p of Object.values(procs)) await p.stop(); });
    procs.api = await start.api();
    procs.processor = await start.processor();
    procs.projector = await start.projector();
    const store = await createStore(loadConfig(env));
    cleanup(() => store.close());
    const url = `http://127.0.0.1:${port}`;

    let sending = true;
    const kills: Record<Role, number> = { api: 0, processor: 0, projector: 0 };
    let killed = 0;
    const killer = (async () => {
      const roles: Role[] = ['api', 'processor', 'projector'];
      // KILLS in all, spread over the ingest by the sender below: once they have landed the rest
      // is sent without more (restarts are most of the CPU here; a run under load went on to 16).
      for (let i = 0; sending && killed < KILLS; i++) {
        await new Promise((r) => setTimeout(r, 300 + Math.floor(Math.random() * 1200)));
        // Every role in turn, in a random order each round.
        if (i % roles.length === 0) roles.sort(() => Math.random() - 0.5);
        const role = roles[i % roles.length] as Role;
        await procs[role]?.kill9();
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
    }).finally(async () => {
      // Also when sending failed: no killer may go on restarting processes after its run ended.
      sending = false;
      await killer;
    });

    expect(stats.accepted).toBe(deliveries.length);
    for (const role of ['api', 'processor', 'projector'] as const) expect(kills[role], `${role} kills during ingest`).toBeGreaterThanOrEqual(KILLS_PER_ROLE);
    // The API died under the sender: it saw refused connections and delivered again.
    expect(stats.statuses.get(0) ?? 0).toBeGreaterThan(0);
    await expectSameAsReference(ref, url, store, env);
  });

  // Kafka only, on its own topics and group: it runs alongside the kill scenarios above.
  it.concurrent('a processor rebalance on kafka+mongo: two processors share the partitions; one is SIGKILLed and the other takes over', async ({ expect, onTestFinished }) => {
    const kind: Deployment = 'kafka+mongo';
    // One kill and one takeover: half the deliveries of the kill scenario above do it.
    const { deliveries } = faultDeliveries(1000, 13);
    const ref = referenceOf(deliveries);
    const cleanup = cleanupOf(onTestFinished);
    const env = await deploymentEnv(kind, { KAFKA_SESSION_TIMEOUT_MS: '6000' });
    const api = await startWithEnv({ ...env, ROLES: 'api', PORT: String(await ownPort()) });
    cleanup(() => api.stop());
    const workers: WorkerProcess[] = [];
    cleanup(async () => { for (const w of workers) await w.stop(); });
    const first = await startWorkerProcess({ ...env, ROLES: 'processor' });
    workers.push(first);
    const second = await startWorkerProcess({ ...env, ROLES: 'processor' });
    workers.push(second);
    workers.push(await startWorkerProcess({ ...env, ROLES: 'projector' }));

    const config = loadConfig(env);
    const group = topology(config.topicPrefix).processorGroup;
    const admin = new Kafka({ clientId: 'fault-test', brokers: [...(config.kafkaBrokers ?? [])], logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    cleanup(() => admin.disconnect());
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
